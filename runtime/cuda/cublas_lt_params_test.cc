// The GEMM description -> cuBLASLt parameter translation, checked without
// a GPU: which operand goes in cuBLASLt's A and B, the ops, the
// column-major layouts, compute and scale types, the epilogue.
#include "runtime/cuda/cublas_lt_params.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/text/parser.h"
#include "runtime/cuda/cublas_lt_api.h"

namespace xlite::runtime::cuda {
namespace {

struct Case {
  std::string lhs_contracting = "1", rhs_contracting = "0", batch;
  std::string epilogue = "DEFAULT";
  double beta = 0;
  std::string precision = "DEFAULT";
  std::string target = "__cublas$lt$matmul";
};

absl::StatusOr<CublasLtGemmParams> Params(const Case& c,
                                          std::vector<std::string> operands,
                                          const std::string& result) {
  const std::string config =
      "{\"gemm_backend_config\":{\"alpha_real\":2,\"alpha_imag\":0,"
      "\"beta\":" +
      std::to_string(c.beta) +
      ",\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":[" +
      c.lhs_contracting + "],\"rhs_contracting_dimensions\":[" +
      c.rhs_contracting + "],\"lhs_batch_dimensions\":[" + c.batch +
      "],\"rhs_batch_dimensions\":[" + c.batch +
      "]},\"precision_config\":{\"operand_precision\":[\"" + c.precision +
      "\",\"" + c.precision + "\"]},\"epilogue\":\"" + c.epilogue + "\"}}";
  std::vector<Shape> shapes;
  for (const std::string& o : operands) shapes.push_back(*ParseShape(o));
  absl::StatusOr<GemmDescription> gemm =
      DescribeGemm(c.target, config, shapes, *ParseShape(result));
  if (!gemm.ok()) return gemm.status();
  return CublasLtParamsFor(*gemm);
}

TEST(CublasLtParams, RowMajorResultSwapsOperands) {
  // d[2,4] = a[2,3] b[3,4], all row-major: cuBLASLt computes d^T (4x2,
  // column-major, ld 4) = b^T a^T with both ops N.
  absl::StatusOr<CublasLtGemmParams> p =
      Params({}, {"f32[2,3]{1,0}", "f32[3,4]{1,0}"}, "f32[2,4]{1,0}");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->swapped);
  EXPECT_EQ(p->a_operand, 1);
  EXPECT_EQ(p->b_operand, 0);
  EXPECT_EQ(p->trans_a, lt::kOpN);
  EXPECT_EQ(p->trans_b, lt::kOpN);
  EXPECT_EQ(p->a.rows, 4u);
  EXPECT_EQ(p->a.cols, 3u);
  EXPECT_EQ(p->a.leading_dim, 4);
  EXPECT_EQ(p->b.rows, 3u);
  EXPECT_EQ(p->b.cols, 2u);
  EXPECT_EQ(p->b.leading_dim, 3);
  EXPECT_EQ(p->d.rows, 4u);
  EXPECT_EQ(p->d.cols, 2u);
  EXPECT_EQ(p->d.leading_dim, 4);
  EXPECT_EQ(p->d.batch_count, 1);
  EXPECT_EQ(p->compute_type, lt::kCompute32FFastTF32);
  EXPECT_EQ(p->scale_type, lt::kR32F);
  EXPECT_EQ(p->epilogue, lt::kEpilogueDefault);
  EXPECT_EQ(p->alpha_real, 2);
  EXPECT_EQ(p->beta, 0);
}

TEST(CublasLtParams, TransposedOperandsAndColumnMajorResult) {
  // a stored [k, m] (contracting dim 0), d column-major: no swap; a is the
  // column-major m x k matrix (op N, ld m); b row-major k x n is a
  // column-major n x k one transposed (op T, ld n).
  Case c;
  c.lhs_contracting = "0";
  c.precision = "HIGHEST";
  absl::StatusOr<CublasLtGemmParams> p =
      Params(c, {"f32[3,2]{1,0}", "f32[3,4]{1,0}"}, "f32[2,4]{0,1}");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_FALSE(p->swapped);
  EXPECT_EQ(p->trans_a, lt::kOpN);
  EXPECT_EQ(p->a.rows, 2u);
  EXPECT_EQ(p->a.cols, 3u);
  EXPECT_EQ(p->a.leading_dim, 2);
  EXPECT_EQ(p->trans_b, lt::kOpT);
  EXPECT_EQ(p->b.rows, 4u);
  EXPECT_EQ(p->b.cols, 3u);
  EXPECT_EQ(p->b.leading_dim, 4);
  EXPECT_EQ(p->d.rows, 2u);
  EXPECT_EQ(p->d.leading_dim, 2);
  EXPECT_EQ(p->compute_type, lt::kCompute32F);  // HIGHEST: no TF32
}

TEST(CublasLtParams, BatchesBiasAndBeta) {
  Case c;
  c.lhs_contracting = "2";
  c.rhs_contracting = "1";
  c.batch = "0";
  c.epilogue = "BIAS_RELU";
  c.beta = 1;
  absl::StatusOr<CublasLtGemmParams> p =
      Params(c,
             {"bf16[5,2,3]{2,1,0}", "bf16[5,3,4]{2,1,0}", "bf16[5,2,4]{2,1,0}",
              "bf16[4]{0}"},
             "(bf16[5,2,4]{2,1,0}, s8[1024]{0})");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->a.batch_count, 5);
  EXPECT_EQ(p->a.batch_stride, 12);
  EXPECT_EQ(p->b.batch_stride, 6);
  EXPECT_EQ(p->c.batch_stride, 8);
  EXPECT_EQ(p->d.batch_stride, 8);
  EXPECT_EQ(p->a.type, lt::kR16BF);
  EXPECT_EQ(p->compute_type, lt::kCompute32F);
  EXPECT_EQ(p->scale_type, lt::kR32F);
  EXPECT_EQ(p->epilogue, lt::kEpilogueReluBias);
  EXPECT_EQ(p->bias_type, lt::kR16BF);
  EXPECT_EQ(p->beta, 1);
}

TEST(CublasLtParams, ComplexAndDoubleScaleTypes) {
  absl::StatusOr<CublasLtGemmParams> p =
      Params({}, {"c64[2,3]{1,0}", "c64[3,4]{1,0}"}, "c64[2,4]{1,0}");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->compute_type, lt::kCompute32F);
  EXPECT_EQ(p->scale_type, lt::kC32F);
  p = Params({}, {"f64[2,3]{1,0}", "f64[3,4]{1,0}"}, "f64[2,4]{1,0}");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->compute_type, lt::kCompute64F);
  EXPECT_EQ(p->scale_type, lt::kR64F);
}

TEST(CublasLtParams, GeluAuxIsLaidOutAsTheResult) {
  Case c;
  c.epilogue = "GELU_AUX";
  absl::StatusOr<CublasLtGemmParams> p =
      Params(c, {"f16[2,3]{1,0}", "f16[3,4]{1,0}"},
             "(f16[2,4]{1,0}, f16[2,4]{1,0}, s8[64]{0})");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->epilogue, lt::kEpilogueGeluAux);
  EXPECT_EQ(p->aux_leading_dim, 4);
}

TEST(CublasLtParams, F8TakesScalesAndABf16C) {
  Case c;
  c.target = "__cublas$lt$matmul$f8";
  absl::StatusOr<CublasLtGemmParams> p =
      Params(c,
             {"f8e4m3fn[16,32]{1,0}", "f8e4m3fn[32,8]{0,1}", "f32[]", "f32[]",
              "f32[]", "f32[]"},
             "(f8e4m3fn[16,8]{1,0}, s8[1024]{0})");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->a.type, lt::kR8FE4M3);
  EXPECT_EQ(p->d.type, lt::kR8FE4M3);
  EXPECT_EQ(p->c.type, lt::kR16BF);
  EXPECT_EQ(p->compute_type, lt::kCompute32F);
  EXPECT_EQ(p->scale_type, lt::kR32F);
  // d row-major: cuBLASLt's A is b^T; b is stored column-major, so b^T
  // is row-major (op T) and a^T column-major (op N): the "TN" form
  // cuBLASLt's f8 kernels want.
  EXPECT_TRUE(p->swapped);
  EXPECT_EQ(p->trans_a, lt::kOpT);
  EXPECT_EQ(p->trans_b, lt::kOpN);
}

TEST(CublasLtParams, RefusesWhatNoThunkRuns) {
  Case c;
  c.epilogue = "SILU";
  EXPECT_FALSE(
      Params(c, {"f32[2,3]{1,0}", "f32[3,4]{1,0}"}, "f32[2,4]{1,0}").ok());
  EXPECT_FALSE(
      Params({}, {"s8[2,3]{1,0}", "s8[3,4]{1,0}"}, "s32[2,4]{1,0}").ok());
}

}  // namespace
}  // namespace xlite::runtime::cuda
