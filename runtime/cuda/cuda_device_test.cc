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

}  // namespace
}  // namespace xlite::runtime::cuda
