// The evaluator's numerics against XLA:CPU (README "Numerics"): the order
// and precision of reductions, dots and convolutions in narrow floats, and
// bitcasts between layouts. Expected values were computed by XLA:CPU
// (jax/jaxlib 0.10.2) on the same data; the modules generate their data
// with iota so that no input files are needed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "hlo/evaluator/test_util.h"

namespace xlite {
namespace {

using eval_test::Evaluate;

std::vector<double> Values(const std::string& hlo,
                           std::vector<std::string> args = {}) {
  absl::StatusOr<Literal> result = Evaluate(hlo, std::move(args));
  EXPECT_TRUE(result.ok()) << result.status();
  std::vector<double> out;
  if (!result.ok()) return out;
  for (int64_t i = 0; i < result->element_count(); ++i) {
    out.push_back(result->GetAsDouble(i));
  }
  return out;
}

// Instructions computing NAME = T[n] {((i * mul + add) mod 201 - 100) / 64}
// (exact in bf16 and f16), then reshaped to SHAPE.
std::string Data(const std::string& name, const std::string& type,
                 const std::string& shape, int64_t n, int mul, int add) {
  return absl::StrReplaceAll(
      R"(  NAME.i = s32[N] iota(), iota_dimension=0
  NAME.kmul = s32[] constant(MUL)
  NAME.kadd = s32[] constant(ADD)
  NAME.kmod = s32[] constant(201)
  NAME.koff = s32[] constant(100)
  NAME.kdiv = T[] constant(64)
  NAME.bmul = s32[N] broadcast(NAME.kmul), dimensions={}
  NAME.badd = s32[N] broadcast(NAME.kadd), dimensions={}
  NAME.bmod = s32[N] broadcast(NAME.kmod), dimensions={}
  NAME.boff = s32[N] broadcast(NAME.koff), dimensions={}
  NAME.bdiv = T[N] broadcast(NAME.kdiv), dimensions={}
  NAME.m = s32[N] multiply(NAME.i, NAME.bmul)
  NAME.a = s32[N] add(NAME.m, NAME.badd)
  NAME.r = s32[N] remainder(NAME.a, NAME.bmod)
  NAME.s = s32[N] subtract(NAME.r, NAME.boff)
  NAME.c = T[N] convert(NAME.s)
  NAME.d = T[N] divide(NAME.c, NAME.bdiv)
  NAME = T[SHAPE] reshape(NAME.d)
)",
      {{"NAME", name},
       {"T", type},
       {"SHAPE", shape},
       {"N", absl::StrCat(n)},
       {"MUL", absl::StrCat(mul)},
       {"ADD", absl::StrCat(add)}});
}

std::string Reducer(const std::string& type, const std::string& op) {
  return absl::StrCat("r {\n  a = ", type, "[] parameter(0)\n  b = ", type,
                      "[] parameter(1)\n  ROOT c = ", type, "[] ", op,
                      "(a, b)\n}\n");
}

// XLA:CPU sums a long bf16 reduce as a tree of 32-element runs, each step
// rounded to bf16. Summing in one running bf16 sum gives 1.140625 here.
TEST(Numerics, Bf16SumIsATreeOf32ElementRuns) {
  const std::string hlo = absl::StrCat(
      "HloModule m\n", Reducer("bf16", "add"), "ENTRY e {\n",
      Data("x", "bf16", "64,256", 64 * 256, 37, 11),
      "  z = bf16[] constant(0)\n"
      "  ROOT s = bf16[] reduce(x, z), dimensions={0,1}, to_apply=r\n}\n");
  EXPECT_EQ(Values(hlo), std::vector<double>{-14.625});
}

// The issue's case: a long bf16 sum of products. Exact: 645.33; one running
// bf16 sum drifts to 249; XLA:CPU's tree gives 636.
TEST(Numerics, Bf16SumOfProductsMatchesXla) {
  const std::string hlo = absl::StrCat(
      "HloModule m\n", Reducer("bf16", "add"), "ENTRY e {\n",
      Data("a", "bf16", "24480", 24480, 37, 11),
      Data("b", "bf16", "24480", 24480, 53, 5),
      "  p = bf16[24480] multiply(a, b)\n"
      "  z = bf16[] constant(0)\n"
      "  ROOT s = bf16[] reduce(p, z), dimensions={0}, to_apply=r\n}\n");
  EXPECT_EQ(Values(hlo), std::vector<double>{636.0});
}

// Several tree levels (1100 -> 35 -> 2 -> 1) with SAME padding, in f16,
// along the minor dimension only.
TEST(Numerics, F16RowSumsMatchXla) {
  const std::string hlo = absl::StrCat(
      "HloModule m\n", Reducer("f16", "add"), "ENTRY e {\n",
      Data("x", "f16", "7,1100", 7 * 1100, 37, 11),
      "  z = f16[] constant(0)\n"
      "  ROOT s = f16[7] reduce(x, z), dimensions={1}, to_apply=r\n}\n");
  EXPECT_EQ(Values(hlo),
            (std::vector<double>{-0.46875, 0.53125, -1.609375, 2.53125, -2.75,
                                 1.390625, -0.75}));
}

// Any reducer follows the same tree: a bf16 product over rows of 256.
TEST(Numerics, Bf16ProductFollowsTheSameTree) {
  const std::string hlo = absl::StrCat(
      "HloModule m\n", Reducer("bf16", "multiply"), "ENTRY e {\n",
      Data("x", "bf16", "64,256", 64 * 256, 37, 11),
      "  one = bf16[] constant(1)\n"
      "  c64 = bf16[] constant(64)\n"
      "  b64 = bf16[64,256] broadcast(c64), dimensions={}\n"
      "  b1 = bf16[64,256] broadcast(one), dimensions={}\n"
      "  k = bf16[64,256] divide(x, b64)\n"
      "  y = bf16[64,256] add(b1, k)\n"
      "  ROOT s = bf16[64] reduce(y, one), dimensions={1}, to_apply=r\n}\n");
  const std::vector<double> want = {
      0.88671875, 0.8828125,  0.90625,    0.875,      0.90625,    0.93359375,
      0.8984375,  0.90234375, 0.9140625,  0.87890625, 0.890625,   0.9140625,
      0.890625,   0.921875,   0.88671875, 0.90234375, 0.921875,   0.87890625,
      0.86328125, 0.9375,     0.890625,   0.8984375,  0.9140625,  0.8984375,
      0.921875,   0.859375,   0.890625,   0.9375,     0.875,      0.87890625,
      0.953125,   0.8984375,  0.90625,    0.875,      0.88671875, 0.92578125,
      0.8828125,  0.8984375,  0.9453125,  0.8984375,  0.87109375, 0.9140625,
      0.88671875, 0.90625,    0.890625,   0.8984375,  0.921875,   0.88671875,
      0.89453125, 0.91015625, 0.87890625, 0.90234375, 0.91015625, 0.890625,
      0.91015625, 0.91015625, 0.8984375,  0.90234375, 0.85546875, 0.93359375,
      0.90625,    0.890625,   0.90625,    0.921875};
  EXPECT_EQ(Values(hlo), want);
}

// XLA:CPU rewrites only reduces outside fusions: inside one, the sum runs
// in order (here the running sum happens to be exact).
TEST(Numerics, ReduceInsideAFusionRunsInOrder) {
  const std::string hlo = absl::StrCat(
      "HloModule m\n", Reducer("bf16", "add"),
      "f {\n  p = bf16[64,256] parameter(0)\n  z = bf16[] constant(0)\n"
      "  ROOT s = bf16[] reduce(p, z), dimensions={0,1}, to_apply=r\n}\n",
      "ENTRY e {\n", Data("x", "bf16", "64,256", 64 * 256, 37, 11),
      "  ROOT s = bf16[] fusion(x), kind=kLoop, calls=f\n}\n");
  EXPECT_EQ(Values(hlo), std::vector<double>{1.140625});
}

// The result as text, or the error.
constexpr auto& Text = eval_test::Eval;

// XLA's fused transpose-by-bitcast (GpuKernelTilingTest): the bytes stay,
// the layout changes, so the logical result is the transpose.
TEST(Bitcast, LayoutChangeInsideAFusionTransposes) {
  const std::string hlo = R"(HloModule m
f {
  p = f32[3,3]{1,0} parameter(0)
  ROOT b = f32[3,3]{0,1} bitcast(p)
}
ENTRY e {
  p = f32[3,3]{1,0} parameter(0)
  ROOT r = f32[3,3]{0,1} fusion(p), kind=kLoop, calls=f
})";
  EXPECT_EQ(Text(hlo, {"f32[3,3] {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}"}),
            "f32[3,3] { { 1, 4, 7 }, { 2, 5, 8 }, { 3, 6, 9 } }");
}

// The operand's declared layout decides, not the layout its value happened
// to be computed with (a tuple element here).
TEST(Bitcast, UsesTheOperandsDeclaredLayout) {
  const std::string hlo = R"(HloModule m
ENTRY e {
  p = f32[2,3]{1,0} parameter(0)
  t = (f32[2,3]{0,1}) tuple(p)
  g = f32[2,3]{0,1} get-tuple-element(t), index=0
  ROOT b = f32[6]{0} bitcast(g)
})";
  EXPECT_EQ(Text(hlo, {"f32[2,3] {{1, 2, 3}, {4, 5, 6}}"}),
            "f32[6] {1, 4, 2, 5, 3, 6}");
}

TEST(Bitcast, RankChangesFollowPhysicalOrder) {
  EXPECT_EQ(Text(R"(HloModule m
ENTRY e {
  p = f32[2,3]{0,1} parameter(0)
  ROOT b = f32[6]{0} bitcast(p)
})",
                 {"f32[2,3] {{1, 2, 3}, {4, 5, 6}}"}),
            "f32[6] {1, 4, 2, 5, 3, 6}");
  EXPECT_EQ(Text(R"(HloModule m
ENTRY e {
  p = f32[6]{0} parameter(0)
  ROOT b = f32[3,2]{0,1} bitcast(p)
})",
                 {"f32[6] {1, 2, 3, 4, 5, 6}"}),
            "f32[3,2] { { 1, 4 }, { 2, 5 }, { 3, 6 } }");
  // [2,2,2] stored minor-to-major {0,2,1}: physical order runs d0, then d2,
  // then d1.
  EXPECT_EQ(Text(R"(HloModule m
ENTRY e {
  p = s32[2,2,2]{0,2,1} parameter(0)
  ROOT b = s32[8]{0} bitcast(p)
})",
                 {"s32[2,2,2] {{{0, 1}, {2, 3}}, {{4, 5}, {6, 7}}}"}),
            "s32[8] {0, 4, 1, 5, 2, 6, 3, 7}");
}

TEST(Bitcast, SubByteTypesMoveWithTheLayout) {
  EXPECT_EQ(Text(R"(HloModule m
ENTRY e {
  p = s4[2,3]{0,1} parameter(0)
  ROOT b = s4[3,2]{1,0} bitcast(p)
})",
                 {"s4[2,3] {{1, 2, 3}, {4, 5, 6}}"}),
            "s4[3,2] { { 1, 4 }, { 2, 5 }, { 3, 6 } }");
}

// dot(f32, f32) -> bf16 multiplies the f32 values and rounds once (XLA:CPU's
// result caster); rounding the operands to bf16 first gives 1.
TEST(Numerics, NarrowDotResultOfWideOperandsRoundsOnce) {
  const std::string hlo = R"(HloModule m
ENTRY e {
  a = f32[1,2] parameter(0)
  b = f32[2,1] parameter(1)
  ROOT d = bf16[1,1] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";
  EXPECT_EQ(Values(hlo, {"f32[1,2] {{1.00390625, 1}}",
                         "f32[2,1] {{1}, {0.00390625}}"}),
            std::vector<double>{1.0078125});
}

}  // namespace
}  // namespace xlite
