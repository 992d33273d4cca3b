#include "hlo/ir/block_scaled_config.h"

#include <gtest/gtest.h>

namespace xlite {
namespace {

TEST(BlockSizeFromBackendConfig, ReadsXlasSpellings) {
  for (const char* config :
       {R"({"block_scaled_dot_backend_config":{"block_size":32}})",
        R"({"block_scaled_dot_backend_config":{block_size:32}})",
        R"({"block_scaled_dot_backend_config":{"block_size":"32"}})"}) {
    auto block = BlockSizeFromBackendConfig(config);
    ASSERT_TRUE(block.ok()) << config << ": " << block.status().message();
    EXPECT_EQ(*block, 32) << config;
  }
  EXPECT_EQ(*BlockSizeFromBackendConfig(""), std::nullopt);
  EXPECT_EQ(*BlockSizeFromBackendConfig(R"({"other":{"x":1}})"), std::nullopt);
  EXPECT_EQ(
      *BlockSizeFromBackendConfig(R"({"block_scaled_dot_backend_config":{}})"),
      std::nullopt);
  for (const char* bad :
       {"{", R"({"block_scaled_dot_backend_config":{"block_size":-1}})",
        R"({"block_scaled_dot_backend_config":{"block_size":1.5}})",
        R"({"block_scaled_dot_backend_config":{"block_size":"x"}})",
        R"({"block_scaled_dot_backend_config":7})"}) {
    EXPECT_FALSE(BlockSizeFromBackendConfig(bad).ok()) << bad;
  }
}

TEST(ScaledDotDequantizeType, FollowsXla) {
  using T = PrimitiveType;
  EXPECT_EQ(ScaledDotDequantizeType(T::kF8E4M3FN, T::kF8E8M0FNU), T::kBF16);
  EXPECT_EQ(ScaledDotDequantizeType(T::kF4E2M1FN, T::kF8E4M3FN), T::kBF16);
  EXPECT_EQ(ScaledDotDequantizeType(T::kBF16, T::kBF16), T::kBF16);
  EXPECT_EQ(ScaledDotDequantizeType(T::kF16, T::kBF16), T::kF32);
  EXPECT_EQ(ScaledDotDequantizeType(T::kF8E4M3FN, T::kF32), T::kF32);
  EXPECT_EQ(ScaledDotDequantizeType(T::kF16, T::kF8E8M0FNU), T::kF16);
}

}  // namespace
}  // namespace xlite
