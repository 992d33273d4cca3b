// The cuDNN graph of block-scaled dots: its tensors and operations for
// each case (MXFP8 pairs, NVFP4, batches, padded scales, global scale),
// and, where cuDNN can be loaded (no GPU needed), every tensor and
// operation descriptor built and finalized by cuDNN itself.

#include "runtime/cuda/cudnn_block_scaled_dot.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hlo/text/parser.h"

namespace xlite::runtime::cuda {
namespace {

BlockScaledDotDescription Describe(const std::vector<std::string>& operands,
                                   const std::string& result) {
  std::vector<Shape> shapes;
  for (const std::string& o : operands) {
    absl::StatusOr<Shape> s = ParseShape(o);
    EXPECT_TRUE(s.ok()) << o;
    shapes.push_back(*s);
  }
  absl::StatusOr<Shape> r = ParseShape(result);
  EXPECT_TRUE(r.ok()) << result;
  absl::StatusOr<BlockScaledDotDescription> d =
      DescribeBlockScaledDot(std::move(shapes), *r);
  EXPECT_TRUE(d.ok()) << d.status();
  return *d;
}

TEST(CudnnBlockScaledDot, MxFp8GraphWithGlobalScale) {
  const BlockScaledDotDescription dot =
      Describe({"f8e4m3fn[128,96]", "f8e5m2[256,96]", "f8e8m0fnu[128,4]",
                "f8e8m0fnu[256,4]", "f32[]"},
               "(f32[128,256], u8[0])");
  EXPECT_EQ(CudnnGraphToString(BlockScaledDotGraph(dot)),
            "tensor 1 a type=12 dims=[1,128,96] strides=[12288,96,1]\n"
            "tensor 2 b type=13 dims=[1,96,256] strides=[24576,1,96]\n"
            "tensor 3 a_scale type=15 dims=[1,128,3] strides=[512,4,1] "
            "F8_128x4\n"
            "tensor 4 b_scale type=15 dims=[1,3,256] strides=[1024,1,4] "
            "F8_128x4\n"
            "tensor 5 global_scale type=0 dims=[1,1,1] strides=[1,1,1]\n"
            "tensor 6 output type=0 dims=[1,128,256] strides=[32768,256,1]\n"
            "tensor 100 a_dequantized type=0 dims=[1,128,96] "
            "strides=[12288,96,1] virtual\n"
            "tensor 101 b_dequantized type=0 dims=[1,96,256] "
            "strides=[24576,1,96] virtual\n"
            "tensor 102 product type=0 dims=[1,128,256] "
            "strides=[32768,256,1] virtual\n"
            "dequantize(1, 3) -> 100 block=32\n"
            "dequantize(2, 4) -> 101 block=32\n"
            "matmul(100, 101) -> 102\n"
            "multiply(102, 5) -> 6\n");
  EXPECT_EQ(BlockScaledDotGraph(dot).argument_uids,
            (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
}

TEST(CudnnBlockScaledDot, NvFp4BatchedGraphWithoutGlobalScale) {
  const BlockScaledDotDescription dot =
      Describe({"f4e2m1fn[2,128,64]", "f4e2m1fn[2,128,64]", "f8e4m3fn[2,128,4]",
                "f8e4m3fn[2,128,4]"},
               "(bf16[2,128,128], u8[0])");
  const CudnnGraphSpec g = BlockScaledDotGraph(dot);
  EXPECT_EQ(g.argument_uids, (std::vector<int64_t>{1, 2, 3, 4, 5}));
  ASSERT_EQ(g.ops.size(), 3u);
  EXPECT_EQ(g.ops[0].block_size, 16);
  EXPECT_EQ(g.ops[2].output, 5);  // the matmul writes the output
  EXPECT_EQ(g.tensors[4].name, "output");
  EXPECT_EQ(g.tensors[4].data_type, dnn::kBFloat16);
  EXPECT_EQ(g.tensors[0].data_type, dnn::kFp4E2M1);
  EXPECT_EQ(g.tensors[2].data_type, dnn::kFp8E4M3);
  EXPECT_EQ(g.tensors[0].dims, (std::vector<int64_t>{2, 128, 64}));
}

TEST(CudnnBlockScaledDot, CudnnFinalizesEveryDescriptorWithoutADevice) {
  if (!LoadCudnn().ok()) {
    GTEST_SKIP() << LoadCudnn().status();
  }
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"f8e4m3fn[128,96]", "f8e4m3fn[128,96]", "f8e8m0fnu[128,4]",
        "f8e8m0fnu[128,4]"},
       "(f16[128,128], u8[0])"},
      {{"f8e4m3fn[128,96]", "f8e5m2[256,96]", "f8e8m0fnu[128,4]",
        "f8e8m0fnu[256,4]", "f32[]"},
       "(f32[128,256], u8[0])"},
      {{"f8e5m2[2,256,128]", "f8e4m3fn[2,128,128]", "f8e8m0fnu[2,256,4]",
        "f8e8m0fnu[2,128,4]", "bf16[]"},
       "(bf16[2,256,128], u8[4096])"},
      {{"f4e2m1fn[2,128,64]", "f4e2m1fn[2,128,64]", "f8e4m3fn[2,128,4]",
        "f8e4m3fn[2,128,4]"},
       "(bf16[2,128,128], u8[0])"},
  };
  for (const auto& [operands, result] : cases) {
    SCOPED_TRACE(result);
    absl::Status s = CheckCudnnGraphDescriptors(Describe(operands, result));
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(CudnnBlockScaledDot, RunnerWithoutADeviceFailsCleanly) {
  // No GPU here: either cuDNN is missing or the handle cannot be made.
  absl::StatusOr<std::unique_ptr<CudnnBlockScaledDotRunner>> runner =
      CudnnBlockScaledDotRunner::Create();
  if (runner.ok()) GTEST_SKIP() << "a device is present";
  EXPECT_FALSE(runner.status().message().empty());
}

}  // namespace
}  // namespace xlite::runtime::cuda
