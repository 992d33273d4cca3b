#include "tests/gpu/tiled_gemm_harness.h"

#include <cmath>

#include "gpu_backend/target_spec.h"
#include "gtest/gtest.h"
#include "hlo/analysis/verifier.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/tiled_gemm_config.h"
#include "hlo/text/parser.h"
#include "runtime/gpu_thunks.h"
#include "tests/gpu/deterministic_values.h"

namespace xlite {

bool HasTiledGemmFusion(const HloModule& module) {
  for (const HloInstruction* h : module.entry_computation()->instructions()) {
    if (IsTiledGemmFusion(*h)) return true;
  }
  return false;
}

absl::StatusOr<std::unique_ptr<gpu::GpuExecutable>> Compile(
    const std::string& text, gpu::GpuCodeTarget target, const char* spec_name,
    const std::string& tiling) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  absl::StatusOr<gpu::GpuCompileOptions> options =
      gpu::DefaultGpuCompileOptions(target);
  if (!options.ok()) return options.status();
  absl::StatusOr<gpu::GpuTargetSpec> spec = gpu::LoadGpuTargetSpec(spec_name);
  if (!spec.ok()) return spec.status();
  options->spec = *spec;
  options->gemm_backend = gpu::GemmBackend::kTiled;
  options->tiled_gemm_config = Tiling(tiling);
  options->assemble = target == gpu::GpuCodeTarget::kNvptx;
  return gpu::GpuExecutable::Compile(*std::move(module), *options);
}

// Equal for integers; for floats within what the result type's rounding
// of the same f32 sum (or the epilogue's tanh) may differ by.
void ExpectClose(const Literal& got, const Literal& want, double tolerance) {
  ASSERT_EQ(got.element_count(), want.element_count());
  int64_t bad = 0;
  for (int64_t i = 0; i < want.element_count(); ++i) {
    const double g = got.GetAsDouble(i), w = want.GetAsDouble(i);
    if (std::fabs(g - w) > tolerance * std::max(1.0, std::fabs(w))) {
      if (++bad <= 5) {
        ADD_FAILURE() << "element " << i << ": " << g << " vs " << w;
      }
    }
  }
  EXPECT_EQ(bad, 0);
}

void ExpectEmulatorMatchesInterpreter(const Case& c, const char* spec_name) {
  const std::string text = Module(c);
  SCOPED_TRACE(text);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(VerifyModule(**module).ok());
  const std::vector<Literal> args = gpu_test::DeterministicArguments(**module);
  // With IEEE subnormals, as the GPU computes.
  absl::StatusOr<Literal> want =
      EvaluateModule(**module, args, {.denormals = DenormalMode::kIeee});
  ASSERT_TRUE(want.ok()) << want.status();
  auto exe = Compile(text, gpu::GpuCodeTarget::kEmulator, spec_name, c.tiling);
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_TRUE(HasTiledGemmFusion((*exe)->module()))
      << runtime::ThunkSequenceToString((*exe)->thunks());
  // One kernel; split-K (long K, few tiles) adds the sum over the parts.
  ASSERT_EQ((*exe)->thunks().size(), c.k >= 2000 ? 2u : 1u)
      << runtime::ThunkSequenceToString((*exe)->thunks());
  absl::StatusOr<Literal> got = (*exe)->Run(args);
  ASSERT_TRUE(got.ok()) << got.status();
  const bool narrow = c.type == "bf16" || c.type == "f16" ||
                      c.type.rfind("f8", 0) == 0 ||
                      c.epilogue == "convert_bf16";
  const double tolerance = c.type == "s8"         ? 0
                           : narrow               ? 1e-2
                           : c.epilogue == "gelu" ? 1e-5
                                                  : 1e-6;
  ExpectClose(*got, *want, tolerance);
}

}  // namespace xlite
