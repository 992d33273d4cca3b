#include "tests/fuzz/differential.h"

#include <random>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cpu_backend/executable.h"
#include "hlo/analysis/verifier.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "runtime/literal_io.h"
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
  absl::StatusOr<Literal> want = EvaluateModule(**module, args, evaluator);
  if (!want.ok()) {
    return fail(Outcome::kInterpreterError, want.status().message());
  }
  cpu::CompileOptions compile;
  compile.run_passes = options.run_passes;
  absl::StatusOr<std::unique_ptr<cpu::CpuExecutable>> exe =
      cpu::CpuExecutable::Compile((*module)->Clone(), compile);
  if (!exe.ok()) {
    const bool located = absl::StrContains(
        exe.status().message(), "the cpu backend cannot compile %");
    return fail(located ? Outcome::kRefused : Outcome::kCompileError,
                exe.status().message());
  }
  absl::StatusOr<Literal> got = (*exe)->Run(args);
  if (!got.ok()) return fail(Outcome::kRunError, got.status().message());
  const std::string difference = testing::ResultDifference(*got, *want);
  if (!difference.empty()) {
    return fail(Outcome::kMismatch,
                absl::StrCat(difference, " (cpu vs interpreter)"));
  }
  return result;
}

DifferentialResult RunDifferential(ChoiceSource& choices,
                                   const DifferentialOptions& options) {
  return RunDifferential(RandomModuleText(choices, options.module), options);
}

}  // namespace xlite::fuzz
