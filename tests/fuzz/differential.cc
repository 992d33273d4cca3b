#include "tests/fuzz/differential.h"

#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cpu_backend/executable.h"
#include "cpu_backend/xla_cpu_numerics.h"
#include "gpu_backend/executable.h"
#include "gpu_backend/target_spec.h"
#include "hlo/analysis/verifier.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/ir/tiled_gemm_config.h"
#include "hlo/text/parser.h"
#include "passes/passes.h"
#include "runtime/literal_io.h"
#include "tests/fuzz/dot_rounding.h"
#include "tests/testing/result_difference.h"

namespace xlite::fuzz {

const char* OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kMatch:
      return "match";
    case Outcome::kRefused:
      return "refused";
    case Outcome::kInvalidModule:
      return "invalid module";
    case Outcome::kInterpreterError:
      return "interpreter error";
    case Outcome::kCompileError:
      return "compile error";
    case Outcome::kRunError:
      return "run error";
    case Outcome::kMismatch:
      return "mismatch";
  }
  return "?";
}

const char* BackendName(Backend backend) {
  return backend == Backend::kCpu ? "cpu" : "gpu-emulator";
}

namespace {

// A backend's compile and run: kMatch with the result, or how it failed.
struct BackendRun {
  Outcome outcome = Outcome::kMatch;
  std::string message;
  std::optional<Literal> result;
  int64_t tiled_gemm_fusions = 0;
};

int64_t CountTiledGemmFusions(const HloModule& module) {
  int64_t n = 0;
  for (const HloComputation* c : module.computations()) {
    for (const HloInstruction* h : c->instructions()) {
      if (IsTiledGemmFusion(*h)) ++n;
    }
  }
  return n;
}

template <typename Executable>
BackendRun RunCompiled(absl::StatusOr<std::unique_ptr<Executable>> exe,
                       absl::string_view refusal,
                       absl::Span<const Literal> args) {
  BackendRun run;
  if (!exe.ok()) {
    const bool located = absl::StrContains(exe.status().message(), refusal);
    run.outcome = located ? Outcome::kRefused : Outcome::kCompileError;
    run.message = std::string(exe.status().message());
    return run;
  }
  if constexpr (std::is_same_v<Executable, gpu::GpuExecutable>) {
    run.tiled_gemm_fusions = CountTiledGemmFusions((*exe)->module());
  }
  absl::StatusOr<Literal> got = (*exe)->Run(args);
  if (!got.ok()) {
    run.outcome = Outcome::kRunError;
    run.message = std::string(got.status().message());
    return run;
  }
  run.result = *std::move(got);
  return run;
}

BackendRun RunOnBackend(const HloModule& module, absl::Span<const Literal> args,
                        const DifferentialOptions& options) {
  if (options.backend == Backend::kCpu) {
    cpu::CompileOptions compile;
    compile.run_passes = options.run_passes;
    return RunCompiled(cpu::CpuExecutable::Compile(module.Clone(), compile),
                       "the cpu backend cannot compile %", args);
  }
  absl::StatusOr<gpu::GpuTargetSpec> spec =
      gpu::LoadGpuTargetSpec(options.gpu_spec);
  if (!spec.ok()) {
    return {Outcome::kCompileError, std::string(spec.status().message()),
            std::nullopt};
  }
  gpu::GpuCompileOptions compile;
  compile.spec = *std::move(spec);
  compile.target = gpu::GpuCodeTarget::kEmulator;
  compile.run_passes = options.run_passes;
  compile.gemm_backend = options.gemm_backend;
  compile.tiled_gemm_config = options.tiled_gemm_config;
  return RunCompiled(gpu::GpuExecutable::Compile(module.Clone(), compile),
                     "the gpu backend cannot compile %", args);
}

// The gpu reduces in its own order (tests/testing/result_difference.h)
// and may round a narrow GEMM after its epilogue.
testing::ResultTolerance ToleranceFor(const HloModule& module,
                                      const DifferentialOptions& options) {
  if (options.backend != Backend::kGpuEmulator) return {};
  testing::ResultTolerance tolerance = testing::ReorderedReductionTolerance();
  tolerance.rounding_types = DotRoundingPerResult(module);
  return tolerance;
}

// The module the interpreter runs as the reference, or nullptr for the
// module itself. Tiled GEMMs on the gpu multiply f32 on TF32 tensor cores:
// the reference rounds those operands the same way. The cpu rounds
// narrow floats where XLA:CPU does (cpu_backend/xla_cpu_numerics.h:
// contractions in their compute type, a convert to the wide type reading
// the unrounded value, f16 logistics step by step): so does the reference.
absl::StatusOr<std::unique_ptr<HloModule>> ReferenceModule(
    const HloModule& module, const DifferentialOptions& options) {
  if (options.backend == Backend::kCpu) {
    std::unique_ptr<HloModule> rewritten = module.Clone();
    absl::StatusOr<bool> changed = cpu::RewriteForXlaCpuNumerics(*rewritten);
    if (!changed.ok()) return changed.status();
    return *changed ? std::move(rewritten) : nullptr;
  }
  if (options.gemm_backend != gpu::GemmBackend::kTiled) return nullptr;
  // With the pipeline, the operands TF32 rounds are algsimp's (a divide
  // by a broadcast multiplies by its reciprocal; an outer product is no
  // dot at all): an ulp there can move a TF32 rounding.
  std::unique_ptr<HloModule> simplified = module.Clone();
  if (options.run_passes) {
    if (absl::Status s = RunAlgebraicSimplifier(*simplified).status();
        !s.ok()) {
      return s;
    }
  }
  std::unique_ptr<HloModule> tf32 = WithTf32DotOperands(*simplified);
  if (tf32 == nullptr) return absl::InternalError("could not round to TF32");
  return tf32;
}

}  // namespace

DifferentialResult RunDifferential(const std::string& text,
                                   const DifferentialOptions& options) {
  DifferentialResult result;
  result.text = text;
  auto fail = [&](Outcome outcome, absl::string_view message) {
    result.outcome = outcome;
    result.message = std::string(message);
    return result;
  };
  ParseOptions parse;
  parse.filename = "random.hlo";
  std::vector<std::string> warnings;
  parse.warnings = &warnings;
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(text, parse);
  if (!module.ok()) {
    return fail(Outcome::kInvalidModule, module.status().message());
  }
  if (absl::Status s = VerifyModule(**module); !s.ok()) {
    return fail(Outcome::kInvalidModule, s.message());
  }
  std::mt19937_64 gen(options.input_seed);
  std::vector<Literal> args;
  for (const HloInstruction* p :
       (*module)->entry_computation()->parameter_instructions()) {
    args.push_back(RandomLiteral(p->shape(), gen));
  }
  EvaluatorOptions evaluator;
  evaluator.max_loop_iterations = 1000;
  // The CPU backend flushes denormals as XLA:CPU does; the GPU's keep them.
  evaluator.denormals = options.interpreter_denormals.value_or(
      options.backend == Backend::kCpu ? DenormalMode::kFlushToZero
                                       : DenormalMode::kIeee);
  absl::StatusOr<std::unique_ptr<HloModule>> reference =
      ReferenceModule(**module, options);
  if (!reference.ok()) {
    return fail(Outcome::kInterpreterError, reference.status().message());
  }
  absl::StatusOr<Literal> want = EvaluateModule(
      *reference != nullptr ? **reference : **module, args, evaluator);
  if (!want.ok()) {
    return fail(Outcome::kInterpreterError, want.status().message());
  }
  BackendRun got = RunOnBackend(**module, args, options);
  result.tiled_gemm_fusions = got.tiled_gemm_fusions;
  if (got.outcome != Outcome::kMatch) return fail(got.outcome, got.message);
  const std::string difference = testing::ResultDifference(
      *got.result, *want, ToleranceFor(**module, options));
  if (!difference.empty()) {
    return fail(Outcome::kMismatch,
                absl::StrCat(difference, " (", BackendName(options.backend),
                             " vs interpreter)"));
  }
  return result;
}

DifferentialResult RunDifferential(ChoiceSource& choices,
                                   const DifferentialOptions& options) {
  return RunDifferential(RandomModuleText(choices, options.module), options);
}

}  // namespace xlite::fuzz
