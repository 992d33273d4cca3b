// while-loop-all-reduce-code-motion validated on simulated replicas: each
// lit module (and a 2-groups-of-2 variant) runs on 4 replicas with seeded
// random inputs before and after the pass. Moving the all-reduce changes the
// summation order (per-replica sums first, then across replicas), so floats
// may differ by reassociation: the bound used is 1e-4 relative plus 1e-4
// absolute for f32 (values in [-1, 1], <= 8 iterations, 4 replicas), 4e-2
// for bf16 accumulations; integers are bit-exact.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "absl/strings/str_replace.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/parser.h"
#include "hlo/verifier.h"
#include "passes/while_loop_all_reduce_code_motion.h"
#include "runtime/literal_io.h"
#include "tests/testing/paths.h"

namespace xlite {
namespace {

void Flatten(const Literal& l, std::vector<const Literal*>* out) {
  if (l.shape().IsTuple()) {
    for (const Literal& e : l.tuple_elements()) Flatten(e, out);
  } else {
    out->push_back(&l);
  }
}

std::string Compare(const Literal& got, const Literal& want) {
  std::vector<const Literal*> a, b;
  Flatten(got, &a);
  Flatten(want, &b);
  if (a.size() != b.size()) return "tuple shapes differ";
  for (size_t k = 0; k < a.size(); ++k) {
    const PrimitiveType t = b[k]->shape().element_type();
    const double tol = t == PrimitiveType::kBF16 ? 4e-2 : 1e-4;
    for (int64_t i = 0; i < b[k]->element_count(); ++i) {
      if (!IsFloatingPoint(t)) {
        if (a[k]->GetBits(i) != b[k]->GetBits(i)) return "integer mismatch";
        continue;
      }
      const double x = a[k]->GetAsDouble(i), y = b[k]->GetAsDouble(i);
      if (std::fabs(x - y) > tol + tol * std::fabs(y)) {
        return "leaf " + std::to_string(k) + " element " + std::to_string(i) +
               ": " + std::to_string(x) + " vs " + std::to_string(y);
      }
    }
  }
  return "";
}

int Validate(const std::string& text, const std::string& name) {
  auto original = ParseHloModule(text);
  EXPECT_TRUE(original.ok()) << original.status().message();
  if (!original.ok()) return 0;
  std::unique_ptr<HloModule> moved = (*original)->Clone();
  AllReduceCodeMotionOptions options;
  options.enable_reduce_scatter = true;
  auto changed = RunWhileLoopAllReduceCodeMotion(*moved, options);
  EXPECT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_TRUE(VerifyModule(*moved).ok()) << name;
  const HloComputation& entry = *(*original)->entry_computation();
  std::mt19937_64 gen(11);
  std::vector<std::vector<Literal>> args(4);
  for (int r = 0; r < 4; ++r) {
    for (int64_t i = 0; i < entry.num_parameters(); ++i) {
      const Shape& shape = entry.parameter_instruction(i)->shape();
      // Loop bounds (integer scalars) agree across replicas, as they must
      // for the collectives inside to match up.
      if (r > 0 && shape.rank() == 0 && IsInteger(shape.element_type())) {
        args[r].push_back(args[0][i]);
      } else {
        args[r].push_back(RandomLiteral(shape, gen));
      }
    }
  }
  auto want = EvaluateOnDevices(**original, 4, 1, args);
  auto got = EvaluateOnDevices(*moved, 4, 1, args);
  EXPECT_TRUE(want.ok()) << name << ": " << want.status().message();
  EXPECT_TRUE(got.ok()) << name << ": " << got.status().message();
  if (!want.ok() || !got.ok()) return 0;
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(Compare((*got)[r], (*want)[r]), "") << name << " replica " << r;
  }
  return *changed ? 1 : 0;
}

TEST(AllReduceCodeMotion, LitModulesOnFourReplicas) {
  int moved = 0;
  for (const char* file : {"tests/lit/passes/all_reduce_code_motion.hlo",
                           "tests/lit/passes/all_reduce_code_motion_dus.hlo",
                           "tests/lit/passes/all_reduce_code_motion_scatter.hlo"}) {
  std::optional<std::string> text = testing::ReadFile(file);
  ASSERT_TRUE(text.has_value()) << file;
  for (const SplitPiece& piece : SplitInputFile(*text)) {
    // Shrink the spec example so four replicas evaluate it quickly.
    std::string small =
        absl::StrReplaceAll(piece.text, {{"1024, 1024", "16, 16"},
                                         {"1024,1024", "16,16"}});
    moved += Validate(small, "module");
    // The same with two groups of two.
    std::string grouped =
        absl::StrReplaceAll(small, {{"replica_groups={{0,1,2,3}}",
                                     "replica_groups={{0,1},{2,3}}"},
                                    {"replica_groups={}",
                                     "replica_groups={{0,1},{2,3}}"}});
    if (grouped.find("reduce-scatter") != std::string::npos) {
      // Scattering over 2 instead of 4 doubles the pieces.
      grouped = absl::StrReplaceAll(grouped, {{"f32[2]", "f32[4]"}});
    }
    moved += Validate(grouped,
        "two groups");
  }
  }
  // Seven movable modules (accumulations, nested, select-with-zero, two
  // DUS, reduce-scatter), each in both
  // groupings; the rejected ones must stay unchanged and equal.
  EXPECT_EQ(moved, 16);
}

}  // namespace
}  // namespace xlite
