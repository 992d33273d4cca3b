// Evaluation of forms XLA accepts that xlite once rejected: combined
// (multi-operand) collective-permute, the single-operand tuple all-to-all,
// after-all of non-token operands, a fusion given more operands than it has
// parameters.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/evaluator/test_util.h"

namespace xlite {
namespace {

using eval_test::RunOnReplicas;

TEST(XlaForms, CombinedCollectivePermute) {
  // Both operands travel together: replica 0 sends to 1 and 1 to 2; replica
  // 0 is nobody's target and receives zeros. Four operands are still the
  // combined form: only slice_sizes makes the in-place one.
  const std::string hlo = R"(HloModule m, replica_count=3
ENTRY e {
  p = f32[2] parameter(0)
  q = s32[] parameter(1)
  c = (f32[2], s32[]) collective-permute(p, q), source_target_pairs={{0,1},{1,2}}
  c4 = (f32[2], s32[], f32[2], s32[]) collective-permute(p, q, p, q), source_target_pairs={{2,0}}
  ROOT t = ((f32[2], s32[]), (f32[2], s32[], f32[2], s32[])) tuple(c, c4)
})";
  std::vector<std::vector<std::string>> args;
  for (int d = 0; d < 3; ++d) {
    args.push_back({absl::StrCat("f32[2] {", d, ", ", d + 0.5, "}"),
                    absl::StrCat("s32[] ", 10 * d)});
  }
  const std::vector<std::string> results = RunOnReplicas(hlo, 3, args);
  ASSERT_EQ(results.size(), 3u) << results[0];
  EXPECT_EQ(results[0],
            "((f32[2] {0, 0}, s32[] 0), "
            "(f32[2] {2, 2.5}, s32[] 20, f32[2] {2, 2.5}, s32[] 20))");
  EXPECT_EQ(results[1],
            "((f32[2] {0, 0.5}, s32[] 0), "
            "(f32[2] {0, 0}, s32[] 0, f32[2] {0, 0}, s32[] 0))");
  EXPECT_EQ(results[2],
            "((f32[2] {1, 1.5}, s32[] 10), "
            "(f32[2] {0, 0}, s32[] 0, f32[2] {0, 0}, s32[] 0))");
}

TEST(XlaForms, CombinedCollectivePermuteStartDone) {
  const std::string hlo = R"(HloModule m, replica_count=2
ENTRY e {
  p = f32[2] parameter(0)
  q = s32[] parameter(1)
  s = ((f32[2], s32[]), (f32[2], s32[])) collective-permute-start(p, q), source_target_pairs={{0,1},{1,0}}
  ROOT d = (f32[2], s32[]) collective-permute-done(s)
})";
  const std::vector<std::string> results = RunOnReplicas(
      hlo, 2, {{"f32[2] {1, 2}", "s32[] 3"}, {"f32[2] {4, 5}", "s32[] 6"}});
  ASSERT_EQ(results.size(), 2u) << results[0];
  EXPECT_EQ(results[0], "(f32[2] {4, 5}, s32[] 6)");
  EXPECT_EQ(results[1], "(f32[2] {1, 2}, s32[] 3)");
}

TEST(XlaForms, SingleOperandTupleAllToAll) {
  // Alone in its group, the device sends its one operand to itself.
  const std::string hlo = R"(HloModule m, replica_count=2
ENTRY e {
  p = f32[2] parameter(0)
  ROOT a = (f32[2]) all-to-all(p), replica_groups={{0},{1}}
})";
  const std::vector<std::string> results =
      RunOnReplicas(hlo, 2, {{"f32[2] {1, 2}"}, {"f32[2] {3, 4}"}});
  ASSERT_EQ(results.size(), 2u) << results[0];
  EXPECT_EQ(results[0], "(f32[2] {1, 2})");
  EXPECT_EQ(results[1], "(f32[2] {3, 4})");
}

TEST(XlaForms, AfterAllOfValuesAndFusionWithExtraOperands) {
  const std::string hlo = R"(HloModule m
fused {
  a = f32[2] parameter(0)
  ROOT n = f32[2] negate(a)
}
ENTRY e {
  p = f32[2] parameter(0)
  q = s32[] parameter(1)
  t = token[] after-all(p, q)
  f = f32[2] fusion(p, q), kind=kLoop, calls=fused
  ROOT r = (f32[2], token[]) tuple(f, t)
})";
  const std::vector<std::string> results =
      RunOnReplicas(hlo, 1, {{"f32[2] {1, -2}", "s32[] 7"}});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0], "(f32[2] {-1, 2}, token[] )");
}

}  // namespace
}  // namespace xlite
