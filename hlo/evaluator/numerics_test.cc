// The evaluator's numerics against XLA:CPU (README "Numerics"): the order
// and precision of reductions, dots and convolutions in narrow floats, and
// bitcasts between layouts. Expected values were computed by XLA:CPU
// (jax/jaxlib 0.10.2) on the same data; the modules generate their data
// with iota so that no input files are needed.
#include <gtest/gtest.h>

#include <cmath>
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

// A max (min) reduce over -0 and +0 is +0 (-0) whatever the order, as
// the elementwise maximum (minimum) is: XLA:CPU, jax 0.10.2,
// jnp.max(jnp.array([-0., 0.])) and jnp.max(jnp.array([0., -0.])).
TEST(Numerics, MaxReduceOrdersSignedZeros) {
  for (const char* op : {"maximum", "minimum"}) {
    for (const char* data : {"{-0, 0}", "{0, -0}", "{-0, 0, -0}"}) {
      SCOPED_TRACE(std::string(op) + " " + data);
      const std::string n = std::string(data) == "{-0, 0, -0}" ? "3" : "2";
      const std::string init = std::string(op) == "maximum" ? "-inf" : "inf";
      const std::string hlo = absl::StrCat(
          "HloModule m\n", Reducer("f32", op), "ENTRY e {\n  x = f32[", n,
          "] constant(", data, ")\n  z = f32[] constant(", init,
          ")\n  ROOT s = f32[] reduce(x, z), dimensions={0}, to_apply=r\n}\n");
      absl::StatusOr<Literal> result = Evaluate(hlo, {});
      ASSERT_TRUE(result.ok()) << result.status();
      EXPECT_EQ(std::signbit(result->GetAsDouble(0)),
                std::string(op) == "minimum");
    }
  }
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

// Bits of every element of the module's result, as hex digits (4 per bf16
// element, 8 per f32 element).
std::string ResultBits(const std::string& hlo) {
  absl::StatusOr<Literal> result = Evaluate(hlo, {});
  EXPECT_TRUE(result.ok()) << result.status();
  if (!result.ok()) return "";
  const int digits =
      result->shape().element_type() == PrimitiveType::kF32 ? 8 : 4;
  std::string out;
  for (int64_t i = 0; i < result->element_count(); ++i) {
    absl::StrAppend(&out, absl::Hex(result->GetBits(i), absl::PadSpec(digits)));
  }
  return out;
}

// A scan-like reduce-window on data `x` of TYPE[SHAPE] (N elements) with
// window WINDOW, as jnp.cumsum (or lax.cumsum(reverse=True), lax.cummax)
// lowers it.
std::string ScanModule(const std::string& type, const std::string& shape,
                       int64_t n, int mul, int add, const std::string& op,
                       const std::string& window) {
  return absl::StrCat(
      "HloModule m\n", Reducer(type, op), "ENTRY e {\n",
      Data("x", type, shape, n, mul, add), "  z = ", type, "[] constant(",
      op == "maximum" ? "-inf" : "0", ")\n  ROOT s = ", type, "[", shape,
      "] reduce-window(x, z), window={", window, "}, to_apply=r\n}\n");
}

// XLA:CPU rewrites a cumulative sum longer than 16 into scans of 16-element
// blocks plus a scan of the block totals (itself blocked past 16 blocks),
// each step rounded to bf16; a running bf16 sum gives other values.
TEST(ReduceWindowScan, Bf16CumsumFollowsXlaBlocks) {
  EXPECT_EQ(ResultBits(ScanModule("bf16", "300", 300, 37, 11, "add",
                                  "size=300 pad=299_0")),
            std::string("bfb2c00dc01cc006bf963ea8bf3cbf9cbf90bee83f4cbf04bfa0bf"
                        "b4bf7c3c80bfc6c022"
                        "c03cc031c001bf30bff6c025c02ac00abf8ac024c05ec073c063c0"
                        "2ebfa8c01ec043c043"
                        "c01ebfa8c02ec063c073c05ec024bf8ac00ac02ac025bff6bf30c0"
                        "01c031c03cc022bfc6"
                        "3c80bf7cbfb4bfa0bf043f4cbee8bf90bf9cbf3c3ea8bf96c006c0"
                        "1cc00dbfb20000bf96"
                        "bfe2bfe4bf9cbda0bfc0c016c027c013bfb43d80bf84bfc6bfbebf"
                        "583ec0bf78bfdebff6"
                        "bfc4bf103f7cbd00bef0bea83ec83fd83ed8be88bec03dc03f92be"
                        "c0bfa8bfd6bfbabf28"
                        "3f38bef0bf8abf8ebf103f10bf60bfdec001bfdcbf583f1cbf00bf"
                        "84bf7cbeb83f58bf04"
                        "bfa6bfc0bf90be303fae3ea8be0000003f343ffe3f340000be003e"
                        "a83faebe30bf90bfc0"
                        "bfa6bf043f58beb8bf7cbf84bf003f1cbf58bfdcc001bfdebf603f"
                        "10bf10bf8ebf8abef0"
                        "3f38bf28bfbabfd6bfa8bec03f923dc0bec0be883ed83fd83ec8be"
                        "a8bef0bd003f7cbf10"
                        "bfc4bff6bfdebf783ec0bf58bfbebfc6bf843d80bfb4c013c027c0"
                        "16bfc0bda0bf9cbfe4"
                        "bfe2bf960000bfb2c00dc01cc006bf963ea8bf3cbf9cbf90bee83f"
                        "4cbf04bfa0bfb4bf7c"
                        "3c80bfc6c022c03cc031c001bf30bff6c025c02ac00abf8ac024c0"
                        "5ec073c063c02ebfa8"
                        "c01ec043c043c01ebfa8c02ec063c073c05ec024bf8ac00ac02ac0"
                        "25bff6bf30c001c031"
                        "c03cc022bfc63c80bf7cbfb4bfa0bf043f4cbee8bf90bf9cbf3c3e"
                        "a8bf96c006c01cc00d"
                        "bfb20000bf96bfe2bfe4bf9cbda0bfc0c016c027c013bfb43d80bf"
                        "84bfc6bfbebf583ec0"
                        "bf78bfdebff6bfc4bf103f7cbd00bef0bea83ec83fd83ed8"));
}

// Reverse scans (padding high) block the same way from the other end.
TEST(ReduceWindowScan, Bf16ReverseCumsumFollowsXlaBlocks) {
  EXPECT_EQ(ResultBits(ScanModule("bf16", "300", 300, 37, 11, "add",
                                  "size=300 pad=0_299")),
            std::string("3ed83fe84028403740213fcc3dc03f943fd23fc63f60bec03f703f"
                        "d63fea3fb43ed03ffc"
                        "403d4057404c401c3f8e40164040404540253fc0403f4079408740"
                        "7e40493fde4039405e"
                        "405e40393fde4049407e40874079403f3fc040254045404040163f"
                        "8e401c404c4057403d"
                        "3ffc3ed03fb43fea3fd63f70bec03f603fc63fd23f943dc03fcc40"
                        "21403740283fe83ed8"
                        "3fcc400c400d3fd23f003ff640314042402e3fea3eb83fba3ffc3f"
                        "f43fa23d403fb2400a"
                        "40163ffa3f7cbf103ee83f643f403d00bfa200003f303f4c3ea8bf"
                        "383f4c3fde40063ff0"
                        "3f8abe983f643fc03fc43f7cbe103fa6400a401c40093fa2be403f"
                        "6c3fba3fb43f48bed8"
                        "3f703fdc3ff63fc63f18bf703dc03f0c3ed8be90bfc8be903ed83f"
                        "0c3dc0bf703f183fc6"
                        "3ff63fdc3f70bed83f483fb43fba3f6cbe403fa24009401c400a3f"
                        "a6be103f7c3fc43fc0"
                        "3f64be983f8a3ff040063fde3f4cbf383ea83f4c3f300000bfa23d"
                        "003f403f643ee8bf10"
                        "3f7c3ffa4016400a3fb23d403fa23ff43ffc3fba3eb83fea402e40"
                        "4240313ff63f003fd2"
                        "400d400c3fcc3ed83fe84028403740213fcc3dc03f943fd23fc63f"
                        "60bec03f703fd63fea"
                        "3fb43ed03ffc403d4057404c401c3f8e40164040404540253fc040"
                        "3f40794087407e4049"
                        "3fde4039405e405e40393fde4049407e40874079403f3fc0402540"
                        "45404040163f8e401c"
                        "404c4057403d3ffc3ed03fb43fea3fd63f70bec03f603fc63fd23f"
                        "943dc03fcc40214037"
                        "40283fe83ed83fcc400c400d3fd23f003ff640314042402e3fea3e"
                        "b83fba3ffc3ff43fa2"
                        "3d403fb2400a40163ffa3f7cbf103ee83f643f403d00bfa2"));
}

// The scan dimension need not be the last one.
TEST(ReduceWindowScan, Bf16CumsumAlongAMajorDimension) {
  EXPECT_EQ(ResultBits(ScanModule("bf16", "300,2", 600, 37, 11, "add",
                                  "size=300x1 pad=299_0x0_0")),
            std::string("bfb2bf50bfd0bef0bf343f84bfe23f0cbfd63f9cbed8bdc0bf94be"
                        "80bf3c3f40c013be70"
                        "c02dbd80bffa3fa2c04c3f1cc0513f8ec00cbec0c046bf34c0363e"
                        "00bfb8bf84c001bf84"
                        "bfb83e00c036bf34c046bec0c00c3f8ec0513f1cc04c3fa2bffabd"
                        "80c02dbe70c0133f40"
                        "bf3cbe80bf94bdc0bed83f9cbfd63f0cbfe23f84bf34bef0bfd0bf"
                        "50bfb200000000bf96"
                        "bf18bf98bd00bd40bfbabf64bfdcbf14bf543f64bff63ec0bfee3f"
                        "82bf24bea8bfb4bf04"
                        "bf823ee83f08bf103dc0bed83f503f60bee83e40bf103f283ef8bf"
                        "5cbee8bf9cbe70bed8"
                        "3f92bfce3f08bfd23f8abf04beb8bfb0bf24bf8a3e703ec0bf60be"
                        "20bf543ef03ec0bf64"
                        "bed0bf8cbd00be103fc0bf963f86bf863fe03e703ef0bef03eb0bc"
                        "803fb0bfc63ed8bff6"
                        "3f20bf923ffec0163faec0193ff2bfa43ee0c00a3e10bff03f80be"
                        "e0be00bf7cbdc0bec0"
                        "3f8cbfe03e98bffc3f28bf84400bc0053fdabffc4019bf343f8cbf"
                        "b63f74bf7c3ffcc022"
                        "3f80c03b3f98c00a4022c0583ff2c05c401ac0163f70c04f3f20c0"
                        "3e3fbcbfc63ea8c007"
                        "3eb0bfc23fc2c03a3f34c0493f86c00e4023c0524004c04c402fbf"
                        "f83fb6c02b3fa2c010"
                        "4011c0743fa4c0873fbac05e4032c0964008c0984028c06c3f92c0"
                        "933f50c08b3fd2c03c"
                        "3ef8c0613ef8c03c3fd2c08b3f50c0933f92c06c4028c0984008c0"
                        "964032c05d3fbac086"
                        "3fa4c0734011c00f3fa2c02a3fb6bff6402fc04b4004c0514023c0"
                        "0d3f86c0483f34c039"
                        "3fc2bfc03eb0c0063ea8bfc43fbcc03d3f20c04e3f70c015401ac0"
                        "5b3ff2c0574022c009"
                        "3f98c03a3f80c0213ffcbf783f74bfb43f8cbf304019bffa3fdac0"
                        "04400bbf823f28bffa"
                        "3e98bfde3f8cbeb8bdc0bf78be00bed83f80bfee3e10c0093ee0bf"
                        "a23ff2c0183faec015"
                        "3ffebf903f20bff43ed8bfc43fb000003eb0bee83ef03e803fe0bf"
                        "843f86bf943fc0be00"
                        "bd00bf8abed0bf603ec03ef8bf54be10bf603ec83e70bf88bf24bf"
                        "aebeb8bf003f8abfd0"
                        "3f08bfcc3f92bed0be70bf9abee8bf583ef83f2cbf103e50bee83f"
                        "643f50bed03dc0bf0c"
                        "3f083ef0bf82bf00bfb4bea0bf243f84bfee3ec8bff63f68bf54bf"
                        "10bfdcbf60bfbabd00"
                        "bd00bf96bf18bf9400003c80bfb2bf4cbfd0bee8bf343f86bfe23f"
                        "10bfd63f9ebed8bda0"
                        "bf94be70bf3c3f44c013be60c02dbd40bffa3fa4c04c3f20c0513f"
                        "90c00cbeb8c046bf30"
                        "c0363e10bfb8bf82c001bf82bfb83e10c036bf30c046beb8c00c3f"
                        "90c0513f20c04c3fa4"
                        "bffabd40c02dbe60c0133f44bf3cbe70bf94bda0bed83f9ebfd63f"
                        "10bfe23f86bf34bee8"
                        "bfd0bf4cbfb23c800000bf94bf18bf96bd00bd00bfbabf60bfdcbf"
                        "10bf543f68bff63ec8"
                        "bfee3f84bf24bea0bfb4bf00bf823ef03f08bf0c3dc0bed03f503f"
                        "64bee83e50bf103f2c"
                        "3ef8bf58bee8bf9abe70bed03f92bfcc3f08bfd03f8abf00beb8bf"
                        "aebf24bf883e703ec8"
                        "bf60be10bf543ef83ec0bf60bed0bf8abd00be003fc0bf943f86bf"
                        "843fe03e803ef0bee8"
                        "3eb000003fb0bfc43ed8bff43f20bf903ffec0153faec0183ff2bf"
                        "a23ee0c0093e10bfee"
                        "3f80bed8be00bf78bdc0beb83f8cbfde3e98bffa3f28bf82400bc0"
                        "043fdabffa4019bf30"
                        "3f8cbfb43f74bf783ffcc0213f80c03a3f98c0094022c0573ff2c0"
                        "5b401ac0153f70c04e"
                        "3f20c03d3fbcbfc43ea8c006"));
}

// f32 follows the same order (a running sum is off by an ulp here and there).
TEST(ReduceWindowScan, F32CumsumFollowsXlaBlocks) {
  EXPECT_EQ(ResultBits(ScanModule("f32", "300", 300, 37, 11, "add",
                                  "size=300 pad=299_0")),
            std::string("bfb20000c00d0000c01c0000c0060000bf9600003ea80000bf3c00"
                        "00bf9c0000bf900000"
                        "bee800003f4c0000bf040000bfa00000bfb40000bf7c00003c8000"
                        "00bfc60000c0220000"
                        "c03c0000c0310000c0010000bf300000bff60000c0250000c02a00"
                        "00c00a0000bf8a0000"
                        "c0240000c05e0000c0730000c0630000c02e0000bfa80000c01e00"
                        "00c0430000c0430000"
                        "c01e0000bfa80000c02e0000c0630000c0730000c05e0000c02400"
                        "00bf8a0000c00a0000"
                        "c02a0000c0250000bff60000bf300000c0010000c0310000c03c00"
                        "00c0220000bfc60000"
                        "3c800000bf7c0000bfb40000bfa00000bf0400003f4c0000bee800"
                        "00bf900000bf9c0000"
                        "bf3c00003ea80000bf960000c0060000c01c0000c00d0000bfb200"
                        "0000000000bf960000"
                        "bfe20000bfe40000bf9c0000bda00000bfc00000c0160000c02700"
                        "00c0130000bfb40000"
                        "3d800000bf840000bfc60000bfbe0000bf5800003ec00000bf7800"
                        "00bfde0000bff60000"
                        "bfc40000bf1000003f7c0000bd000000bef00000bea800003ec800"
                        "003fd800003ed80000"
                        "be880000bec000003dc000003f920000bec00000bfa80000bfd600"
                        "00bfba0000bf280000"
                        "3f380000bef00000bf8a0000bf8e0000bf1000003f100000bf6000"
                        "00bfde0000c0010000"
                        "bfdc0000bf5800003f1c0000bf000000bf840000bf7c0000beb800"
                        "003f580000bf040000"
                        "bfa60000bfc00000bf900000be3000003fae00003ea80000be0000"
                        "00000000003f340000"
                        "3ffe00003f34000000000000be0000003ea800003fae0000be3000"
                        "00bf900000bfc00000"
                        "bfa60000bf0400003f580000beb80000bf7c0000bf840000bf0000"
                        "003f1c0000bf580000"
                        "bfdc0000c0010000bfde0000bf6000003f100000bf100000bf8e00"
                        "00bf8a0000bef00000"
                        "3f380000bf280000bfba0000bfd60000bfa80000bec000003f9200"
                        "003dc00000bec00000"
                        "be8800003ed800003fd800003ec80000bea80000bef00000bd0000"
                        "003f7c0000bf100000"
                        "bfc40000bff60000bfde0000bf7800003ec00000bf580000bfbe00"
                        "00bfc60000bf840000"
                        "3d800000bfb40000c0130000c0270000c0160000bfc00000bda000"
                        "00bf9c0000bfe40000"
                        "bfe20000bf96000000000000bfb20000c00d0000c01c0000c00600"
                        "00bf9600003ea80000"
                        "bf3c0000bf9c0000bf900000bee800003f4c0000bf040000bfa000"
                        "00bfb40000bf7c0000"
                        "3c800000bfc60000c0220000c03c0000c0310000c0010000bf3000"
                        "00bff60000c0250000"
                        "c02a0000c00a0000bf8a0000c0240000c05e0000c0730000c06300"
                        "00c02e0000bfa80000"
                        "c01e0000c0430000c0430000c01e0000bfa80000c02e0000c06300"
                        "00c0730000c05e0000"
                        "c0240000bf8a0000c00a0000c02a0000c0250000bff60000bf3000"
                        "00c0010000c0310000"
                        "c03c0000c0220000bfc600003c800000bf7c0000bfb40000bfa000"
                        "00bf0400003f4c0000"
                        "bee80000bf900000bf9c0000bf3c00003ea80000bf960000c00600"
                        "00c01c0000c00d0000"
                        "bfb2000000000000bf960000bfe20000bfe40000bf9c0000bda000"
                        "00bfc00000c0160000"
                        "c0270000c0130000bfb400003d800000bf840000bfc60000bfbe00"
                        "00bf5800003ec00000"
                        "bf780000bfde0000bff60000bfc40000bf1000003f7c0000bd0000"
                        "00bef00000bea80000"
                        "3ec800003fd800003ed80000"));
}

// Order-insensitive reducers give the same values either way.
TEST(ReduceWindowScan, Bf16CummaxMatchesXla) {
  EXPECT_EQ(ResultBits(ScanModule("bf16", "300", 300, 53, 7, "maximum",
                                  "size=300 pad=299_0")),
            std::string("bfbabf203e503f843f843f843f843f9a3f9a3f9a3f9a3fb03fb03f"
                        "b03fb03fc63fc63fc6"
                        "3fc63fc63fc63fc63fc63fc63fc63fc63fc63fc63fc63fc63fc63f"
                        "c63fc63fc63fc63fc6"
                        "3fc63fc63fc63fc63fc63fc63fc63fc63fc63fc63fc63fc63fc63f"
                        "c63fc63fc63fc63fc6"
                        "3fc63fc63fc63fc63fc63fc63fc63fc63fc63fc63fc63fc63fc63f"
                        "c63fc63fc63fc63fc6"
                        "3fc63fc63fc63fc63fc63fc63fc63fc63fc63fc63fc63fc63fc63f"
                        "c63fc63fc63fc63fc6"
                        "3fc63fc63fc63fc63fc63fc63fc63fc63fc63fc63fc63fc63fc63f"
                        "c63fc63fc63fc63fc6"
                        "3fc63fc63fc63fc63fc63fc63fc63fc63fc63fc63fc63fc63fc63f"
                        "c63fc63fc63fc63fc8"
                        "3fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83f"
                        "c83fc83fc83fc83fc8"
                        "3fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83f"
                        "c83fc83fc83fc83fc8"
                        "3fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83f"
                        "c83fc83fc83fc83fc8"
                        "3fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83f"
                        "c83fc83fc83fc83fc8"
                        "3fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83f"
                        "c83fc83fc83fc83fc8"
                        "3fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83f"
                        "c83fc83fc83fc83fc8"
                        "3fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83f"
                        "c83fc83fc83fc83fc8"
                        "3fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83f"
                        "c83fc83fc83fc83fc8"
                        "3fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83f"
                        "c83fc83fc83fc83fc8"
                        "3fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc83fc8"));
}

}  // namespace
}  // namespace xlite
