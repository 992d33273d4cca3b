// Evaluator unit tests by opcode family, with the edge cases XLA defines:
// integer division by zero, shifts past the width, NaN in min/max and in
// sort (total order), clamped gather/dynamic-slice starts, dropped
// out-of-bounds scatter windows, negative padding, empty shapes,
// conditionals out of range, collectives on several devices and deadlocks.
#include "hlo/evaluator/evaluator.h"

#include <gtest/gtest.h>

#include <string>

#include "hlo/evaluator/test_util.h"
#include "hlo/text/parser.h"

namespace xlite {
namespace {

using eval_test::Eval;

std::string Unary(const std::string& op, const std::string& type,
                  const std::string& value) {
  return Eval(
      absl::StrCat("HloModule m\nENTRY e {\n  p = ", type,
                   " parameter(0)\n  ROOT r = ", type, " ", op, "(p)\n}\n"),
      {absl::StrCat(type, " ", value)});
}

std::string Binary(const std::string& op, const std::string& type,
                   const std::string& a, const std::string& b,
                   const std::string& result_type = "") {
  const std::string out = result_type.empty() ? type : result_type;
  return Eval(
      absl::StrCat("HloModule m\nENTRY e {\n  a = ", type,
                   " parameter(0)\n  b = ", type,
                   " parameter(1)\n  ROOT r = ", out, " ", op, "(a, b)\n}\n"),
      {absl::StrCat(type, " ", a), absl::StrCat(type, " ", b)});
}

TEST(Elementwise, IntegerDivisionFollowsXla) {
  EXPECT_EQ(
      Binary("divide", "s32[4]", "{7, -7, 5, -2147483648}", "{2, 2, 0, -1}"),
      "s32[4] {3, -3, -1, -2147483648}");
  EXPECT_EQ(
      Binary("remainder", "s32[4]", "{7, -7, 5, -2147483648}", "{2, 2, 0, -1}"),
      "s32[4] {1, -1, 5, 0}");
  EXPECT_EQ(Binary("divide", "u8[2]", "{7, 9}", "{0, 2}"), "u8[2] {255, 4}");
}

TEST(Elementwise, ShiftsPastTheWidth) {
  EXPECT_EQ(Binary("shift-left", "s32[3]", "{1, 1, 1}", "{3, 32, -1}"),
            "s32[3] {8, 0, 0}");
  EXPECT_EQ(
      Binary("shift-right-arithmetic", "s8[3]", "{-16, -16, 16}", "{2, 9, 9}"),
      "s8[3] {-4, -1, 0}");
  // XLA copies the top bit of an unsigned value too (jax's
  // lax.shift_right_arithmetic on uint8 on XLA:CPU).
  EXPECT_EQ(Binary("shift-right-arithmetic", "u8[4]", "{255, 128, 127, 200}",
                   "{1, 7, 1, 9}"),
            "u8[4] {255, 255, 63, 255}");
  EXPECT_EQ(Binary("shift-right-logical", "s8[2]", "{-16, -16}", "{2, 8}"),
            "s8[2] {60, 0}");
  EXPECT_EQ(Binary("shift-left", "s4[2]", "{1, 3}", "{3, 2}"),
            "s4[2] {-8, -4}");
}

TEST(Elementwise, WrapAroundAndBits) {
  EXPECT_EQ(Binary("add", "s8[2]", "{127, -128}", "{1, -1}"),
            "s8[2] {-128, 127}");
  EXPECT_EQ(Binary("multiply", "u4[2]", "{5, 15}", "{4, 15}"), "u4[2] {4, 1}");
  EXPECT_EQ(Unary("popcnt", "u16[2]", "{65535, 5}"), "u16[2] {16, 2}");
  EXPECT_EQ(Unary("count-leading-zeros", "s32[3]", "{0, 1, -1}"),
            "s32[3] {32, 31, 0}");
  EXPECT_EQ(Unary("count-leading-zeros", "u4[2]", "{1, 8}"), "u4[2] {3, 0}");
  EXPECT_EQ(Unary("negate", "s32[1]", "{-2147483648}"), "s32[1] {-2147483648}");
  EXPECT_EQ(Binary("power", "s32[4]", "{2, 2, -1, 3}", "{10, -1, -3, 0}"),
            "s32[4] {1024, 0, -1, 1}");
  EXPECT_EQ(Binary("mulhi", "u32[1]", "{4294967295}", "{4294967295}"),
            "u32[1] {4294967294}");
}

TEST(Elementwise, FloatsAndNaN) {
  EXPECT_EQ(Binary("maximum", "f32[3]", "{1, nan, -0}", "{nan, 2, 0}"),
            "f32[3] {nan, nan, 0}");
  EXPECT_EQ(Binary("minimum", "f32[2]", "{-0, 3}", "{0, -inf}"),
            "f32[2] {-0, -inf}");
  EXPECT_EQ(Unary("round-nearest-even", "f32[4]", "{0.5, 1.5, 2.5, -0.5}"),
            "f32[4] {0, 2, 2, -0}");
  EXPECT_EQ(Unary("round-nearest-afz", "f32[3]", "{0.5, 1.5, -2.5}"),
            "f32[3] {1, 2, -3}");
  EXPECT_EQ(Eval(R"(HloModule m
ENTRY e {
  p = f32[3] parameter(0)
  ROOT r = pred[3] is-finite(p)
})",
                 {"f32[3] {1, inf, nan}"}),
            "pred[3] {1, 0, 0}");
  EXPECT_EQ(Unary("sign", "f32[3]", "{-3, -0, nan}"), "f32[3] {-1, -0, nan}");
  // bf16 rounds every operation.
  EXPECT_EQ(Binary("add", "bf16[1]", "{1}", "{0.001}"), "bf16[1] {1}");
  EXPECT_EQ(Unary("acos", "f32[1]", "{1}"), "f32[1] {0}");
  EXPECT_EQ(Unary("cosh", "f64[1]", "{0}"), "f64[1] {1}");
}

TEST(Elementwise, CompareTotalOrder) {
  const std::string m = R"(HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  ROOT r = pred[4] compare(a, b), direction=LT, type=TOTALORDER
})";
  EXPECT_EQ(
      Eval(m, {"f32[4] {-0, -nan, 1, inf}", "f32[4] {0, -inf, nan, nan}"}),
      "pred[4] {1, 1, 1, 1}");
}

TEST(Convert, SaturatesAndRounds) {
  const std::string m = R"(HloModule m
ENTRY e {
  p = f32[5] parameter(0)
  ROOT r = s8[5] convert(p)
})";
  EXPECT_EQ(Eval(m, {"f32[5] {1e10, -1e10, nan, -3.9, 2.9}"}),
            "s8[5] {127, -128, 0, -3, 2}");
  const std::string narrow = R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  ROOT r = f8e4m3fn[4] convert(p)
})";
  EXPECT_EQ(Eval(narrow, {"f32[4] {1000, 0.1, -448, nan}"}),
            "f8e4m3fn[4] {nan, 0.102, -448, nan}");
}

// XLA:CPU computes the f8 types (f8e8m0fnu aside) and f4e2m1fn in f16: an
// operation's result rounds to f16 and then to the type. sqrt(0.96875) is
// 0.98425..., which f16 rounds to 0.984375, the f8e3m4 tie between 0.96875
// and 1 that goes to the even 1 (rounded once it would be 0.96875). A
// convert rounds once.
TEST(Elementwise, F8ComputesInF16) {
  const std::string m = R"(HloModule m
ENTRY e {
  p = f8e3m4[1] parameter(0)
  ROOT r = f8e3m4[1] sqrt(p)
})";
  EXPECT_EQ(Eval(m, {"f8e3m4[1] {0.96875}"}), "f8e3m4[1] {1}");
  const std::string convert = R"(HloModule m
ENTRY e {
  p = f32[1] parameter(0)
  ROOT r = f8e3m4[1] convert(p)
})";
  EXPECT_EQ(Eval(convert, {"f32[1] {0.984250009}"}), "f8e3m4[1] {0.969}");
}

// As XLA:CPU converts from f64: f16 (and bf16) through f32, so
// -12.84765668 is -12.84375 (rounded once it is -12.8515625); the f8 types
// once, directly, so -431.99999178 is -416 (through f32 it would be the
// tie -432 and go to the even -448).
TEST(Convert, F64ToNarrowAsXlaCpu) {
  const std::string half = R"(HloModule m
ENTRY e {
  p = f64[1] parameter(0)
  ROOT r = f16[1] convert(p)
})";
  EXPECT_EQ(Eval(half, {"f64[1] {-12.84765668}"}), "f16[1] {-12.844}");
  const std::string f8 = R"(HloModule m
ENTRY e {
  p = f64[1] parameter(0)
  ROOT r = f8e4m3fn[1] convert(p)
})";
  EXPECT_EQ(Eval(f8, {"f64[1] {-431.99999178020505}"}), "f8e4m3fn[1] {-416}");
}

TEST(Convert, BitcastConvertAndReducePrecision) {
  const std::string m = R"(HloModule m
ENTRY e {
  p = f32[2] parameter(0)
  ROOT r = u16[2,2] bitcast-convert(p)
})";
  EXPECT_EQ(Eval(m, {"f32[2] {1, -2}"}),
            "u16[2,2] { { 0, 16256 }, { 0, 49152 } }");
  const std::string rp = R"(HloModule m
ENTRY e {
  p = f32[3] parameter(0)
  ROOT r = f32[3] reduce-precision(p), exponent_bits=5, mantissa_bits=2
})";
  EXPECT_EQ(Eval(rp, {"f32[3] {1.3, 100000, 1e-10}"}), "f32[3] {1.25, inf, 0}");
}

// As XLA:CPU computes it: a NaN stays NaN with no mantissa bits left, and
// f16 reduces on its own bits (a subnormal rounds at its fixed position;
// exponent_bits >= 5 keeps f16's range).
TEST(Convert, ReducePrecisionNanAndHalfBits) {
  const std::string nan = R"(HloModule m
ENTRY e {
  p = f32[2] parameter(0)
  ROOT r = f32[2] reduce-precision(p), exponent_bits=8, mantissa_bits=0
})";
  EXPECT_EQ(Eval(nan, {"f32[2] {nan, 3}"}), "f32[2] {nan, 2}");
  const std::string wide = R"(HloModule m
ENTRY e {
  p = f16[3] parameter(0)
  ROOT r = f16[3] reduce-precision(p), exponent_bits=8, mantissa_bits=7
})";
  // 4 * 2^-24 rounds away on its low three bits; 2^-14 is normal and stays.
  EXPECT_EQ(Eval(wide, {"f16[3] {2.38418579e-07, 6.10351562e-05, 1}"}),
            "f16[3] {0, 6.1035e-05, 1}");
  const std::string same = R"(HloModule m
ENTRY e {
  p = f16[1] parameter(0)
  ROOT r = f16[1] reduce-precision(p), exponent_bits=5, mantissa_bits=2
})";
  // 2^-15 is an f16 subnormal: f16's exponent is not reduced, so it stays.
  EXPECT_EQ(Eval(same, {"f16[1] {-3.05175781e-05}"}), "f16[1] {-3.0518e-05}");
}

TEST(DataMovement, SlicesPadsAndEmpty) {
  const std::string ds = R"(HloModule m
ENTRY e {
  p = s32[5] parameter(0)
  i = s32[] parameter(1)
  ROOT r = s32[2] dynamic-slice(p, i), dynamic_slice_sizes={2}
})";
  EXPECT_EQ(Eval(ds, {"s32[5] {0, 1, 2, 3, 4}", "s32[] 9"}), "s32[2] {3, 4}");
  EXPECT_EQ(Eval(ds, {"s32[5] {0, 1, 2, 3, 4}", "s32[] -3"}), "s32[2] {0, 1}");
  // A u64 start past INT64_MAX is a large start (XLA compares unsigned).
  const std::string ds64 = R"(HloModule m
ENTRY e {
  p = s32[5] parameter(0)
  i = u64[] parameter(1)
  ROOT r = s32[2] dynamic-slice(p, i), dynamic_slice_sizes={2}
})";
  EXPECT_EQ(
      Eval(ds64, {"s32[5] {0, 1, 2, 3, 4}", "u64[] 18446744073709551615"}),
      "s32[2] {3, 4}");
  const std::string pad = R"(HloModule m
ENTRY e {
  p = s32[4] parameter(0)
  z = s32[] constant(9)
  ROOT r = s32[6] pad(p, z), padding=-1_0_1
})";
  EXPECT_EQ(Eval(pad, {"s32[4] {1, 2, 3, 4}"}), "s32[6] {9, 2, 9, 3, 9, 4}");
  const std::string empty = R"(HloModule m
ENTRY e {
  p = f32[0,3] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[3] reduce(p, z), dimensions={0}, to_apply=add
}
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
})";
  EXPECT_EQ(Eval(empty, {"f32[0,3] {}"}), "f32[3] {0, 0, 0}");
  const std::string transpose = R"(HloModule m
ENTRY e {
  p = s32[2,3] parameter(0)
  ROOT r = s32[3,2] transpose(p), dimensions={1,0}
})";
  EXPECT_EQ(Eval(transpose, {"s32[2,3] {{1, 2, 3}, {4, 5, 6}}"}),
            "s32[3,2] { { 1, 4 }, { 2, 5 }, { 3, 6 } }");
  // A bitcast reinterprets the physical (layout) order.
  const std::string bitcast = R"(HloModule m
ENTRY e {
  p = s32[2,3]{0,1} parameter(0)
  ROOT r = s32[3,2]{1,0} bitcast(p)
})";
  EXPECT_EQ(Eval(bitcast, {"s32[2,3] {{1, 2, 3}, {4, 5, 6}}"}),
            "s32[3,2] { { 1, 4 }, { 2, 5 }, { 3, 6 } }");
}

TEST(GatherScatter, ClampsAndDrops) {
  const std::string gather = R"(HloModule m
ENTRY e {
  p = s32[5] parameter(0)
  i = s32[3,1] parameter(1)
  ROOT r = s32[3,2] gather(p, i), offset_dims={1}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, slice_sizes={2}
})";
  EXPECT_EQ(
      Eval(gather, {"s32[5] {0, 1, 2, 3, 4}", "s32[3,1] {{0}, {4}, {-7}}"}),
      "s32[3,2] { { 0, 1 }, { 3, 4 }, { 0, 1 } }");
  const std::string scatter = R"(HloModule m
add {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT s = s32[] add(x, y)
}
ENTRY e {
  p = s32[4] parameter(0)
  i = s32[3] parameter(1)
  u = s32[3] parameter(2)
  ROOT r = s32[4] scatter(p, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})";
  EXPECT_EQ(Eval(scatter, {"s32[4] {0, 0, 0, 0}", "s32[3] {1, 1, 9}",
                           "s32[3] {5, 6, 7}"}),
            "s32[4] {0, 11, 0, 0}");
}

TEST(Sort, TotalOrderPutsNaNLast) {
  const std::string m = R"(HloModule m
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT, type=TOTALORDER
}
ENTRY e {
  p = f32[5] parameter(0)
  ROOT r = f32[5] sort(p), dimensions={0}, is_stable=true, to_apply=less
})";
  EXPECT_EQ(Eval(m, {"f32[5] {nan, 1, -inf, -0, 0}"}),
            "f32[5] {-inf, -0, 0, 1, nan}");
  const std::string topk = R"(HloModule m
ENTRY e {
  p = f32[5] parameter(0)
  ROOT r = (f32[2], s32[2]) topk(p), k=2, largest=true
})";
  EXPECT_EQ(Eval(topk, {"f32[5] {3, 7, 7, 1, 0}"}),
            "(f32[2] {7, 7}, s32[2] {1, 2})");
}

TEST(ControlFlow, ConditionalIndexOutOfRangeRunsLast) {
  const std::string m = R"(HloModule m
b0 {
  x = f32[] parameter(0)
  ROOT r = f32[] negate(x)
}
b1 {
  x = f32[] parameter(0)
  ROOT r = f32[] add(x, x)
}
ENTRY e {
  i = s32[] parameter(0)
  x = f32[] parameter(1)
  ROOT c = f32[] conditional(i, x, x), branch_computations={b0, b1}
})";
  EXPECT_EQ(Eval(m, {"s32[] 0", "f32[] 3"}), "f32[] -3");
  EXPECT_EQ(Eval(m, {"s32[] 7", "f32[] 3"}), "f32[] 6");
  EXPECT_EQ(Eval(m, {"s32[] -1", "f32[] 3"}), "f32[] 6");
}

TEST(ControlFlow, WhileAndOptBarrier) {
  const std::string m = R"(HloModule m
cond {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  a = s32[] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  b = s32[] multiply(a, j)
  ROOT t = (s32[], s32[]) tuple(j, b)
}
ENTRY e {
  zero = s32[] constant(0)
  one = s32[] constant(1)
  init = (s32[], s32[]) tuple(zero, one)
  w = (s32[], s32[]) while(init), condition=cond, body=body
  ROOT o = (s32[], s32[]) opt-barrier(w)
})";
  EXPECT_EQ(Eval(m), "(s32[] 5, s32[] 120)");
}

TEST(DotConv, DotWithBatchAndPreferredType) {
  const std::string m = R"(HloModule m
ENTRY e {
  a = s8[2,2,3] parameter(0)
  b = s8[2,3] parameter(1)
  ROOT d = s32[2,2] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
})";
  EXPECT_EQ(
      Eval(m,
           {"s8[2,2,3] {{{1, 2, 3}, {4, 5, 6}}, {{100, 100, 100}, {-1, 0, 1}}}",
            "s8[2,3] {{1, 1, 1}, {2, 2, 2}}"}),
      "s32[2,2] { { 6, 15 }, { 600, 0 } }");
  const std::string conv = R"(HloModule m
ENTRY e {
  x = f32[1,4,2] parameter(0)
  k = f32[2,1,4] parameter(1)
  ROOT c = f32[1,3,4] convolution(x, k), window={size=2}, dim_labels=b0f_0io->b0f, feature_group_count=2
})";
  EXPECT_EQ(Eval(conv, {"f32[1,4,2] {{{1, 10}, {2, 20}, {3, 30}, {4, 40}}}",
                        "f32[2,1,4] {{{1, 1, 0, 0}}, {{1, 0, 1, 1}}}"}),
            "f32[1,3,4] { { { 3, 1, 20, 20 }, { 5, 2, 30, 30 }, { 7, 3, "
            "40, 40 } } }");
}

TEST(DotConv, RaggedDotMatchesJax) {
  // Reference: jax.lax.ragged_dot on XLA:CPU with the same operands.
  const std::string m = R"(HloModule m
ENTRY e {
  a = f32[4,3] parameter(0)
  b = f32[3,3,2] parameter(1)
  g = s32[3] parameter(2)
  ROOT d = f32[4,2] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})";
  const std::string a =
      "f32[4,3] {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}}";
  const std::string b =
      "f32[3,3,2] {{{0, 1}, {2, 3}, {4, 5}}, {{6, 7}, {8, 9}, {10, 11}}, "
      "{{12, 13}, {14, 15}, {16, 17}}}";
  EXPECT_EQ(
      Eval(m, {a, b, "s32[3] {1, 2, 1}"}),
      "f32[4,2] { { 10, 13 }, { 100, 112 }, { 172, 193 }, { 424, 454 } }");
  // Rows past the groups are zero.
  EXPECT_EQ(Eval(m, {a, b, "s32[3] {1, 2, 0}"}),
            "f32[4,2] { { 10, 13 }, { 100, 112 }, { 172, 193 }, { 0, 0 } }");
}

TEST(DotConv, ScaledDotAppliesBlockScales) {
  const std::string m = R"(HloModule m
ENTRY e {
  a = f8e4m3fn[1,4] parameter(0)
  b = f8e4m3fn[1,4] parameter(1)
  as = f8e8m0fnu[1,2] parameter(2)
  bs = f8e8m0fnu[1,1] parameter(3)
  ROOT d = f32[1,1] scaled-dot(a, b, as, bs), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})";
  // XLA's operand order: (lhs, rhs, lhs_scale, rhs_scale).
  // (1*2 + 2*2 + 3*0.5 + 4*0.5) * 4 = 9.5 * 4 = 38.
  EXPECT_EQ(
      Eval(m, {"f8e4m3fn[1,4] {{1, 2, 3, 4}}", "f8e4m3fn[1,4] {{1, 1, 1, 1}}",
               "f8e8m0fnu[1,2] {{2, 0.5}}", "f8e8m0fnu[1,1] {{4}}"}),
      "f32[1,1] { {38} }");
}

TEST(Scan, CumulativeSumWithCarry) {
  const std::string m = R"(HloModule m
step {
  x = f32[2] parameter(0)
  c = f32[2] parameter(1)
  s = f32[2] add(x, c)
  ROOT t = (f32[2], f32[2]) tuple(s, s)
}
ENTRY e {
  xs = f32[3,2] parameter(0)
  init = f32[2] parameter(1)
  ROOT r = (f32[3,2], f32[2]) scan(xs, init), dimensions={0}, num_carries=1, to_apply=step
})";
  EXPECT_EQ(
      Eval(m, {"f32[3,2] {{1, 10}, {2, 20}, {3, 30}}", "f32[2] {0, 100}"}),
      "(f32[3,2] { { 1, 110 }, { 3, 130 }, { 6, 160 } }, f32[2] {6, 160})");
}

TEST(StochasticConvert, RoundsUpBelowTheFraction) {
  const std::string m = R"(HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  r = u32[4] parameter(1)
  ROOT c = s8[4] stochastic-convert(x, r)
})";
  // 2.25: fraction 0.25 = 2^30 in u32; 1 < 2^30 rounds up, 2^31 does not.
  EXPECT_EQ(Eval(m, {"f32[4] {2.25, 2.25, -2.25, 1000}",
                     "u32[4] {1, 2147483648, 1, 0}"}),
            "s8[4] {3, 2, -3, 127}");
}

TEST(BlockScaled, DotMatchesExplicitDequantizeAndDot) {
  // lhs quantized with per-block scales, rhs wide (3 operands): the call
  // equals dot(convert(lhs) * broadcast(scale), rhs).
  const std::string call = R"(HloModule m
ENTRY e {
  lhs = f8e4m3fn[2,4] parameter(0)
  rhs = f32[3,4] parameter(1)
  scale = f8e8m0fnu[2,2] parameter(2)
  ROOT r = f32[2,3] custom-call(lhs, rhs, scale), custom_call_target="__op$block_scaled_dot"
})";
  const std::vector<std::string> args = {
      "f8e4m3fn[2,4] {{1, 2, 3, 4}, {-1, 0.5, 0, 2}}",
      "f32[3,4] {{1, 0, 0, 0}, {0, 1, 1, 0}, {1, 1, 1, 1}}",
      "f8e8m0fnu[2,2] {{2, 0.5}, {1, 4}}"};
  EXPECT_EQ(Eval(call, args), "f32[2,3] { { 2, 5.5, 9.5 }, { -1, 0.5, 7.5 } }");
  // Five operands: a global scale multiplies the result.
  const std::string global = R"(HloModule m
ENTRY e {
  lhs = f8e4m3fn[1,2] parameter(0)
  rhs = f8e4m3fn[1,2] parameter(1)
  ls = f8e8m0fnu[1,1] parameter(2)
  rs = f8e8m0fnu[1,1] parameter(3)
  g = f32[] parameter(4)
  ROOT r = f32[1,1] custom-call(lhs, rhs, ls, rs, g), custom_call_target="__op$block_scaled_dot"
})";
  EXPECT_EQ(Eval(global, {"f8e4m3fn[1,2] {{1, 2}}", "f8e4m3fn[1,2] {{3, 4}}",
                          "f8e8m0fnu[1,1] {{2}}", "f8e8m0fnu[1,1] {{0.5}}",
                          "f32[] 10"}),
            "f32[1,1] { {110} }");
  EXPECT_NE(Eval(R"(HloModule m
ENTRY e {
  lhs = f8e4m3fn[1,2] parameter(0)
  rhs = f8e4m3fn[1,2] parameter(1)
  ROOT r = f32[1,1] custom-call(lhs, rhs), custom_call_target="__op$block_scaled_dot"
})",
                 {"f8e4m3fn[1,2] {{1, 2}}", "f8e4m3fn[1,2] {{3, 4}}"})
                .find("takes 3 to 5 operands"),
            std::string::npos);
}

TEST(BlockScaled, QuantizeThenDequantizeRoundTrips) {
  const std::string m = R"(HloModule m
ENTRY e {
  x = f32[1,4] parameter(0)
  q = (f8e4m3fn[1,4], f8e8m0fnu[1,2]) custom-call(x), custom_call_target="__op$quantize"
  d = f8e4m3fn[1,4] get-tuple-element(q), index=0
  s = f8e8m0fnu[1,2] get-tuple-element(q), index=1
  ROOT r = f32[1,4] custom-call(d, s), custom_call_target="__op$dequantize"
})";
  EXPECT_EQ(Eval(m, {"f32[1,4] {{1, -2, 512, 256}}"}),
            "f32[1,4] { { 1, -2, 512, 256 } }");
}

TEST(RngBitGenerator, ThreeFryAndPhiloxAreDeterministic) {
  const std::string m = R"(HloModule m
ENTRY e {
  s = u64[2] parameter(0)
  ROOT r = (u64[2], u32[3]) rng-bit-generator(s), algorithm=rng_three_fry
})";
  const std::string first = Eval(m, {"u64[2] {1, 2}"});
  EXPECT_EQ(first.substr(0, 22), "(u64[2] {1, 4}, u32[3]");
  EXPECT_EQ(Eval(m, {"u64[2] {1, 2}"}), first);
}

TEST(Collectives, AcrossDevicesAndDeadlock) {
  auto module = ParseHloModule(R"(HloModule m, replica_count=4
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p = f32[2] parameter(0)
  s = f32[2] all-reduce(p), replica_groups={{0,1},{2,3}}, to_apply=add
  g = f32[4] all-gather(p), replica_groups={{0,1},{2,3}}, dimensions={0}
  c = f32[2] collective-permute(p), source_target_pairs={{0,1},{1,2},{2,3},{3,0}}
  r = u32[] replica-id()
  ROOT t = (f32[2], f32[4], f32[2], u32[]) tuple(s, g, c, r)
})");
  ASSERT_TRUE(module.ok()) << module.status().message();
  std::vector<std::vector<Literal>> args;
  for (int d = 0; d < 4; ++d) {
    args.push_back(
        {*ParseLiteral(absl::StrCat("f32[2] {", d, ", ", 10 * d, "}"))});
  }
  auto results = EvaluateOnDevices(**module, 4, 1, args);
  ASSERT_TRUE(results.ok()) << results.status().message();
  EXPECT_EQ((*results)[1].ToString(),
            "(f32[2] {1, 10}, f32[4] {0, 0, 1, 10}, f32[2] {0, 0}, u32[] 1)");
  EXPECT_EQ((*results)[3].ToString(),
            "(f32[2] {5, 50}, f32[4] {2, 20, 3, 30}, f32[2] {2, 20}, u32[] 3)");
  // Replica 1 skips the all-reduce the others wait in.
  auto deadlock = ParseHloModule(R"(HloModule m, replica_count=2
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p = f32[] parameter(0)
  r = u32[] replica-id()
  z = u32[] constant(0)
  first = pred[] compare(r, z), direction=EQ
  ROOT c = f32[] conditional(first, p, p), true_computation=reduce, false_computation=keep
}
reduce {
  x = f32[] parameter(0)
  ROOT s = f32[] all-reduce(x), replica_groups={}, to_apply=add
}
keep {
  ROOT x = f32[] parameter(0)
})");
  ASSERT_TRUE(deadlock.ok()) << deadlock.status().message();
  std::vector<std::vector<Literal>> two = {{*ParseLiteral("f32[] 1")},
                                           {*ParseLiteral("f32[] 2")}};
  auto stuck = EvaluateOnDevices(**deadlock, 2, 1, two);
  ASSERT_FALSE(stuck.ok());
  EXPECT_NE(stuck.status().message().find("collective deadlock"),
            std::string::npos)
      << stuck.status().message();
}

TEST(Collectives, RaggedAllToAll) {
  // Two replicas; replica r sends rows to replica q at the offsets its own
  // tables name.
  auto module = ParseHloModule(R"(HloModule m, replica_count=2
ENTRY e {
  in = f32[4] parameter(0)
  out = f32[4] parameter(1)
  io = s64[2] parameter(2)
  ss = s64[2] parameter(3)
  oo = s64[2] parameter(4)
  rs = s64[2] parameter(5)
  ROOT r = f32[4] ragged-all-to-all(in, out, io, ss, oo, rs), replica_groups={{0,1}}
})");
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto lit = [](const std::string& s) { return *ParseLiteral(s); };
  std::vector<std::vector<Literal>> args;
  // Replica 0 sends row 0 to itself (at 0) and rows 1..2 to replica 1 (at 0).
  args.push_back({lit("f32[4] {1, 2, 3, 4}"), lit("f32[4] {-1, -1, -1, -1}"),
                  lit("s64[2] {0, 1}"), lit("s64[2] {1, 2}"),
                  lit("s64[2] {0, 0}"), lit("s64[2] {1, 1}")});
  // Replica 1 sends row 0 to replica 0 (at 1) and row 1 to itself (at 2).
  args.push_back({lit("f32[4] {10, 20, 30, 40}"),
                  lit("f32[4] {-2, -2, -2, -2}"), lit("s64[2] {0, 1}"),
                  lit("s64[2] {1, 1}"), lit("s64[2] {1, 2}"),
                  lit("s64[2] {2, 1}")});
  auto results = EvaluateOnDevices(**module, 2, 1, args);
  ASSERT_TRUE(results.ok()) << results.status().message();
  EXPECT_EQ((*results)[0].ToString(), "f32[4] {1, 10, -1, -1}");
  EXPECT_EQ((*results)[1].ToString(), "f32[4] {2, 3, 20, -2}");
}

TEST(Errors, NotEvaluableIsLocated) {
  EXPECT_NE(Eval(R"(HloModule m
ENTRY e {
  ROOT c = f32[20] constant({...})
})")
                .find("elided"),
            std::string::npos);
  EXPECT_NE(Eval(R"(HloModule m
ENTRY e {
  p = f32[2] parameter(0)
  ROOT c = f32[2] custom-call(p), custom_call_target="my_kernel"
})",
                 {"f32[2] {1, 2}"})
                .find("custom-call target \"my_kernel\" has no implementation"),
            std::string::npos);
  EXPECT_NE(Eval(R"(HloModule m, replica_count=2
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p = f32[] parameter(0)
  ROOT s = f32[] all-reduce(p), replica_groups={{0,1}}, to_apply=add
})",
                 {"f32[] 1"})
                .find("devices"),
            std::string::npos);
}

}  // namespace
}  // namespace xlite
