// Translation validation of the GPU fusion passes: priority-fusion then
// multi_output_fusion run on every module of the JAX corpus (before.hlo)
// and of the real XLA corpus; the verifier must accept the result, the
// printed module must parse again, and where the original is evaluable the
// evaluator (which runs fusions through their fused computations) must give
// the same results on seeded random inputs. Prints, per module, the
// kernels launched before and after (fusions plus unfused non-trivial
// instructions): for the real corpus's XLA:GPU-optimized dumps (gpu_*),
// "before" is XLA:GPU's own count.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "hlo/analysis/verifier.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "hlo/text/printer.h"
#include "passes/gpu_kernel_model.h"
#include "passes/registry.h"
#include "runtime/literal_io.h"
#include "tests/testing/paths.h"
#include "tests/testing/result_difference.h"

namespace xlite {
namespace {

struct Case {
  std::string name;
  std::string path;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (const std::string& dir :
       testing::ListFiles("tests/corpus/programs", "")) {
    cases.push_back({absl::StrCat("corpus_", dir.substr(dir.rfind('/') + 1)),
                     absl::StrCat(dir, "/before.hlo")});
  }
  if (std::optional<std::string> real = testing::SharedCorpusDir()) {
    for (const std::string& file : testing::ListFiles(*real, ".hlo")) {
      std::string stem = file.substr(file.rfind('/') + 1);
      cases.push_back(
          {absl::StrCat("real_", stem.substr(0, stem.size() - 4)), file});
    }
  }
  for (Case& c : cases) {
    for (char& ch : c.name) {
      if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
    }
  }
  return cases;
}

int64_t LargestArray(const HloModule& module) {
  int64_t largest = 0;
  for (const HloComputation* c : module.computations()) {
    for (const HloInstruction* h : c->instructions()) {
      if (h->shape().IsArray()) {
        largest = std::max(largest, h->shape().ElementCount());
      }
    }
  }
  return largest;
}

class GpuFusionValidation : public ::testing::TestWithParam<Case> {};

TEST_P(GpuFusionValidation, PreservesResultsAndPrintsParsableHlo) {
  const Case& c = GetParam();
  std::optional<std::string> text = testing::ReadFile(c.path);
  ASSERT_TRUE(text.has_value()) << c.path;
  ParseOptions options;
  options.filename = c.path;
  auto original = ParseHloModule(*text, options);
  if (!original.ok() || !VerifyModule(**original).ok()) {
    GTEST_SKIP() << "does not parse or verify";
  }
  const HloModule& module = **original;
  absl::StatusOr<Pipeline> pipeline = PassRegistry::Global().BuildPipeline(
      "priority-fusion,multi_output_fusion", "gpu");
  ASSERT_TRUE(pipeline.ok()) << pipeline.status().message();
  std::unique_ptr<HloModule> fused = module.Clone();
  PipelineRunOptions run;
  run.verify_each = true;
  absl::StatusOr<bool> changed = pipeline->Run(*fused, run);
  ASSERT_TRUE(changed.ok()) << changed.status().message();
  ASSERT_TRUE(VerifyModule(*fused).ok());
  // Fusions print as XLA prints them and parse back.
  const std::string printed = PrintModule(*fused);
  auto reparsed = ParseHloModule(printed);
  ASSERT_TRUE(reparsed.ok()) << reparsed.status().message();
  ASSERT_TRUE(VerifyModule(**reparsed).ok());
  // Beside it, for the JAX corpus, XLA:CPU's kernels (its after.hlo).
  std::string reference;
  if (absl::EndsWith(c.path, "/before.hlo")) {
    std::string after_path = c.path.substr(0, c.path.size() - 10) + "after.hlo";
    if (std::optional<std::string> after = testing::ReadFile(after_path)) {
      if (auto xla = ParseHloModule(*after); xla.ok()) {
        reference = absl::StrCat(" xla_cpu ", CountGpuKernels(**xla));
      }
    }
  }
  std::printf("kernels %-60s before %5lld after %5lld%s\n", c.name.c_str(),
              static_cast<long long>(CountGpuKernels(module)),
              static_cast<long long>(CountGpuKernels(*fused)),
              reference.c_str());
  const HloComputation& entry = *module.entry_computation();
  if (!*changed || LargestArray(module) > (1 << 20) ||
      module.config().replica_count > 1 || module.config().num_partitions > 1 ||
      module.instruction_count() >= 5000) {
    return;
  }
  std::mt19937_64 gen(42);
  std::vector<Literal> args;
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    args.push_back(RandomLiteral(entry.parameter_instruction(i)->shape(), gen));
  }
  EvaluatorOptions eval;
  eval.max_loop_iterations = 100000;
  absl::StatusOr<Literal> want = EvaluateModule(module, args, eval);
  if (!want.ok()) return;  // not evaluable (collectives, host transfers)
  absl::StatusOr<Literal> got = EvaluateModule(**reparsed, args, eval);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(testing::ResultDifference(*got, *want), "") << c.path;
}

INSTANTIATE_TEST_SUITE_P(
    Modules, GpuFusionValidation, ::testing::ValuesIn(Cases()),
    [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
}  // namespace xlite
