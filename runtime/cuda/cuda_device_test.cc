#include "runtime/cuda/cuda_device.h"

#include <gtest/gtest.h>

#include "runtime/gpu_image_runner.h"

namespace xlite::runtime::cuda {
namespace {

// An image with no kernels: one f32[4] parameter copied to the output.
GpuImage CopyImage() {
  GpuImage image;
  image.parameter_shapes.push_back(Shape::WithDefaultLayout(PrimitiveType::kF32, {4}));
  image.result_shape = Shape::WithDefaultLayout(PrimitiveType::kF32, {4});
  GpuImageAllocation param;
  param.kind = Allocation::Kind::kParameter;
  param.size = 16;
  param.parameter_number = 0;
  GpuImageAllocation out;
  out.kind = Allocation::Kind::kOutput;
  out.size = 16;
  image.allocations = {param, out};
  image.outputs.push_back({{}, Slice{1, 0, 16}});
  Thunk copy;
  copy.kind = Thunk::Kind::kMemcpy;
  copy.source = Slice{0, 0, 16};
  copy.destination = Slice{1, 0, 16};
  image.thunks.push_back(copy);
  return image;
}

TEST(CudaDevice, NoDeviceIsACleanErrorElseCopiesRoundTrip) {
  const GpuImage image = CopyImage();
  absl::StatusOr<std::unique_ptr<CudaDevice>> device = CudaDevice::Create(image);
  if (!device.ok()) {
    EXPECT_NE(device.status().message().find("no CUDA device"),
              std::string::npos)
        << device.status().message();
    EXPECT_FALSE(LoadCudaDriver().ok());
    return;
  }
  Literal arg(image.parameter_shapes[0]);
  for (int i = 0; i < 4; ++i) arg.SetFromDouble(i, i + 0.5);
  absl::StatusOr<Literal> r = RunGpuImage(image, **device, {arg});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, arg);
}

// A kernel doubling f32[4] (PTX the driver JIT-compiles), with a cost.
GpuImage TwiceImage() {
  GpuImage image = CopyImage();
  image.ptx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry twice(.param .u64 in, .param .u64 out)
{
	.reg .b32 %r<2>;
	.reg .f32 %f<3>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [out];
	cvta.to.global.u64 %rd3, %rd1;
	cvta.to.global.u64 %rd4, %rd2;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd5, %r1, 4;
	add.s64 %rd3, %rd3, %rd5;
	add.s64 %rd4, %rd4, %rd5;
	ld.global.f32 %f1, [%rd3];
	add.f32 %f2, %f1, %f1;
	st.global.f32 [%rd4], %f2;
	ret;
}
)";
  Thunk kernel;
  kernel.kind = Thunk::Kind::kKernel;
  kernel.instruction = "twice.1";
  kernel.kernel = "twice";
  kernel.block = 4;
  kernel.arguments = {Slice{0, 0, 16}, Slice{1, 0, 16}};
  kernel.cost = {32, 4, "f32", "add"};
  image.thunks = {kernel};
  return image;
}

// Profiling times each kernel with CUDA events (only on a GPU; a clean
// skip elsewhere) and refuses the emulator's clock.
TEST(CudaDevice, ProfilesKernelsWithEvents) {
  const GpuImage image = TwiceImage();
  absl::StatusOr<std::unique_ptr<CudaDevice>> device =
      CudaDevice::Create(image);
  if (!device.ok()) GTEST_SKIP() << device.status().message();
  ThunkProfile wrong(ThunkProfile::Clock::kEmulatorHostWall);
  EXPECT_FALSE((*device)->SetProfile(&wrong).ok());
  ThunkProfile profile(ThunkProfile::Clock::kCudaEvents);
  ASSERT_TRUE((*device)->SetProfile(&profile).ok());
  Literal arg(image.parameter_shapes[0]);
  for (int i = 0; i < 4; ++i) arg.SetFromDouble(i, i + 0.5);
  for (int run = 0; run < 3; ++run) {
    absl::StatusOr<Literal> r = RunGpuImage(image, **device, {arg});
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->GetAsDouble(3), 7.0);
  }
  ASSERT_EQ(profile.entries().size(), 1u);
  EXPECT_EQ(profile.entries()[0].name, "twice");
  EXPECT_EQ(profile.entries()[0].calls, 3);
  EXPECT_GE(profile.entries()[0].seconds, 0);
  EXPECT_EQ(profile.entries()[0].cost.flops, 4);
  EXPECT_EQ(profile.runs(), 3);
}

}  // namespace
}  // namespace xlite::runtime::cuda
