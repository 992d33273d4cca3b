#include "runtime/gemm_description.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/text/parser.h"
#include "runtime/gemm_matrices.h"

namespace xlite::runtime {
namespace {

Shape S(const std::string& text) {
  absl::StatusOr<Shape> s = ParseShape(text);
  EXPECT_TRUE(s.ok()) << text;
  return *s;
}

std::string Config(const std::string& lhs_contracting,
                   const std::string& rhs_contracting,
                   const std::string& batch = "",
                   const std::string& epilogue = "DEFAULT", double beta = 0) {
  return "{\"gemm_backend_config\":{\"alpha_real\":1,\"beta\":" +
         std::to_string(beta) +
         ",\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":[" +
         lhs_contracting + "],\"rhs_contracting_dimensions\":[" +
         rhs_contracting + "],\"lhs_batch_dimensions\":[" + batch +
         "],\"rhs_batch_dimensions\":[" + batch + "]},\"epilogue\":\"" +
         epilogue + "\"}}";
}

absl::StatusOr<GemmDescription> Describe(const std::string& config,
                                         std::vector<std::string> operands,
                                         const std::string& result) {
  std::vector<Shape> shapes;
  for (const std::string& o : operands) shapes.push_back(S(o));
  return DescribeGemm("__cublas$lt$matmul", config, shapes, S(result));
}

TEST(GemmDescription, ParsesAndOrdersArguments) {
  absl::StatusOr<GemmDescription> g =
      Describe(Config("1", "0", "", "BIAS", 1),
               {"f32[2,3]{1,0}", "f32[3,4]{1,0}", "f32[2,4]{1,0}", "f32[4]{0}"},
               "(f32[2,4]{1,0}, s8[64]{0})");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->layout.c, 2);
  EXPECT_EQ(g->layout.bias, 3);
  EXPECT_EQ(g->layout.workspace, 1);
  EXPECT_EQ(g->ArgumentCount(), 6);
  EXPECT_EQ(GemmDescriptionToString(*g),
            "lt$matmul f32[2,3]{1,0} x f32[3,4]{1,0} x f32[2,4]{1,0} x "
            "f32[4]{0} -> (f32[2,4]{1,0}, s8[64]{0}) alpha=1 beta=1 "
            "epilogue=BIAS");
  EXPECT_TRUE(CheckGemmThunkSupport(*g).ok());
}

TEST(GemmDescription, RefusesBadInput) {
  EXPECT_FALSE(DescribeGemm("foo", Config("1", "0"),
                            {S("f32[2,3]{1,0}"), S("f32[3,4]{1,0}")},
                            S("f32[2,4]{1,0}"))
                   .ok());
  EXPECT_FALSE(
      Describe("{not json", {"f32[2,3]{1,0}", "f32[3,4]{1,0}"}, "f32[2,4]{1,0}")
          .ok());
  // Sizes that disagree, a missing layout.
  EXPECT_FALSE(Describe(Config("1", "0"), {"f32[2,3]{1,0}", "f32[5,4]{1,0}"},
                        "f32[2,4]{1,0}")
                   .ok());
  EXPECT_FALSE(
      DescribeGemm("__cublas$lt$matmul", Config("1", "0"),
                   {Shape(PrimitiveType::kF32, {2, 3}), S("f32[3,4]{1,0}")},
                   S("f32[2,4]{1,0}"))
          .ok());
}

TEST(GemmMatrices, RowAndColumnMajorOperands) {
  // a transposed in memory ({0,1}), b batched and row-major.
  absl::StatusOr<GemmDescription> g =
      Describe(Config("2", "1", "0"),
               {"f32[5,2,3]{1,2,0}", "f32[5,3,4]{2,1,0}"}, "f32[5,2,4]{2,1,0}");
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<GemmMatrices> mm = GemmMatricesFor(*g);
  ASSERT_TRUE(mm.ok()) << mm.status();
  EXPECT_EQ(mm->batch, 5);
  EXPECT_EQ(mm->m, 2);
  EXPECT_EQ(mm->k, 3);
  EXPECT_EQ(mm->n, 4);
  EXPECT_FALSE(mm->a.row_major);
  EXPECT_EQ(mm->a.leading_dim, 2);
  EXPECT_EQ(mm->a.batch_stride, 6);
  EXPECT_TRUE(mm->b.row_major);
  EXPECT_EQ(mm->b.leading_dim, 4);
  EXPECT_TRUE(mm->d.row_major);
}

TEST(GemmMatrices, WhatAThunkDoesNotRun) {
  // Batch dimension not the most major one.
  absl::StatusOr<GemmDescription> g =
      Describe(Config("2", "1", "0"),
               {"f32[5,2,3]{2,0,1}", "f32[5,3,4]{2,1,0}"}, "f32[5,2,4]{2,1,0}");
  ASSERT_TRUE(g.ok());
  EXPECT_FALSE(CheckGemmThunkSupport(*g).ok());
  // Integers.
  g = Describe(Config("1", "0"), {"s8[2,3]{1,0}", "s8[3,4]{1,0}"},
               "s32[2,4]{1,0}");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_FALSE(CheckGemmThunkSupport(*g).ok());
  // A bias over a column-major result.
  g = Describe(Config("1", "0", "", "BIAS"),
               {"f32[2,3]{1,0}", "f32[3,4]{1,0}", "f32[4]{0}"},
               "f32[2,4]{0,1}");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_FALSE(CheckGemmThunkSupport(*g).ok());
  // f16 x f16 -> f32 runs; f32 x f32 -> f16 does not.
  g = Describe(Config("1", "0"), {"f16[2,3]{1,0}", "f16[3,4]{1,0}"},
               "f32[2,4]{1,0}");
  ASSERT_TRUE(g.ok());
  EXPECT_TRUE(CheckGemmThunkSupport(*g).ok());
  g = Describe(Config("1", "0"), {"f32[2,3]{1,0}", "f32[3,4]{1,0}"},
               "f16[2,4]{1,0}");
  ASSERT_TRUE(g.ok());
  EXPECT_FALSE(CheckGemmThunkSupport(*g).ok());
}

}  // namespace
}  // namespace xlite::runtime
