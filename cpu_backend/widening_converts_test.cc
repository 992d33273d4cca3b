// A convert of a narrow float operation to the type XLA:CPU computes it in
// reads the unrounded value (XLA:CPU's float normalization drops the
// convert): the rewrite and the compiled module's values, which are
// XLA:CPU's (jaxlib 0.10.2) for these inputs.

#include "cpu_backend/widening_converts.h"

#include <gtest/gtest.h>

#include <string>

#include "cpu_backend/executable.h"
#include "cpu_backend/text_run_testing.h"
#include "hlo/text/parser.h"
#include "hlo/text/printer.h"

namespace xlite::cpu {
namespace {

std::unique_ptr<HloModule> Parse(const std::string& text) {
  return testing::ParseForTest(text);
}

// The module's results on `args` (HLO literal text), as one literal's text.
std::string RunCompiled(const std::string& text,
                        const std::vector<std::string>& args) {
  return testing::RunOnText(text, args);
}

// (1 + 2^-7)^2 = 1 + 2^-6 + 2^-14: 1.015625 in bf16, 1.01568604 in f32.
constexpr char kProduct[] = R"(
HloModule m
ENTRY e {
  a = bf16[2] parameter(0)
  b = bf16[2] parameter(1)
  p = bf16[2] multiply(a, b)
  wide = f32[2] convert(p)
  ROOT t = (f32[2], bf16[2]) tuple(wide, p)
}
)";

TEST(WideningConvertsTest, ConvertReadsTheProductBeforeRounding) {
  EXPECT_EQ(RunCompiled(kProduct,
                        {"bf16[2] {1.0078125, 3}", "bf16[2] {1.0078125, 2}"}),
            "(f32[2] {1.01568604, 6}, bf16[2] {1.016, 6})");
}

TEST(WideningConvertsTest, RewriteKeepsTheNarrowUser) {
  std::unique_ptr<HloModule> module = Parse(kProduct);
  ASSERT_NE(module, nullptr);
  absl::StatusOr<bool> changed = FoldWideningConverts(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  const std::string text = PrintModule(*module);
  EXPECT_NE(text.find("f32[2]{0} multiply("), std::string::npos) << text;
  EXPECT_NE(text.find("bf16[2]{0} multiply("), std::string::npos) << text;
}

// Only the convert the module holds is folded: the product inside the sum
// is rounded to bf16 (1.015625) before the add, as XLA:CPU computes it.
TEST(WideningConvertsTest, InnerOperationsStayRounded) {
  constexpr char kChain[] = R"(
HloModule m
ENTRY e {
  a = bf16[1] parameter(0)
  p = bf16[1] multiply(a, a)
  s = bf16[1] add(p, a)
  ROOT wide = f32[1] convert(s)
}
)";
  // 1.015625 + 1.0078125 = 2.0234375, exact in f32 and not in bf16.
  EXPECT_EQ(RunCompiled(kChain, {"bf16[1] {1.0078125}"}), "f32[1] {2.0234375}");
}

// f8 types compute in f16: a convert to f16 reads the unrounded product, a
// convert to f32 the rounded one.
TEST(WideningConvertsTest, F8ComputesInF16) {
  constexpr char kF8[] = R"(
HloModule m
ENTRY e {
  a = f8e4m3fn[1] parameter(0)
  p = f8e4m3fn[1] multiply(a, a)
  h = f16[1] convert(p)
  f = f32[1] convert(p)
  ROOT t = (f16[1], f32[1]) tuple(h, f)
}
)";
  // 1.125^2 = 1.265625; f8e4m3fn rounds it to 1.25.
  EXPECT_EQ(RunCompiled(kF8, {"f8e4m3fn[1] {1.125}"}),
            "(f16[1] {1.2656}, f32[1] {1.25})");
}

// A bf16 dot widened for its user accumulates in f32 and is not rounded.
TEST(WideningConvertsTest, DotResultIsNotRounded) {
  constexpr char kDot[] = R"(
HloModule m
ENTRY e {
  a = bf16[1,2] parameter(0)
  b = bf16[2,1] parameter(1)
  d = bf16[1,1] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT wide = f32[1,1] convert(d)
}
)";
  EXPECT_EQ(RunCompiled(kDot, {"bf16[1,2] {{1, 0.0078125}}",
                               "bf16[2,1] {{1}, {0.00390625}}"}),
            "f32[1,1] { {1.00003052} }");
}

// s4 and u4 compute in s8 and u8: a convert to s8 reads the sum before it
// wraps around (7 + 7 = 14, not -2), as XLA:CPU computes it.
TEST(WideningConvertsTest, S4ComputesInS8) {
  constexpr char kS4[] = R"(
HloModule m
ENTRY e {
  a = s4[2] parameter(0)
  s = s4[2] add(a, a)
  wide = s8[2] convert(s)
  narrow = s16[2] convert(s)
  ROOT t = (s8[2], s16[2]) tuple(wide, narrow)
}
)";
  EXPECT_EQ(RunCompiled(kS4, {"s4[2] {7, -8}"}),
            "(s8[2] {14, -16}, s16[2] {-2, 0})");
}

}  // namespace
}  // namespace xlite::cpu
