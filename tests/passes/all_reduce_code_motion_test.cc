// while-loop-all-reduce-code-motion validated on simulated replicas: each
// lit module (and a 2-groups-of-2 variant) runs on 4 replicas with seeded
// random inputs before and after the pass. Moving the all-reduce changes the
// summation order (per-replica sums first, then across replicas), so floats
// may differ by reassociation: the bound used is 1e-4 relative plus 1e-4
// absolute for f32 (values in [-1, 1], <= 8 iterations, 4 replicas), 4e-2
// for bf16 accumulations; integers are bit-exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "hlo/analysis/verifier.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
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

// `min_tol` raises the bound for runs whose setup rewrites move a
// reduction to a wider type (the original rounds to bf16 on the way).
std::string Compare(const Literal& got, const Literal& want, double min_tol) {
  std::vector<const Literal*> a, b;
  Flatten(got, &a);
  Flatten(want, &b);
  if (a.size() != b.size()) return "tuple shapes differ";
  for (size_t k = 0; k < a.size(); ++k) {
    const PrimitiveType t = b[k]->shape().element_type();
    const double tol =
        std::max(t == PrimitiveType::kBF16 ? 4e-2 : 1e-4, min_tol);
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

// Runs `text` before and after the pass on its devices (4 replicas unless
// the module names its replica and partition counts); returns 1 if the pass
// changed it.
int Validate(const std::string& text, const std::string& name,
             const AllReduceCodeMotionOptions& options) {
  auto original = ParseHloModule(text);
  EXPECT_TRUE(original.ok()) << original.status().message();
  if (!original.ok()) return 0;
  std::unique_ptr<HloModule> moved = (*original)->Clone();
  auto changed = RunWhileLoopAllReduceCodeMotion(*moved, options);
  EXPECT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_TRUE(VerifyModule(*moved).ok()) << name;
  const HloModuleConfig& config = (*original)->config();
  const int64_t partitions = config.num_partitions;
  const int64_t replicas =
      config.replica_count > 1 || partitions > 1 ? config.replica_count : 4;
  const int64_t devices = replicas * partitions;
  const HloComputation& entry = *(*original)->entry_computation();
  std::mt19937_64 gen(11);
  std::vector<std::vector<Literal>> args(devices);
  for (int64_t r = 0; r < devices; ++r) {
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
  auto want = EvaluateOnDevices(**original, replicas, partitions, args);
  auto got = EvaluateOnDevices(*moved, replicas, partitions, args);
  EXPECT_TRUE(want.ok()) << name << ": " << want.status().message();
  EXPECT_TRUE(got.ok()) << name << ": " << got.status().message();
  if (!want.ok() || !got.ok()) return 0;
  for (int64_t r = 0; r < devices; ++r) {
    EXPECT_EQ(
        Compare((*got)[r], (*want)[r], options.run_setup_passes ? 4e-2 : 0), "")
        << name << " device " << r;
  }
  return *changed ? 1 : 0;
}

// Validates every module of a lit file, each also with its groups of four
// split into two groups of two; returns how many runs the pass changed.
int ValidateFile(const char* file, const AllReduceCodeMotionOptions& options) {
  std::optional<std::string> text = testing::ReadFile(file);
  EXPECT_TRUE(text.has_value()) << file;
  if (!text.has_value()) return 0;
  int moved = 0;
  for (const SplitPiece& piece : SplitInputFile(*text)) {
    // Shrink the spec example so four replicas evaluate it quickly.
    std::string small = absl::StrReplaceAll(
        piece.text, {{"1024, 1024", "16, 16"}, {"1024,1024", "16,16"}});
    const std::string name = absl::StrCat(file, ":", piece.line_offset);
    moved += Validate(small, name, options);
    std::string grouped = absl::StrReplaceAll(
        small, {{"replica_groups={{0,1,2,3}}", "replica_groups={{0,1},{2,3}}"},
                {"replica_groups={}", "replica_groups={{0,1},{2,3}}"}});
    if (grouped.find("reduce-scatter") != std::string::npos) {
      // Scattering over 2 instead of 4 doubles the pieces.
      grouped = absl::StrReplaceAll(grouped, {{"f32[2]", "f32[4]"}});
    }
    if (grouped != small)
      moved += Validate(grouped, name + " (two groups)", options);
  }
  return moved;
}

AllReduceCodeMotionOptions WithReduceScatter() {
  AllReduceCodeMotionOptions options;
  options.enable_reduce_scatter = true;
  return options;
}

// Each count is the movable modules of the file times the groupings they
// run in; the rejected ones must stay unchanged and equal.
TEST(AllReduceCodeMotion, AccumulationsOnDevices) {
  EXPECT_EQ(ValidateFile("tests/lit/passes/all_reduce_code_motion.hlo",
                         WithReduceScatter()),
            12);
}

TEST(AllReduceCodeMotion, DynamicUpdateSlicesOnDevices) {
  EXPECT_EQ(ValidateFile("tests/lit/passes/all_reduce_code_motion_dus.hlo",
                         WithReduceScatter()),
            8);
}

TEST(AllReduceCodeMotion, ReduceScatterOnDevices) {
  EXPECT_EQ(ValidateFile("tests/lit/passes/all_reduce_code_motion_scatter.hlo",
                         WithReduceScatter()),
            2);
}

// Slices, affine DUS indices, scatter, device-id tables, proven selects:
// seven movable modules, four of them also in two groups, and one that
// moves only in two groups.
TEST(AllReduceCodeMotion, PatternsOnDevices) {
  EXPECT_EQ(ValidateFile("tests/lit/passes/all_reduce_code_motion_patterns.hlo",
                         WithReduceScatter()),
            12);
}

TEST(AllReduceCodeMotion, SetupPassesOnDevices) {
  AllReduceCodeMotionOptions options = WithReduceScatter();
  options.run_setup_passes = true;
  EXPECT_EQ(ValidateFile("tests/lit/passes/all_reduce_code_motion_setup.hlo",
                         options),
            2);
}

// Reduce-scatter under transpose / convert, moved by the setup rewrites.
TEST(AllReduceCodeMotion, ReduceScatterSetupOnDevices) {
  AllReduceCodeMotionOptions options = WithReduceScatter();
  options.run_setup_passes = true;
  EXPECT_EQ(ValidateFile("tests/lit/passes/all_reduce_code_motion_setup_rs.hlo",
                         options),
            3);
}

}  // namespace
}  // namespace xlite
