#include "hlo/ir/literal.h"

#include <gtest/gtest.h>

#include <cmath>

#include "hlo/text/parser.h"

namespace xlite {
namespace {

Literal Parse(const std::string& text) {
  auto literal = ParseLiteral(text);
  EXPECT_TRUE(literal.ok()) << literal.status().message();
  return literal.ok() ? *literal : Literal();
}

TEST(Literal, RoundTripsThroughText) {
  for (const char* text :
       {"f32[2] {1, 2}", "s32[2,2] { { 1, 2 }, { 3, 4 } }", "pred[] true",
        "pred[3] {1, 0, 1}", "f32[] nan", "f32[] -inf", "f32[] nan(0x7)",
        "c64[1] {(1, -2)}", "u8[0] {}", "f64[] 0.1",
        "f64[] 0.10000000000000002", "f32[] 0.123456791", "bf16[] 1.102",
        "f8e5m2[] 5.7e+04", "s4[3] {-8, 0, 7}", "u2[2] {0, 3}",
        "(f32[] 1, s32[2] {1, 2})", "(f32[] 1, (s32[] 2, pred[] true))"}) {
    Literal literal = Parse(text);
    EXPECT_EQ(literal.ToString(), text);
    EXPECT_EQ(Parse(literal.ToString()), literal);
  }
}

TEST(Literal, ScalarBracesAndCommentsAccepted) {
  EXPECT_EQ(Parse("f32[] {5}").ToString(), "f32[] 5");
  EXPECT_EQ(Parse("f32[2,1,1,1] { { /*i0=0*/ { /*i1=0*/ {1} } }, { /*i0=1*/ { "
                  "/*i1=0*/ {2} } } }")
                .ToString(),
            "f32[2,1,1,1] { { /*i0=0*/ { /*i1=0*/ {1} } }, { /*i0=1*/ { "
            "/*i1=0*/ {2} } } }");
}

TEST(Literal, ElementAccess) {
  Literal literal(Shape(PrimitiveType::kS8, {3}));
  literal.SetFromInt64(0, -1);
  literal.SetFromInt64(1, 200);  // wraps
  literal.SetFromDouble(2, 3.7);
  EXPECT_EQ(literal.GetAsInt64(0), -1);
  EXPECT_EQ(literal.GetBits(0), 0xFFu);
  EXPECT_EQ(literal.GetAsInt64(1), -56);
  EXPECT_EQ(literal.GetAsInt64(2), 3);

  Literal f8(Shape(PrimitiveType::kF8E4M3FN, {2}));
  f8.SetFromDouble(0, 1000.0);  // overflow -> NaN in fn types
  f8.SetFromDouble(1, 0.3);
  EXPECT_TRUE(std::isnan(f8.GetAsDouble(0)));
  EXPECT_EQ(f8.GetAsDouble(1), 0.3125);

  Literal c(Shape(PrimitiveType::kC128, {}));
  c.SetFromComplex(0, {1.5, -2});
  EXPECT_EQ(c.GetAsComplex(0), std::complex<double>(1.5, -2));
}

TEST(Literal, UnknownValue) {
  Literal literal = Literal::Unknown(Shape(PrimitiveType::kF32, {1000}));
  EXPECT_TRUE(literal.is_unknown());
  EXPECT_EQ(literal.ValueToString(), "{...}");
}

// XLA's form: %.{digits10}g when it reads back exactly (f32/f64), else
// %.{max_digits10}g.
TEST(Literal, FloatTextReadsBackExactly) {
  EXPECT_EQ(FloatBitsToString(PrimitiveType::kF32, 0x3DCCCCCD), "0.1");
  EXPECT_EQ(FloatBitsToString(PrimitiveType::kF32, 0x3727C5AC), "1e-05");
  EXPECT_EQ(FloatBitsToString(PrimitiveType::kBF16, 0x3F8D), "1.102");
  EXPECT_EQ(FloatBitsToString(PrimitiveType::kF32, 0x3F800000), "1");
  EXPECT_EQ(FloatBitsToString(PrimitiveType::kF16, 0x3C00), "1");
  EXPECT_EQ(FloatBitsToString(PrimitiveType::kF32, 0xFFC00000), "-nan");
  EXPECT_EQ(FloatBitsToString(PrimitiveType::kF8E4M3FNUZ, 0x80), "-nan");
}

TEST(Literal, ParseErrors) {
  EXPECT_FALSE(ParseLiteral("s8[] 128").ok());
  EXPECT_FALSE(ParseLiteral("f32[2] {1}").ok());
  EXPECT_FALSE(ParseLiteral("f32[2] {1, 2, 3}").ok());
  EXPECT_FALSE(ParseLiteral("f32[2] {1, 2} extra").ok());
  EXPECT_FALSE(ParseLiteral("(1, 2)").ok());
  // A tuple shape followed by an untyped value is accepted.
  EXPECT_EQ(ParseLiteral("(f32[], s32[]) (1, 2)")->ToString(),
            "(f32[] 1, s32[] 2)");
}

}  // namespace
}  // namespace xlite
