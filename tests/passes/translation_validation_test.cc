// Translation validation: every registered pass (and the cpu pipeline) runs
// on every module of the JAX corpus, of the pass lit tests, and of the real
// XLA corpus; the verifier must accept the result, and where the original
// module is evaluable, the evaluator must give the same results on seeded
// random inputs — integers and predicates bit-exactly, floats within a
// small relative tolerance (the passes only reassociate nothing, so float
// differences come from rewrites like x/2^k -> x*2^-k, which are exact,
// from algsimp's division by a reciprocal, an ulp per quotient, and from
// narrow-type constant folding; see Close()). contraction-type-caster
// rounds dot and convolution operands and results to a higher type where
// XLA does: it changes narrow values on purpose, so modules with narrow
// floats inside are only verified after it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "hlo/analysis/verifier.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "passes/registry.h"
#include "runtime/literal_io.h"
#include "tests/testing/paths.h"

namespace xlite {
namespace {

struct Case {
  std::string name;  // for the test name
  std::string path;
  std::string text;
  int line_offset = 0;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  auto add_file = [&](const std::string& path, const std::string& name) {
    std::optional<std::string> text = testing::ReadFile(path);
    if (!text.has_value()) return;
    std::vector<SplitPiece> pieces = SplitInputFile(*text);
    for (size_t i = 0; i < pieces.size(); ++i) {
      cases.push_back({absl::StrCat(name, pieces.size() > 1 ? "_" : "",
                                    pieces.size() > 1 ? absl::StrCat(i) : ""),
                       path, pieces[i].text, pieces[i].line_offset});
    }
  };
  for (const std::string& dir :
       testing::ListFiles("tests/corpus/programs", "")) {
    for (const char* stage : {"before", "after"}) {
      add_file(absl::StrCat(dir, "/", stage, ".hlo"),
               absl::StrCat("corpus_", dir.substr(dir.rfind('/') + 1), "_",
                            stage));
    }
  }
  for (const std::string& file :
       testing::ListFiles("tests/lit/passes", ".hlo")) {
    std::string stem = file.substr(file.rfind('/') + 1);
    add_file(file, absl::StrCat("lit_", stem.substr(0, stem.size() - 4)));
  }
  if (std::optional<std::string> real = testing::SharedCorpusDir()) {
    for (const std::string& file : testing::ListFiles(*real, ".hlo")) {
      std::string stem = file.substr(file.rfind('/') + 1);
      add_file(file, absl::StrCat("real_", stem.substr(0, stem.size() - 4)));
    }
  }
  for (Case& c : cases) {
    for (char& ch : c.name) {
      if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
    }
  }
  return cases;
}

void Flatten(const Literal& l, std::vector<const Literal*>* out) {
  if (l.shape().IsTuple()) {
    for (const Literal& e : l.tuple_elements()) Flatten(e, out);
  } else {
    out->push_back(&l);
  }
}

// "" if equal within the documented tolerance, else the first difference.
double LargestFinite(const Literal& l) {
  double largest = 0;
  for (int64_t i = 0; i < l.element_count(); ++i) {
    const double v = std::abs(l.GetAsComplex(i));
    if (std::isfinite(v)) largest = std::max(largest, v);
  }
  return largest;
}

// `narrow_inside`: the module computes in a narrow float type somewhere, so
// an ulp of it (a reciprocal rounded to f16, a constant folded in bf16) can
// reach a wider result.
std::string Close(const Literal& got, const Literal& want, bool narrow_inside) {
  std::vector<const Literal*> a, b;
  Flatten(got, &a);
  Flatten(want, &b);
  if (a.size() != b.size()) return "different tuple shapes";
  for (size_t k = 0; k < a.size(); ++k) {
    if (!ShapesCompatible(a[k]->shape(), b[k]->shape())) {
      return absl::StrCat("leaf ", k, ": shape ", a[k]->shape().ToString(),
                          " vs ", b[k]->shape().ToString());
    }
    const PrimitiveType t = b[k]->shape().element_type();
    const bool inexact = IsFloatingPoint(t) || IsComplex(t);
    // f32: an ulp of a reciprocal grows through a backward pass's
    // cancellations, still far below a wrong rewrite; an element that
    // cancels to below 1% of its leaf's largest is measured against that.
    double rtol =
        t == PrimitiveType::kF64 || t == PrimitiveType::kC128 ? 1e-5 : 1e-4;
    if (IsNarrowFloat(t) || narrow_inside) rtol = 1e-2;
    const double floor = inexact ? 0.01 * LargestFinite(*b[k]) : 0;
    for (int64_t i = 0; i < b[k]->element_count(); ++i) {
      if (a[k]->GetBits(i) == b[k]->GetBits(i)) continue;
      if (inexact) {
        const std::complex<double> x = a[k]->GetAsComplex(i);
        const std::complex<double> y = b[k]->GetAsComplex(i);
        const bool nx = std::isnan(x.real()) || std::isnan(x.imag());
        const bool ny = std::isnan(y.real()) || std::isnan(y.imag());
        if (nx && ny) continue;
        if (x == y) continue;  // +0 / -0
        if (!nx && !ny &&
            std::abs(x - y) <= 1e-6 + rtol * std::max(std::abs(y), floor)) {
          continue;
        }
      }
      return absl::StrCat("leaf ", k, " element ", i, ": ",
                          a[k]->ElementToString(i), " vs ",
                          b[k]->ElementToString(i));
    }
  }
  return "";
}

// Passes that move a narrow float's rounding to where XLA rounds it.
bool RoundsNarrowOnPurpose(const std::string& spec) {
  return spec == "contraction-type-caster";
}

bool NarrowInside(const HloModule& module) {
  for (const HloComputation* comp : module.computations()) {
    for (const HloInstruction* h : comp->instructions()) {
      if (h->shape().IsArray() && IsNarrowFloat(h->shape().element_type())) {
        return true;
      }
    }
  }
  return false;
}

// Tallies for the summary line (per shard).
struct Tally {
  int modules = 0, evaluated = 0, runs = 0, compared = 0;
};
Tally& Counts() {
  static Tally t;
  return t;
}

class Summary : public ::testing::Environment {
 public:
  void TearDown() override {
    const Tally& t = Counts();
    std::printf(
        "translation validation: %d modules, %d evaluable; %d pass runs "
        "verified, %d changed a module and were compared by evaluation\n",
        t.modules, t.evaluated, t.runs, t.compared);
  }
};
const auto* const kSummary =
    ::testing::AddGlobalTestEnvironment(new Summary);

class TranslationValidation : public ::testing::TestWithParam<Case> {};

TEST_P(TranslationValidation, PassesPreserveResults) {
  const Case& c = GetParam();
  ParseOptions options;
  options.filename = c.path;
  options.line_offset = c.line_offset;
  auto original = ParseHloModule(c.text, options);
  if (!original.ok()) {
    // Lit inputs may be deliberately malformed; others must parse.
    ASSERT_TRUE(absl::StartsWith(c.name, "lit_"))
        << original.status().message();
    GTEST_SKIP() << "does not parse";
  }
  if (!VerifyModule(**original).ok()) GTEST_SKIP() << "does not verify";
  const HloModule& module = **original;
  const HloComputation& entry = *module.entry_computation();
  // Evaluate only single-device modules of modest size.
  EvaluatorOptions eval_options;
  eval_options.max_loop_iterations = 100000;
  // Passes compute (fold constants) with gradual underflow, as XLA
  // compiles: in that mode they preserve results. (With denormals flushed,
  // as XLA:CPU's code runs, a folded 1e-20f * 1e-20f is 1e-40 where the
  // unfolded one is 0: tests/lit/passes/constant_folding.hlo.)
  eval_options.denormals = DenormalMode::kIeee;
  // Real dumps of large models (Llama) are checked structurally only.
  int64_t largest = 0;
  for (const HloComputation* comp : module.computations()) {
    for (const HloInstruction* h : comp->instructions()) {
      if (h->shape().IsArray()) {
        largest = std::max(largest, h->shape().ElementCount());
      }
    }
  }
  const bool evaluable_size = largest <= (1 << 20);
  std::vector<Literal> args;
  std::mt19937_64 gen(42);
  for (int64_t i = 0; evaluable_size && i < entry.num_parameters(); ++i) {
    args.push_back(RandomLiteral(entry.parameter_instruction(i)->shape(), gen));
  }
  std::optional<Literal> want;
  if (evaluable_size && module.config().replica_count <= 1 &&
      module.config().num_partitions <= 1 &&
      module.instruction_count() < 5000) {
    absl::StatusOr<Literal> r = EvaluateModule(module, args, eval_options);
    if (r.ok()) want = *std::move(r);
  }
  ++Counts().modules;
  if (want.has_value()) ++Counts().evaluated;
  std::vector<std::string> specs = PassRegistry::Global().Names();
  specs.push_back("");  // the cpu pipeline
  for (const std::string& spec : specs) {
    SCOPED_TRACE(spec.empty() ? "--platform=cpu" : spec);
    absl::StatusOr<Pipeline> pipeline =
        PassRegistry::Global().BuildPipeline(spec, "cpu");
    ASSERT_TRUE(pipeline.ok()) << pipeline.status().message();
    std::unique_ptr<HloModule> clone = module.Clone();
    PipelineRunOptions run;
    run.verify_each = true;
    absl::StatusOr<bool> changed = pipeline->Run(*clone, run);
    ASSERT_TRUE(changed.ok()) << changed.status().message();
    absl::Status verified = VerifyModule(*clone);
    ASSERT_TRUE(verified.ok()) << verified.message();
    ++Counts().runs;
    if (!want.has_value() || !*changed) continue;
    if (RoundsNarrowOnPurpose(spec) && NarrowInside(module)) continue;
    ++Counts().compared;
    absl::StatusOr<Literal> got = EvaluateModule(*clone, args, eval_options);
    ASSERT_TRUE(got.ok()) << got.status().message();
    const std::string diff = Close(*got, *want, NarrowInside(module));
    EXPECT_EQ(diff, "") << "after " << (spec.empty() ? "cpu pipeline" : spec);
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllModules, TranslationValidation, ::testing::ValuesIn(Cases()),
    [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
}  // namespace xlite
