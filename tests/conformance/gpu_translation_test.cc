// Translation validation of the gpu backend on its host emulator
// (tests/conformance/translation_harness.h): every module of
// ../shared/hlo-corpus/real and of the lit tests runs through the whole
// gpu pipeline (GEMM rewriter, layouts, priority and multi-output fusion,
// kernels) and gives what the interpreter gives on seeded random inputs,
// or is refused at compile time naming the instruction. The gpu reduces
// in its own order (per-thread sums, warp shuffles), so floats may also
// differ by a few epsilons of their type (ReorderedReductionTolerance).
// The backend rewrites collectives and replica/partition ids only for a
// one-device module (passes/single_device_collectives.h) and refuses them
// in a module of more devices, so every device of a multi-device module it
// compiles computes the same: it runs once.
#include <memory>

#include "gpu_backend/executable.h"
#include "tests/conformance/translation_harness.h"

namespace xlite {
namespace {

absl::StatusOr<testing::TranslationRunner> CompileForEmulator(
    const HloModule& m) {
  absl::StatusOr<gpu::GpuCompileOptions> options =
      gpu::DefaultGpuCompileOptions(gpu::GpuCodeTarget::kEmulator);
  if (!options.ok()) return options.status();
  absl::StatusOr<std::unique_ptr<gpu::GpuExecutable>> exe =
      gpu::GpuExecutable::Compile(m.Clone(), *options);
  if (!exe.ok()) return exe.status();
  std::shared_ptr<gpu::GpuExecutable> shared = *std::move(exe);
  return [shared](int64_t replicas, int64_t partitions,
                  const testing::PerDeviceArguments& args)
             -> absl::StatusOr<std::vector<Literal>> {
    absl::StatusOr<Literal> one = shared->Run(args[0]);
    if (!one.ok()) return one.status();
    return std::vector<Literal>(replicas * partitions, *one);
  };
}

testing::TranslationPlatform GpuEmulator() {
  testing::TranslationPlatform gpu;
  gpu.name = "gpu-emulator";
  gpu.refusal = "the gpu backend cannot compile %";
  gpu.compile = CompileForEmulator;
  gpu.tolerance = testing::ReorderedReductionTolerance();
  gpu.denormals = DenormalMode::kIeee;
  return gpu;
}

class GpuTranslation : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuTranslation, MatchesTheInterpreterOrRefusesAtCompileTime) {
  testing::CheckTranslation(GetParam(), GpuEmulator());
}

INSTANTIATE_TEST_SUITE_P(Modules, GpuTranslation,
                         ::testing::ValuesIn(testing::TranslationCases()),
                         testing::TranslationCaseName);

const auto* const kSummary = ::testing::AddGlobalTestEnvironment(
    testing::TranslationSummary("gpu-emulator"));

}  // namespace
}  // namespace xlite
