#include "gpu_backend/target_spec.h"

#include <gtest/gtest.h>

#include <fstream>

namespace xlite::gpu {
namespace {

TEST(TargetSpec, Presets) {
  auto h100 = LoadGpuTargetSpec("H100");
  ASSERT_TRUE(h100.ok());
  EXPECT_EQ(h100->compute_capability_major, 9);
  EXPECT_FALSE(h100->IsBlackwellOrNewer());
  EXPECT_EQ(h100->cudnn.ToString(), "9.19.0");
  auto b200 = LoadGpuTargetSpec("b200");
  ASSERT_TRUE(b200.ok());
  EXPECT_TRUE(b200->IsBlackwellOrNewer());
  EXPECT_FALSE(LoadGpuTargetSpec("tpu").ok());
  EXPECT_EQ(h100->SmName(), "sm_90a");
  EXPECT_EQ(b200->SmName(), "sm_100a");
  EXPECT_GT(b200->peak_tflops.at("f4"), 0);
  EXPECT_EQ(h100->peak_tflops.at("f4"), 0);
}

TEST(TargetSpec, LocalGpuOrACleanError) {
  // Without a GPU (CI), the query reports that plainly; with one, the
  // device's facts come back.
  auto local = QueryLocalGpu();
  if (!local.ok()) {
    EXPECT_NE(local.status().message().find("no CUDA device"),
              std::string::npos)
        << local.status().message();
  } else {
    EXPECT_GT(local->compute_capability_major, 0);
    EXPECT_GT(local->sm_count, 0);
  }
}

TEST(TargetSpec, FeatureVariantsAndPeaksInFiles) {
  const std::string path = ::testing::TempDir() + "/gb300.spec";
  {
    std::ofstream out(path);
    out << "compute_capability: 10.3a\nsm_count: 160\n"
           "peak_tflops_f4: 15000\nregisters_per_sm: 65536\n";
  }
  auto spec = LoadGpuTargetSpec(path);
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->SmName(), "sm_103a");
  EXPECT_EQ(spec->peak_tflops.at("f4"), 15000);
  {
    std::ofstream out(path);
    out << "compute_capability: 12.1f\n";
  }
  EXPECT_EQ(LoadGpuTargetSpec(path)->SmName(), "sm_121f");
}

TEST(TargetSpec, CudnnVersions) {
  auto v = ParseCudnnVersion("9.10");
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->AtLeast(9, 10));
  EXPECT_FALSE(v->AtLeast(9, 13));
  EXPECT_TRUE(v->available());
  auto none = ParseCudnnVersion("0");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->available());
  EXPECT_FALSE(ParseCudnnVersion("9.x").ok());
  EXPECT_FALSE(ParseCudnnVersion("1.2.3.4").ok());
}

TEST(TargetSpec, SpecFile) {
  const std::string path = ::testing::TempDir() + "/gpu.spec";
  {
    std::ofstream out(path);
    out << "# a test GPU\nname: test\ncompute_capability: 10.0\n"
           "sm_count: 8\ncudnn_version: 9.12.1\nhbm_bandwidth_gbps: 100\n";
  }
  auto spec = LoadGpuTargetSpec(path);
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->name, "test");
  EXPECT_EQ(spec->sm_count, 8);
  EXPECT_EQ(spec->cudnn.ToString(), "9.12.1");
  {
    std::ofstream out(path);
    out << "compute_capability: 9.0\nwarp_size: 32\n";
  }
  auto bad = LoadGpuTargetSpec(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            path + ":2:1: error: unknown key 'warp_size'");
}

}  // namespace
}  // namespace xlite::gpu
