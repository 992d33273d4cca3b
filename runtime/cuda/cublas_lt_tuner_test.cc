// The cuBLASLt tuning device. Without a CUDA device (CI, this machine)
// creating it fails cleanly with "no CUDA device". With one, a GEMM image
// is autotuned (every GEMM gets an algorithm scoped to this device), runs
// with the algorithms chosen, and matches the untuned run; an algorithm
// tuned for another device or cuBLASLt is ignored.
#include "runtime/cuda/cublas_lt_tuner.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "hlo/text/parser.h"
#include "runtime/cuda/cuda_device.h"
#include "runtime/gemm_autotune_session.h"
#include "runtime/gemm_result_check.h"
#include "runtime/gpu_image_runner.h"

namespace xlite::runtime::cuda {
namespace {

constexpr int64_t kWorkspace = 1 << 20;

// d = relu(a[64,32] x b[32,16]), a 1 MiB workspace.
GpuImage GemmImage() {
  GpuImage image;
  const Shape a = *ParseShape("f32[64,32]{1,0}");
  const Shape b = *ParseShape("f32[32,16]{1,0}");
  const Shape d = *ParseShape("f32[64,16]{1,0}");
  image.parameter_shapes = {a, b};
  image.result_shape = d;
  image.allocations = {
      {Allocation::Kind::kParameter, a.ByteSizeOfElements(), 0, {}, ""},
      {Allocation::Kind::kParameter, b.ByteSizeOfElements(), 1, {}, ""},
      {Allocation::Kind::kOutput, d.ByteSizeOfElements(), -1, {}, ""},
      {Allocation::Kind::kTemp, kWorkspace, -1, {}, ""}};
  image.outputs.push_back({{}, Slice{2, 0, d.ByteSizeOfElements()}});
  absl::StatusOr<GemmDescription> gemm = DescribeGemm(
      "__cublas$lt$matmul",
      R"({"gemm_backend_config":{"alpha_real":1,"beta":0,)"
      R"("dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],)"
      R"("rhs_contracting_dimensions":["0"]},"epilogue":"RELU"}})",
      {a, b}, *ParseShape("(f32[64,16]{1,0}, s8[1048576]{0})"));
  EXPECT_TRUE(gemm.ok()) << gemm.status();
  Thunk t;
  t.kind = Thunk::Kind::kGemm;
  t.instruction = "gemm.1";
  t.arguments = {Slice{0, 0, a.ByteSizeOfElements()},
                 Slice{1, 0, b.ByteSizeOfElements()},
                 Slice{2, 0, d.ByteSizeOfElements()}, Slice{3, 0, kWorkspace}};
  t.gemm = std::make_shared<const GemmDescription>(*gemm);
  image.thunks.push_back(t);
  return image;
}

absl::StatusOr<Literal> RunOnDevice(const GpuImage& image) {
  absl::StatusOr<std::unique_ptr<CudaDevice>> device =
      CudaDevice::Create(image);
  if (!device.ok()) return device.status();
  Literal a(image.parameter_shapes[0]), b(image.parameter_shapes[1]);
  for (int64_t i = 0; i < a.element_count(); ++i) a.SetFromDouble(i, i % 7 - 3);
  for (int64_t i = 0; i < b.element_count(); ++i) b.SetFromDouble(i, i % 5 - 2);
  return RunGpuImage(image, **device, {a, b});
}

TEST(CublasLtTuner, NoDeviceIsACleanErrorElseTunedRunsMatchUntuned) {
  absl::StatusOr<std::unique_ptr<GemmTuningDevice>> tuner =
      CreateCublasLtTuningDevice();
  if (!tuner.ok()) {
    EXPECT_NE(tuner.status().message().find("no CUDA device"),
              std::string::npos)
        << tuner.status().message();
    GTEST_SKIP() << tuner.status().message();
  }
  const GemmTuningPlatform platform = (*tuner)->platform();
  EXPECT_NE(platform.device.find("(sm_"), std::string::npos);
  GpuImage tuned = GemmImage();
  absl::StatusOr<GemmAutotuneReport> report = RunGemmAutotuning(
      tuned.thunks, {true, ""}, [&]() { return std::move(tuner); });
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->stats.timed, 1);
  const std::optional<GemmAlgorithm>& chosen = tuned.thunks[0].gemm_algorithm;
  ASSERT_TRUE(chosen.has_value());
  EXPECT_EQ(chosen->tuned_for,
            GemmAlgorithmScope(platform.device, platform.cublaslt));
  std::cerr << report->note << "\n" << ThunkSequenceToString(tuned.thunks);

  absl::StatusOr<Literal> untuned_result = RunOnDevice(GemmImage());
  absl::StatusOr<Literal> tuned_result = RunOnDevice(tuned);
  ASSERT_TRUE(untuned_result.ok()) << untuned_result.status().message();
  ASSERT_TRUE(tuned_result.ok()) << tuned_result.status().message();
  const Shape& d = tuned.result_shape;
  const std::vector<uint8_t> x = untuned_result->PhysicalData(d);
  const std::vector<uint8_t> y = tuned_result->PhysicalData(d);
  EXPECT_TRUE(CompareGemmResults(d, std::string(x.begin(), x.end()),
                                 std::string(y.begin(), y.end()))
                  .ok());

  // An algorithm tuned elsewhere (here: nonsense words) is not used.
  GpuImage foreign = GemmImage();
  GemmAlgorithm nonsense;
  nonsense.data.fill(0xdeadbeef);
  nonsense.tuned_for = GemmAlgorithmScope("another GPU (sm_80)", "120000");
  foreign.thunks[0].gemm_algorithm = nonsense;
  absl::StatusOr<Literal> foreign_result = RunOnDevice(foreign);
  ASSERT_TRUE(foreign_result.ok()) << foreign_result.status().message();
  EXPECT_EQ(*foreign_result, *untuned_result);
}

}  // namespace
}  // namespace xlite::runtime::cuda
