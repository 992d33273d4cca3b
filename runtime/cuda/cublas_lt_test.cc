// cuBLASLt without a GPU: the library loads (when installed) with every
// entry point the runner binds, or fails with a message naming what was
// tried; and cuBLASLt accepts the descriptors built for a range of GEMMs
// (it checks each attribute's size and value on the host).
#include "runtime/cuda/cublas_lt.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/text/parser.h"

namespace xlite::runtime::cuda {
namespace {

GemmDescription Gemm(const std::string& target, const std::string& epilogue,
                     const std::string& batch, double beta,
                     std::vector<std::string> operands,
                     const std::string& result) {
  const std::string lc = batch.empty() ? "1" : "2";
  const std::string rc = batch.empty() ? "0" : "1";
  const std::string config =
      "{\"gemm_backend_config\":{\"alpha_real\":1,\"beta\":" +
      std::to_string(beta) +
      ",\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":[" + lc +
      "],\"rhs_contracting_dimensions\":[" + rc +
      "],\"lhs_batch_dimensions\":[" + batch + "],\"rhs_batch_dimensions\":[" +
      batch + "]},\"epilogue\":\"" + epilogue + "\"}}";
  std::vector<Shape> shapes;
  for (const std::string& o : operands) shapes.push_back(*ParseShape(o));
  absl::StatusOr<GemmDescription> gemm =
      DescribeGemm(target, config, shapes, *ParseShape(result));
  EXPECT_TRUE(gemm.ok()) << gemm.status();
  return *gemm;
}

TEST(CublasLt, LoadsOrSaysWhatItTried) {
  absl::StatusOr<const lt::Api*> api = LoadCublasLt();
  if (!api.ok()) {
    EXPECT_NE(api.status().message().find("cuBLASLt not found"),
              std::string::npos)
        << api.status();
    GTEST_SKIP() << api.status().message();
  }
}

TEST(CublasLt, AcceptsTheDescriptorsOfEachKindOfGemm) {
  if (!LoadCublasLt().ok()) GTEST_SKIP() << "no cuBLASLt here";
  const std::string lt = "__cublas$lt$matmul";
  const std::vector<GemmDescription> gemms = {
      Gemm(lt, "BIAS_RELU", "", 1,
           {"f32[16,32]{1,0}", "f32[32,8]{1,0}", "f32[16,8]{1,0}", "f32[8]{0}"},
           "(f32[16,8]{1,0}, s8[1024]{0})"),
      Gemm(lt, "BIAS_GELU_AUX", "0", 0,
           {"bf16[2,16,32]{2,1,0}", "bf16[2,32,8]{1,2,0}", "bf16[8]{0}"},
           "(bf16[2,16,8]{2,1,0}, bf16[2,16,8]{2,1,0}, s8[1024]{0})"),
      Gemm(lt, "DEFAULT", "", 0, {"c64[4,4]{0,1}", "c64[4,4]{1,0}"},
           "c64[4,4]{0,1}"),
      Gemm(lt, "DEFAULT", "", 0, {"f64[4,4]{1,0}", "f64[4,4]{1,0}"},
           "f64[4,4]{1,0}"),
      Gemm("__cublas$lt$matmul$f8", "DEFAULT", "", 0,
           {"f8e4m3fn[16,32]{1,0}", "f8e4m3fn[32,8]{0,1}", "f32[]", "f32[]",
            "f32[]", "f32[]"},
           "(f8e4m3fn[16,8]{1,0}, s8[1024]{0})"),
  };
  for (const GemmDescription& g : gemms) {
    EXPECT_TRUE(CheckCublasLtDescriptors(g).ok())
        << GemmDescriptionToString(g) << ": "
        << CheckCublasLtDescriptors(g).message();
  }
}

}  // namespace
}  // namespace xlite::runtime::cuda
