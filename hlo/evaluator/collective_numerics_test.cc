// The numerics of reducing collectives against XLA:CPU (README
// "Numerics"): bf16 all-reduce and reduce-scatter reduce in f32 and round
// once, f8 ones in f16, f16 ones round every step in participant order.
// Expected values were computed by XLA:CPU (jaxlib 0.10.2) on 4 replicas
// running the same modules; each replica builds its data from iota and
// replica-id, so no input files are needed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "hlo/analysis/verifier.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"

namespace xlite {
namespace {

constexpr int kReplicas = 4;

// Each replica's results, as doubles.
std::vector<std::vector<double>> RunOnReplicas(const std::string& hlo) {
  std::vector<std::vector<double>> out;
  auto module = ParseHloModule(hlo);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return out;
  absl::Status verified = VerifyModule(**module);
  EXPECT_TRUE(verified.ok()) << verified;
  auto results = EvaluateOnDevices(
      **module, kReplicas, 1, std::vector<std::vector<Literal>>(kReplicas));
  EXPECT_TRUE(results.ok()) << results.status();
  if (!results.ok()) return out;
  for (const Literal& r : *results) {
    std::vector<double> values;
    const std::vector<Literal> parts =
        r.shape().IsTuple() ? r.tuple_elements() : std::vector<Literal>{r};
    for (const Literal& part : parts) {
      for (int64_t i = 0; i < part.element_count(); ++i) {
        values.push_back(part.GetAsDouble(i));
      }
    }
    out.push_back(std::move(values));
  }
  return out;
}

// A module whose replica r computes x = T[N] {convert((37 i + 53 r) mod M
// - M/2)} (rounded to T by the convert) and ends with `root_lines`, which
// reduce x across replicas with the computation `r` (T add).
std::string Module(const std::string& type, int64_t n, int64_t m,
                   const std::string& root_lines) {
  return absl::StrReplaceAll(
      R"(HloModule m
r {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  ROOT c = $T[] add(a, b)
}
ENTRY e {
  i = s32[$N] iota(), iota_dimension=0
  rid = u32[] replica-id()
  rs = s32[] convert(rid)
  k53 = s32[] constant(53)
  rk = s32[] multiply(rs, k53)
  rb = s32[$N] broadcast(rk), dimensions={}
  k37 = s32[] constant(37)
  b37 = s32[$N] broadcast(k37), dimensions={}
  mul = s32[$N] multiply(i, b37)
  sum = s32[$N] add(mul, rb)
  kM = s32[] constant($M)
  bM = s32[$N] broadcast(kM), dimensions={}
  md = s32[$N] remainder(sum, bM)
  kH = s32[] constant($H)
  bH = s32[$N] broadcast(kH), dimensions={}
  s = s32[$N] subtract(md, bH)
  x = $T[$N] convert(s)
$ROOT}
)",
      {{"$T", type},
       {"$N", absl::StrCat(n)},
       {"$M", absl::StrCat(m)},
       {"$H", absl::StrCat(m / 2)},
       {"$ROOT", root_lines}});
}

// XLA:CPU's sums of the bf16 data below over 4 replicas (f32, rounded
// once). Rounding every step in bf16 differs in 5 of the 16 elements
// (-3696 for -3712 first).
const std::vector<double> kBf16Sums = {-3712, -3552, -3408, -3264, -3104, -2960,
                                       -2816, -2656, -2528, -2368, -2224, -2080,
                                       -1928, -1776, -1632, -1480};

TEST(CollectiveNumerics, Bf16AllReduceSumsInF32) {
  const auto results = RunOnReplicas(Module(
      "bf16", 16, 2011,
      "  ROOT y = bf16[16] all-reduce(x), replica_groups={}, to_apply=r\n"));
  ASSERT_EQ(results.size(), kReplicas);
  for (const auto& r : results) EXPECT_EQ(r, kBf16Sums);
}

TEST(CollectiveNumerics, Bf16AllReduceStartSumsInF32) {
  const auto results = RunOnReplicas(Module(
      "bf16", 16, 2011,
      "  s0 = bf16[16] all-reduce-start(x), replica_groups={}, to_apply=r\n"
      "  ROOT y = bf16[16] all-reduce-done(s0)\n"));
  ASSERT_EQ(results.size(), kReplicas);
  for (const auto& r : results) EXPECT_EQ(r, kBf16Sums);
}

// Every operand of a combined all-reduce is promoted.
TEST(CollectiveNumerics, Bf16TupleAllReduceSumsInF32) {
  const auto results =
      RunOnReplicas(Module("bf16", 16, 2011,
                           "  x2 = bf16[16] negate(x)\n"
                           "  ROOT y = (bf16[16], bf16[16]) all-reduce(x, x2), "
                           "replica_groups={}, to_apply=r\n"));
  std::vector<double> expected = kBf16Sums;
  for (double v : kBf16Sums) expected.push_back(-v);
  ASSERT_EQ(results.size(), kReplicas);
  for (const auto& r : results) EXPECT_EQ(r, expected);
}

TEST(CollectiveNumerics, Bf16ReduceScatterSumsInF32) {
  const auto results = RunOnReplicas(
      Module("bf16", 16, 2011,
             "  ROOT y = bf16[4] reduce-scatter(x), replica_groups={}, "
             "dimensions={0}, to_apply=r\n"));
  ASSERT_EQ(results.size(), kReplicas);
  for (int d = 0; d < kReplicas; ++d) {
    EXPECT_EQ(results[d], std::vector<double>(kBf16Sums.begin() + 4 * d,
                                              kBf16Sums.begin() + 4 * d + 4))
        << "replica " << d;
  }
}

// f8 collectives reduce in f16 (float normalization), then round to f8.
// Rounding every step in f8e5m2 differs in 6 of the 16 elements.
TEST(CollectiveNumerics, F8AllReduceSumsInF16) {
  const auto results = RunOnReplicas(
      Module("f8e5m2", 16, 201,
             "  ROOT y = f8e5m2[16] all-reduce(x), replica_groups={}, "
             "to_apply=r\n"));
  const std::vector<double> expected = {-80, 64, 20,  -32, -96,  48, 4,   -48,
                                        -96, 40, -12, -64, -112, 28, -24, -64};
  ASSERT_EQ(results.size(), kReplicas);
  for (const auto& r : results) EXPECT_EQ(r, expected);
}

// f16 stays f16: every step rounds, in the order of the replica group
// (3, 1, 0, 2), not in device order (9 of 16 differ) nor in f32 (6 differ).
TEST(CollectiveNumerics, F16AllReduceRoundsEveryStepInGroupOrder) {
  const auto results = RunOnReplicas(
      Module("f16", 16, 8011,
             "  ROOT y = f16[16] all-reduce(x), replica_groups={{3,1,0,2}}, "
             "to_apply=r\n"));
  const std::vector<double> expected = {
      -15712, -15560, -15408, -15264, -15112, -14960, -14816, -14664,
      -14512, -14368, -14216, -14080, -13928, -13776, -13632, -13480};
  ASSERT_EQ(results.size(), kReplicas);
  for (const auto& r : results) EXPECT_EQ(r, expected);
}

}  // namespace
}  // namespace xlite
