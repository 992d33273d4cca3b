// GroupStride and DescribeStridedGemm on the layouts of attention's batch
// dots, merged and too many batch dimensions, and the arrays they refuse.

#include "cpu_backend/strided_matrix.h"

#include <gtest/gtest.h>

#include <string>

#include "hlo/text/parser.h"

namespace xlite::cpu {
namespace {

Shape S(const std::string& text) {
  absl::StatusOr<Shape> shape = ParseShape(text);
  EXPECT_TRUE(shape.ok()) << shape.status() << " " << text;
  return shape.ok() ? *shape : Shape();
}

TEST(GroupStride, ContiguousGroupsInTheirOrder) {
  const Shape s = S("f32[4,128,4,64]{3,2,1,0}");
  EXPECT_EQ(GroupStride(s, {3}), 1);
  EXPECT_EQ(GroupStride(s, {1}), 256);
  EXPECT_EQ(GroupStride(s, {0}), 128 * 256);
  EXPECT_EQ(GroupStride(s, {2, 3}), 1);
  EXPECT_EQ(GroupStride(s, {1, 2}), 64);
  EXPECT_EQ(GroupStride(s, {0, 1, 2, 3}), 1);
  // Out of order, or with a gap.
  EXPECT_EQ(GroupStride(s, {3, 2}), std::nullopt);
  EXPECT_EQ(GroupStride(s, {0, 2}), std::nullopt);
  EXPECT_EQ(GroupStride(s, {1, 3}), std::nullopt);
  // Size-1 dimensions anywhere; none at all.
  const Shape t = S("f32[8,1,16,1]{0,3,2,1}");
  EXPECT_EQ(GroupStride(t, {2, 1, 0}), 1);
  EXPECT_EQ(GroupStride(t, {2}), 8);
  EXPECT_EQ(GroupStride(t, {0}), 1);
  EXPECT_EQ(GroupStride(t, {0, 2}), std::nullopt);
  EXPECT_EQ(GroupStride(t, {1, 3}), 1);
  EXPECT_EQ(GroupStride(t, {}), 1);
}

TEST(DescribeStridedGemm, AttentionScores) {
  // dot(f32[4,128,4,64], f32[4,128,4,64]) -> f32[4,4,128,128],
  // batch {0,2}, contracting {3}.
  const Shape q = S("f32[4,128,4,64]{3,2,1,0}");
  const Shape out = S("f32[4,4,128,128]{3,2,1,0}");
  const std::optional<StridedGemm> g = DescribeStridedGemm(
      {&q, {0, 2}, {1}, {3}}, {&q, {0, 2}, {3}, {1}}, {&out, {0, 1}, {2}, {3}});
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->m, 128);
  EXPECT_EQ(g->k, 64);
  EXPECT_EQ(g->n, 128);
  EXPECT_EQ(g->matrix_strides,
            (std::array<int64_t, 6>{256, 1, 1, 256, 128, 1}));
  EXPECT_EQ(g->batch,
            (std::vector<int64_t>{4, 128 * 256, 128 * 256, 4 * 128 * 128, 4, 64,
                                  64, 128 * 128}));
  EXPECT_EQ(g->batch_rank(), 2);
}

TEST(DescribeStridedGemm, AttentionValuesWithATransposedResult) {
  // dot(f32[4,128,4,64] batch {0,2} contracting {1},
  //     f32[4,4,128,128] batch {0,1} contracting {3}) -> f32[4,4,64,128],
  // stored with each matrix column-major.
  const Shape v = S("f32[4,128,4,64]{3,2,1,0}");
  const Shape p = S("f32[4,4,128,128]{3,2,1,0}");
  const Shape out = S("f32[4,4,64,128]{2,3,1,0}");
  const std::optional<StridedGemm> g = DescribeStridedGemm(
      {&v, {0, 2}, {3}, {1}}, {&p, {0, 1}, {3}, {2}}, {&out, {0, 1}, {2}, {3}});
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->matrix_strides, (std::array<int64_t, 6>{1, 256, 1, 128, 1, 64}));
  // Batch dimensions that one stride covers in every array merge.
  EXPECT_EQ(g->batch,
            (std::vector<int64_t>{4, 128 * 256, 4 * 128 * 128, 4 * 64 * 128, 4,
                                  64, 128 * 128, 64 * 128}));
  const Shape a = S("f32[2,3,32,40]{3,2,1,0}");
  const Shape b = S("f32[2,3,40,24]{3,2,1,0}");
  const Shape c = S("f32[2,3,32,24]{3,2,1,0}");
  const std::optional<StridedGemm> merged = DescribeStridedGemm(
      {&a, {0, 1}, {2}, {3}}, {&b, {0, 1}, {2}, {3}}, {&c, {0, 1}, {2}, {3}});
  ASSERT_TRUE(merged.has_value());
  EXPECT_EQ(merged->batch,
            (std::vector<int64_t>{6, 32 * 40, 40 * 24, 32 * 24}));
}

TEST(DescribeStridedGemm, RefusesWhatTheRuntimeCannotRead) {
  // The batch dimension minor in the lhs: neither matrix stride is 1.
  const Shape l = S("f32[32,40,4]{2,1,0}");
  const Shape r = S("f32[4,40,24]{2,1,0}");
  const Shape o = S("f32[4,32,24]{2,1,0}");
  EXPECT_FALSE(DescribeStridedGemm({&l, {2}, {0}, {1}}, {&r, {0}, {1}, {2}},
                                   {&o, {0}, {1}, {2}})
                   .has_value());
  // Two contracting dimensions that are not one stride.
  const Shape l2 = S("f32[16,6,32]{1,2,0}");
  const Shape r2 = S("f32[6,32,16]{2,1,0}");
  const Shape o2 = S("f32[16,16]{1,0}");
  EXPECT_FALSE(DescribeStridedGemm({&l2, {}, {0}, {1, 2}},
                                   {&r2, {}, {0, 1}, {2}}, {&o2, {}, {0}, {1}})
                   .has_value());
  // Five batch dimensions that do not merge.
  const Shape x = S("f32[2,2,2,2,2,8,8]{0,1,2,3,4,6,5}");
  const Shape y = S("f32[2,2,2,2,2,8,8]{6,5,4,3,2,1,0}");
  const std::vector<int64_t> five = {0, 1, 2, 3, 4};
  EXPECT_FALSE(DescribeStridedGemm({&x, five, {5}, {6}}, {&y, five, {5}, {6}},
                                   {&y, five, {5}, {6}})
                   .has_value());
}

}  // namespace
}  // namespace xlite::cpu
