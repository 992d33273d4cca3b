#include "runtime/block_scaled_dot.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hlo/text/parser.h"

namespace xlite::runtime {
namespace {

Shape S(const std::string& text) {
  absl::StatusOr<Shape> s = ParseShape(text);
  EXPECT_TRUE(s.ok()) << text;
  return s.ok() ? *s : Shape();
}

absl::StatusOr<BlockScaledDotDescription> Describe(
    const std::vector<std::string>& operands, const std::string& result) {
  std::vector<Shape> shapes;
  for (const std::string& o : operands) shapes.push_back(S(o));
  return DescribeBlockScaledDot(std::move(shapes), S(result));
}

TEST(BlockScaledDot, MxFp8SizesFromTheShapes) {
  absl::StatusOr<BlockScaledDotDescription> d = Describe(
      {"f8e4m3fn[128,96]", "f8e5m2[128,96]", "f8e8m0fnu[128,4]",
       "f8e8m0fnu[128,4]"},
      "(f16[128,128], u8[0])");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->block_size, 32);
  EXPECT_EQ(d->batch, 1);
  EXPECT_EQ(d->m, 128);
  EXPECT_EQ(d->n, 128);
  EXPECT_EQ(d->k, 96);
  EXPECT_EQ(d->scale_k, 4);
  EXPECT_FALSE(d->has_global_scale());
  EXPECT_EQ(BlockScaledDotToString(*d),
            "MXFP8 f8e4m3fn[128,96] x f8e5m2[128,96] blocks of 32 -> "
            "f16[128,128] workspace 0");
}

TEST(BlockScaledDot, NvFp4BatchedWithGlobalScale) {
  absl::StatusOr<BlockScaledDotDescription> d = Describe(
      {"f4e2m1fn[2,100,64]", "f4e2m1fn[2,130,64]", "f8e4m3fn[2,128,4]",
       "f8e4m3fn[2,256,4]", "bf16[]"},
      "(bf16[2,100,130], u8[1024])");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->block_size, 16);
  EXPECT_EQ(d->batch, 2);
  EXPECT_EQ(d->lhs_scale_rows, 128);
  EXPECT_EQ(d->rhs_scale_rows, 256);
  EXPECT_EQ(d->workspace_bytes, 1024);
  EXPECT_TRUE(d->has_global_scale());
}

TEST(BlockScaledDot, RefusesWhatCudnnDoesNotRun) {
  const std::string scales = "f8e8m0fnu[128,4]";
  struct Case {
    std::vector<std::string> operands;
    std::string result;
    std::string why;
  };
  const std::vector<Case> cases = {
      {{"f8e5m2[128,96]", "f8e5m2[128,96]", scales, scales},
       "(f32[128,128], u8[0])",
       "no cuDNN block-scaled dot for f8e5m2 x f8e5m2"},
      {{"f8e4m3fn[128,96]", "f4e2m1fn[128,96]", scales, scales},
       "(f32[128,128], u8[0])", "no cuDNN block-scaled dot"},
      {{"f8e4m3fn[128,96]", "f8e4m3fn[128,96]", "f8e8m0fnu[120,4]", scales},
       "(f32[128,128], u8[0])", "padded"},
      {{"f8e4m3fn[128,96]", "f8e4m3fn[128,96]", "f8e8m0fnu[128,3]",
        "f8e8m0fnu[128,3]"},
       "(f32[128,128], u8[0])", "padded"},
      {{"f8e4m3fn[128,100]", "f8e4m3fn[128,100]", scales, scales},
       "(f32[128,128], u8[0])", "multiple of the block size"},
      {{"f8e4m3fn[128,96]", "f8e4m3fn[128,96]", scales, scales},
       "(s32[128,128], u8[0])", "f32, f16 or bf16"},
      {{"f8e4m3fn[128,96]", "f8e4m3fn[128,96]", scales, scales},
       "f32[128,128]", "returns (result, u8[workspace])"},
      {{"f8e4m3fn[128,96]{0,1}", "f8e4m3fn[128,96]", scales, scales},
       "(f32[128,128], u8[0])", "default layout"},
      {{"f8e4m3fn[128,96]", "f8e4m3fn[128,96]", scales, scales, "f16[]"},
       "(f32[128,128], u8[0])", "global scale"},
      {{"f8e4m3fn[128,96]", "f8e4m3fn[128,96]", scales},
       "(f32[128,128], u8[0])", "4 or 5 operands"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<BlockScaledDotDescription> d =
        Describe(c.operands, c.result);
    ASSERT_FALSE(d.ok()) << c.why;
    EXPECT_NE(d.status().message().find(c.why), std::string::npos)
        << d.status();
  }
}

}  // namespace
}  // namespace xlite::runtime
