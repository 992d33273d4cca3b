#ifndef XLITE_TESTS_FUZZ_DIFFERENTIAL_H_
#define XLITE_TESTS_FUZZ_DIFFERENTIAL_H_

// Differential testing of a backend (cpu, or the gpu backend on its host
// emulator) against the interpreter: a module runs on both on the same
// seeded random arguments (hlo-run's generator, runtime/literal_io.h) and
// the results are compared under the translation-validation policy
// (tests/testing/result_difference.h; for the gpu, which reduces in
// another order, ReorderedReductionTolerance, counted in epsilons of the
// narrowest dot result type a result is computed from where that is
// coarser than its own: the gpu may round a GEMM after its epilogue,
// tests/fuzz/dot_rounding.h). The backend may refuse a module at compile
// time with a located "cannot compile" error; anything else it does —
// another compile error, a run error, a different answer — is a failure.
// (A crash is one too, and ends the process.)

#include <cstdint>
#include <optional>
#include <string>

#include "gpu_backend/gpu_pipeline.h"
#include "hlo/ir/denormal_mode.h"
#include "tests/fuzz/choice_source.h"
#include "tests/fuzz/random_module.h"

namespace xlite::fuzz {

enum class Backend { kCpu, kGpuEmulator };

/// "cpu" or "gpu-emulator" (hlo-run's --platform names).
const char* BackendName(Backend backend);

struct DifferentialOptions {
  Backend backend = Backend::kCpu;
  /// Run the backend's pass pipeline before compiling (run_passes of its
  /// compile options).
  bool run_passes = true;
  /// Which path computes the gpu's dots (--gemm-backend; gpu only):
  /// kTiled makes every dot the tiled kernel computes a tiled GEMM fusion.
  gpu::GemmBackend gemm_backend = gpu::GemmBackend::kAuto;
  /// The tiling every tiled GEMM fusion gets instead of the heuristic's
  /// (gpu only; e.g. a warpgroup tiling, which the heuristic gives only
  /// GEMMs larger than the modules drawn here).
  std::optional<TiledGemmConfig> tiled_gemm_config;
  /// The GPU the backend compiles for (gpu only; --gpu-spec's names or a
  /// spec file): e.g. b200, whose tiled GEMMs may run tcgen05.
  std::string gpu_spec = "h100";
  /// Seed of the arguments.
  uint64_t input_seed = 42;
  /// The interpreter's denormal mode; unset: the backend's own (flushed
  /// for the cpu, as XLA:CPU's; IEEE for the gpu). Set to measure what
  /// the other mode would change.
  std::optional<DenormalMode> interpreter_denormals;
  RandomModuleOptions module;
};

enum class Outcome {
  kMatch,             // same results
  kRefused,           // the backend refused it with a located error
  kInvalidModule,     // the text does not parse or verify (generator bug)
  kInterpreterError,  // the reference failed (generator or evaluator gap)
  kCompileError,      // the backend failed otherwise at compile time
  kRunError,          // the compiled module failed at run time
  kMismatch,          // different results
};
const char* OutcomeName(Outcome outcome);

/// Failures are the outcomes a fuzzer must report.
inline bool IsFailure(Outcome o) {
  return o != Outcome::kMatch && o != Outcome::kRefused;
}

struct DifferentialResult {
  Outcome outcome = Outcome::kMatch;
  std::string message;  // the refusal, error or difference
  std::string text;     // the module
  /// Tiled GEMM fusions in the compiled module (gpu; any computation), so
  /// a test can tell that its modules reached the tiled GEMM kernel.
  int64_t tiled_gemm_fusions = 0;
};

/// Runs one module text on both platforms and compares.
DifferentialResult RunDifferential(const std::string& text,
                                   const DifferentialOptions& options = {});

/// Generates a module from `choices` and runs it.
DifferentialResult RunDifferential(ChoiceSource& choices,
                                   const DifferentialOptions& options = {});

}  // namespace xlite::fuzz

#endif  // XLITE_TESTS_FUZZ_DIFFERENTIAL_H_
