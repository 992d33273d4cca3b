#include "hlo/ir/shape.h"

#include <gtest/gtest.h>

#include "hlo/text/parser.h"

namespace xlite {
namespace {

Shape Parse(const std::string& text) {
  auto shape = ParseShape(text);
  EXPECT_TRUE(shape.ok()) << shape.status().message();
  return shape.ok() ? *shape : Shape();
}

TEST(Shape, PrintsAsXla) {
  EXPECT_EQ(Parse("f32[8,128]{1,0}").ToString(), "f32[8,128]{1,0}");
  EXPECT_EQ(Parse("f32[8,128]").ToString(), "f32[8,128]{1,0}");
  EXPECT_EQ(Parse("f32[8,128]").ToString(false), "f32[8,128]");
  EXPECT_EQ(Parse("f32[]").ToString(), "f32[]");
  EXPECT_EQ(Parse("(f32[], (s32[], token[]))").ToString(),
            "(f32[], (s32[], token[]))");
  EXPECT_EQ(Parse("opaque[]").ToString(), "opaque[]");
}

TEST(Shape, TiledLayoutsAndMemorySpaces) {
  for (const char* text :
       {"bf16[1024,512]{1,0:T(8,128)(2,1)}",
        "f32[20,3,256,133]{2,3,1,0:T(8,128)S(5)}", "s32[3]{0:T(128)}",
        "u32[]{:S(8)}", "f32[4]{0:T(2,*)}",
        "f32[16]{0:L(4)#(u32)*(u32)E(4)S(1)SC(0:4,8)M(8)}"}) {
    EXPECT_EQ(Parse(text).ToString(), text);
  }
}

// XLA's parser refuses a physical shape on a dense array, and layout parts
// out of its fixed order; index/pointer types and bad tiles parse but are
// refused in an entry computation layout (ValidateDenseLayoutParts).
TEST(Shape, LayoutPartsXlaRefuses) {
  EXPECT_FALSE(ParseShape("f32[4,4]{1,0:P(f32[16]{0})}").ok());
  EXPECT_FALSE(ParseShape("f32[8]{0:S(1)T(4)}").ok());
  EXPECT_FALSE(ParseShape("f32[8]{0:T(4)T(4)}").ok());
  for (const char* text :
       {"f32[16]{0:#(u32)}", "f32[16]{0:*(u32)}", "f32[16]{0:T()}",
        "f32[16]{0:T(4,0)}", "f32[16]{0:L(0)}", "f32[16]{0:E(-1)}"}) {
    EXPECT_FALSE(ValidateDenseLayoutParts(Parse(text)).ok()) << text;
  }
  EXPECT_TRUE(
      ValidateDenseLayoutParts(Parse("f32[16]{0:T(8)(2,1)L(2)E(4)S(1)}")).ok());
}

TEST(Shape, DynamicDimensions) {
  Shape bounded = Parse("f32[<=10,3]{1,0}");
  EXPECT_TRUE(bounded.is_dynamic_dimension(0));
  EXPECT_FALSE(bounded.is_dynamic_dimension(1));
  EXPECT_EQ(bounded.dimensions(0), 10);
  EXPECT_EQ(bounded.ToString(), "f32[<=10,3]{1,0}");
  Shape unbounded = Parse("f32[?]");
  EXPECT_TRUE(unbounded.is_unbounded_dimension(0));
  EXPECT_EQ(unbounded.ToString(false), "f32[?]");
}

TEST(Shape, TupleIndexCommentsEveryFiveElements) {
  Shape tuple = Parse("(s32[], s32[], s32[], s32[], s32[], s32[])");
  EXPECT_EQ(tuple.ToString(),
            "(s32[], s32[], s32[], s32[], s32[], /*index=5*/s32[])");
  EXPECT_EQ(Parse(tuple.ToString()), tuple);
}

TEST(Shape, SubshapesAndSizes) {
  Shape t = Parse("(f32[2,3], (s8[4], pred[]))");
  ASSERT_NE(t.Subshape({1, 0}), nullptr);
  EXPECT_EQ(t.Subshape({1, 0})->ToString(), "s8[4]{0}");
  EXPECT_EQ(t.Subshape({2}), nullptr);
  EXPECT_EQ(t.Subshape({0})->ElementCount(), 6);
  EXPECT_EQ(t.Subshape({0})->ByteSizeOfElements(), 24);
  EXPECT_EQ(Parse("s4[10]").ByteSizeOfElements(), 10);
}

TEST(Shape, EqualityAndCompatibility) {
  EXPECT_EQ(Parse("f32[2]{0}"), Parse("f32[2]"));
  EXPECT_NE(Parse("f32[2,3]{0,1}"), Parse("f32[2,3]{1,0}"));
  EXPECT_TRUE(ShapesCompatible(Parse("f32[2,3]{0,1}"), Parse("f32[2,3]{1,0}")));
  EXPECT_FALSE(ShapesCompatible(Parse("f32[2,3]"), Parse("s32[2,3]")));
}

TEST(Shape, ValidateRejectsBadLayouts) {
  Shape s(PrimitiveType::kF32, {2, 3});
  s.set_layout(Layout({0, 0}));
  EXPECT_FALSE(ValidateShape(s).ok());
  s.set_layout(Layout({0, 1}));
  EXPECT_TRUE(ValidateShape(s).ok());
}

TEST(Shape, ParseErrorsAreLocated) {
  ParseOptions options;
  options.filename = "shape";
  auto bad = ParseShape("f32[2,", options);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(std::string(bad.status().message()).substr(0, 38),
            "shape:1:7: error: expected an integer ");
}

}  // namespace
}  // namespace xlite
