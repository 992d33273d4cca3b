// The cost model (hlo/analysis/cost_model.h) on small parsed modules: each
// rule of the model once, with the numbers worked out by hand.

#include "hlo/analysis/cost_model.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "hlo/text/parser.h"

namespace xlite {
namespace {

// Parses `text` and returns the cost of the instruction called `name` in
// its entry computation.
HloCost CostOfNamed(const std::string& text, const std::string& name,
                    bool in_place = true) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return {};
  const HloInstruction* hlo =
      (*module)->entry_computation()->GetInstructionWithName(name);
  EXPECT_NE(hlo, nullptr) << name;
  if (hlo == nullptr) return {};
  return CostOf(*hlo, in_place);
}

TEST(CostModelTest, DotIsTwoMnkPerBatch) {
  const HloCost c = CostOfNamed(R"(
HloModule m
ENTRY e {
  a = f32[2,4,8] parameter(0)
  b = f32[2,8,16] parameter(1)
  ROOT d = f32[2,4,16] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0},
      lhs_contracting_dims={2}, rhs_contracting_dims={1}
})",
                                "d");
  EXPECT_EQ(c.flops, 2 * 2 * 4 * 16 * 8);
  EXPECT_EQ(c.bytes_read, (2 * 4 * 8 + 2 * 8 * 16) * 4);
  EXPECT_EQ(c.bytes_written, 2 * 4 * 16 * 4);
}

TEST(CostModelTest, ElementwiseFusionSumsItsOps) {
  const HloCost c = CostOfNamed(R"(
HloModule m
f {
  x = f32[16] parameter(0)
  y = f32[16] parameter(1)
  m = f32[16] multiply(x, y)
  e = f32[16] exponential(x)
  ROOT s = f32[16] add(m, e)
}
ENTRY e {
  a = f32[16] parameter(0)
  b = f32[16] parameter(1)
  ROOT r = f32[16] fusion(a, b), kind=kLoop, calls=f
})",
                                "r");
  EXPECT_EQ(c.flops, 3 * 16);  // multiply, exponential (one), add
  EXPECT_EQ(c.bytes_read, 2 * 16 * 4);
  EXPECT_EQ(c.bytes_written, 16 * 4);
}

TEST(CostModelTest, ReduceCountsInputElements) {
  const HloCost c = CostOfNamed(R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[8,32] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[8] reduce(a, z), dimensions={1}, to_apply=add
})",
                                "r");
  EXPECT_EQ(c.flops, 8 * 32);
  EXPECT_EQ(c.bytes_read, 8 * 32 * 4 + 4);
  EXPECT_EQ(c.bytes_written, 8 * 4);
}

TEST(CostModelTest, ConvolutionIsTwoPerMacOfTheWindow) {
  const HloCost c = CostOfNamed(R"(
HloModule m
ENTRY e {
  x = f32[1,8,8,4] parameter(0)
  k = f32[3,3,2,16] parameter(1)
  ROOT c = f32[1,6,6,16] convolution(x, k), window={size=3x3},
      dim_labels=b01f_01io->b01f, feature_group_count=2
})",
                                "c");
  // 36 positions x 16 features, each 3x3 window x 2 features per group.
  EXPECT_EQ(c.flops, 2 * (6 * 6 * 16) * (3 * 3 * 2));
}

TEST(CostModelTest, InPlaceDynamicUpdateSliceMovesTheWindow) {
  const std::string text = R"(
HloModule m
ENTRY e {
  a = f32[100] parameter(0)
  u = f32[10] parameter(1)
  i = s32[] parameter(2)
  ROOT d = f32[100] dynamic-update-slice(a, u, i)
})";
  const HloCost in_place = CostOfNamed(text, "d");
  EXPECT_EQ(in_place.bytes_read, 10 * 4 + 4);
  EXPECT_EQ(in_place.bytes_written, 10 * 4);
  const HloCost copy = CostOfNamed(text, "d", /*in_place=*/false);
  EXPECT_EQ(copy.bytes_read, 100 * 4 + 10 * 4 + 4);
  EXPECT_EQ(copy.bytes_written, 100 * 4);
  EXPECT_EQ(copy.flops, 0);
}

TEST(CostModelTest, FusionReadsOnlyTheSlicesOfAParameter) {
  const HloCost c = CostOfNamed(R"(
HloModule m
f {
  x = f32[100] parameter(0)
  s = f32[10] slice(x), slice={[0:10]}
  ROOT n = f32[10] negate(s)
}
ENTRY e {
  a = f32[100] parameter(0)
  ROOT r = f32[10] fusion(a), kind=kLoop, calls=f
})",
                                "r");
  EXPECT_EQ(c.bytes_read, 10 * 4);
  EXPECT_EQ(c.bytes_written, 10 * 4);
  EXPECT_EQ(c.flops, 10);
}

TEST(CostModelTest, InPlaceUpdateFusionWritesTheUpdate) {
  const HloCost c = CostOfNamed(R"(
HloModule m
f {
  x = f32[100] parameter(0)
  u = f32[10] parameter(1)
  i = s32[] parameter(2)
  n = f32[10] negate(u)
  ROOT d = f32[100] dynamic-update-slice(x, n, i)
}
ENTRY e {
  a = f32[100] parameter(0)
  b = f32[10] parameter(1)
  j = s32[] parameter(2)
  ROOT r = f32[100] fusion(a, b, j), kind=kLoop, calls=f
})",
                                "r");
  EXPECT_EQ(c.bytes_read, 10 * 4 + 4);
  EXPECT_EQ(c.bytes_written, 10 * 4);
  EXPECT_EQ(c.flops, 10);
}

TEST(CostModelTest, ControlFlowAndAliasesCostNothing) {
  const std::string text = R"(
HloModule m
c {
  p = (s32[]) parameter(0)
  v = s32[] get-tuple-element(p), index=0
  k = s32[] constant(3)
  ROOT lt = pred[] compare(v, k), direction=LT
}
b {
  p = (s32[]) parameter(0)
  v = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  s = s32[] add(v, one)
  ROOT t = (s32[]) tuple(s)
}
ENTRY e {
  z = s32[] parameter(0)
  init = (s32[]) tuple(z)
  ROOT w = (s32[]) while(init), condition=c, body=b
})";
  for (const char* name : {"z", "init", "w"}) {
    const HloCost c = CostOfNamed(text, name);
    EXPECT_EQ(c.flops, 0) << name;
    EXPECT_EQ(c.bytes(), 0) << name;
  }
}

}  // namespace
}  // namespace xlite
