// The canonical GEMM key: equal GEMMs spell the same, and whatever changes
// cuBLASLt's problem (a transpose, a layout, a scalar, the workspace, the
// precision) changes the spelling.
#include "runtime/gemm_autotune_key.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/text/parser.h"

namespace xlite::runtime {
namespace {

std::string Config(const std::string& lhs_contracting = "1",
                   const std::string& rhs_contracting = "0",
                   const std::string& alpha = "1",
                   const std::string& extra = "") {
  return "{\"gemm_backend_config\":{\"alpha_real\":" + alpha +
         ",\"beta\":0,\"dot_dimension_numbers\":{"
         "\"lhs_contracting_dimensions\":[" +
         lhs_contracting + "],\"rhs_contracting_dimensions\":[" +
         rhs_contracting + "]}" + extra + "}}";
}

std::string Key(const std::string& config, const std::string& a,
                const std::string& b,
                const std::string& result = "(f32[16,8]{1,0}, s8[1024]{0})") {
  absl::StatusOr<GemmDescription> gemm =
      DescribeGemm("__cublas$lt$matmul", config,
                   {*ParseShape(a), *ParseShape(b)}, *ParseShape(result));
  EXPECT_TRUE(gemm.ok()) << gemm.status();
  return gemm.ok() ? CanonicalGemm(*gemm) : "";
}

TEST(GemmAutotuneKey, SpellsTheWholeProblem) {
  EXPECT_EQ(Key(Config(), "f32[16,32]{1,0}", "f32[32,8]{1,0}"),
            "__cublas$lt$matmul f32[16,32]{1,0} x f32[32,8]{1,0} -> "
            "(f32[16,8]{1,0}, s8[1024]{0}) contracting={1}x{0} batch={}x{} "
            "alpha=1 beta=0 epilogue=DEFAULT precision={} "
            "algorithm=ALG_UNSET");
}

TEST(GemmAutotuneKey, EqualGemmsShareAKey) {
  // Built twice, and from configs that differ only in what cuBLASLt never
  // sees (key order, the stream it is queued on, XLA's algorithm hint).
  const std::string first = Key(Config(), "f32[16,32]{1,0}", "f32[32,8]{1,0}");
  EXPECT_EQ(first, Key(Config(), "f32[16,32]{1,0}", "f32[32,8]{1,0}"));
  EXPECT_EQ(first, Key("{\"operation_queue_id\":\"3\",\"gemm_backend_config\":"
                       "{\"selected_algorithm\":\"7\",\"beta\":0,"
                       "\"dot_dimension_numbers\":{"
                       "\"rhs_contracting_dimensions\":[\"0\"],"
                       "\"lhs_contracting_dimensions\":[\"1\"]},"
                       "\"alpha_real\":1}}",
                       "f32[16,32]{1,0}", "f32[32,8]{1,0}"));
}

TEST(GemmAutotuneKey, TransposesLayoutsAndScalarsChangeIt) {
  const std::string plain = Key(Config(), "f32[16,32]{1,0}", "f32[32,8]{1,0}");
  // b stored column-major: cuBLASLt sees a transposed B.
  EXPECT_NE(plain, Key(Config(), "f32[16,32]{1,0}", "f32[32,8]{0,1}"));
  // b given as [8,32] contracting its dimension 1: also a transpose.
  EXPECT_NE(plain, Key(Config("1", "1"), "f32[16,32]{1,0}", "f32[8,32]{1,0}"));
  // alpha printed exactly: 1 + 2^-40 is not 1.
  EXPECT_NE(plain, Key(Config("1", "0", "1.0000000000009095"),
                       "f32[16,32]{1,0}", "f32[32,8]{1,0}"));
  // A different workspace may admit different algorithms.
  EXPECT_NE(plain, Key(Config(), "f32[16,32]{1,0}", "f32[32,8]{1,0}",
                       "(f32[16,8]{1,0}, s8[4194304]{0})"));
  // HIGHEST precision turns TF32 off.
  EXPECT_NE(plain, Key(Config("1", "0", "1",
                              ",\"precision_config\":{\"operand_precision\":["
                              "\"HIGHEST\",\"HIGHEST\"]}"),
                       "f32[16,32]{1,0}", "f32[32,8]{1,0}"));
  EXPECT_NE(plain, Key(Config(), "bf16[16,32]{1,0}", "bf16[32,8]{1,0}",
                       "(bf16[16,8]{1,0}, s8[1024]{0})"));
}

TEST(GemmAutotuneKey, KeysOrderByEveryField) {
  const GemmAutotuneKey a{"gpu", "130100", "91900", "g"};
  EXPECT_EQ(a, (GemmAutotuneKey{"gpu", "130100", "91900", "g"}));
  EXPECT_NE(a, (GemmAutotuneKey{"gpu", "130100", "none", "g"}));
  EXPECT_LT(a, (GemmAutotuneKey{"gpu", "130200", "91900", "g"}));
}

}  // namespace
}  // namespace xlite::runtime
