#include "gpu_backend/fusion_target.h"

#include <gtest/gtest.h>

namespace xlite::gpu {
namespace {

TEST(FusionTarget, ReadsTheSpecsFigures) {
  absl::StatusOr<GpuTargetSpec> h200 = LoadGpuTargetSpec("h200");
  ASSERT_TRUE(h200.ok());
  const GpuFusionTarget t = FusionTargetFor(*h200);
  EXPECT_DOUBLE_EQ(t.hbm_bytes_per_second,
                   h200->hbm_bandwidth_bytes_per_second);
  EXPECT_EQ(t.sm_count, h200->sm_count);
  EXPECT_EQ(t.shared_memory_per_block, h200->shared_memory_per_block);
  EXPECT_DOUBLE_EQ(t.peak_flops_per_second, h200->peak_tflops.at("f32") * 1e12);
  EXPECT_EQ(t.max_operands_and_outputs, 96);
}

TEST(FusionTarget, AnEmptySpecKeepsTheH100Defaults) {
  const GpuFusionTarget t = FusionTargetFor(GpuTargetSpec{});
  EXPECT_DOUBLE_EQ(t.hbm_bytes_per_second, GpuFusionTarget{}.hbm_bytes_per_second);
  EXPECT_EQ(t.sm_count, 132);
}

}  // namespace
}  // namespace xlite::gpu
