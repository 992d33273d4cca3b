// Measured --gemm-backend=auto paths: the cache file's round trip and its
// located errors, tilings as the cache writes them, region fingerprints
// that ignore names and metadata, the pipeline taking the cache's path
// over the cost model's, and the variants hlo-opt --gemm-path-variants
// writes for a device to time.
#include "gpu_backend/gemm_path_cache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gpu_backend/gemm_backend_choice.h"
#include "gpu_backend/gemm_path_variants.h"
#include "gpu_backend/gemm_test_modules.h"
#include "gpu_backend/gpu_pipeline.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/opcode.h"
#include "hlo/text/parser.h"

namespace xlite::gpu {
namespace {

using gemm_test::CountTiledFusions;
using gemm_test::FindDot;
using gemm_test::H100;
using gemm_test::Parse;

// A bf16 dot of m x n x k named `dot`, optionally with op_name metadata.
std::string DotModule(int64_t m, int64_t n, int64_t k,
                      const std::string& dot = "d",
                      const std::string& metadata = "") {
  return absl::StrCat(
      "HloModule t\n\nENTRY e {\n  a = bf16[", m, ",", k,
      "] parameter(0)\n  b = bf16[", k, ",", n, "] parameter(1)\n  ROOT ", dot,
      " = bf16[", m, ",", n,
      "] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
      metadata, "\n}\n");
}

TEST(TiledGemmConfigText, RoundTrips) {
  TiledGemmConfig mma;
  mma.block_m = 128;
  mma.block_n = 64;
  mma.block_k = 32;
  mma.warps_m = 2;
  mma.warps_n = 2;
  mma.stages = 2;
  TiledGemmConfig simt;  // the defaults: 64x64x16 simt threads 4x4
  TiledGemmConfig ws;    // 128x128x64 wgmma groups 2x1 stages 4 tma ws
  ws.block_m = ws.block_n = 128;
  ws.block_k = 64;
  ws.warps_m = 2;
  ws.warps_n = 1;
  ws.wgmma = ws.tma = ws.ws = 1;
  ws.stages = 4;
  EXPECT_EQ(ws.ToString(), "128x128x64 wgmma groups 2x1 stages 4 tma ws");
  EXPECT_EQ(ws.launch_threads(true), 288);
  EXPECT_EQ(ws.launch_threads(false), 256);
  TiledGemmConfig blackwell;  // 128x256x64 tcgen05 groups 1x1 stages 4 tma
  blackwell.block_m = 128;
  blackwell.block_n = 256;
  blackwell.block_k = 64;
  blackwell.warps_m = blackwell.warps_n = 1;
  blackwell.wgmma = blackwell.tma = blackwell.tcgen05 = 1;
  blackwell.stages = 4;
  EXPECT_EQ(blackwell.ToString(), "128x256x64 tcgen05 groups 1x1 stages 4 tma");
  EXPECT_EQ(blackwell.launch_threads(true), 128);
  EXPECT_TRUE(absl::StrContains(TiledGemmBackendConfig(blackwell),
                                R"("wgmma":1,"tcgen05":1)"));
  for (const TiledGemmConfig& c : {mma, simt, ws, blackwell}) {
    std::optional<TiledGemmConfig> back = ParseTiledGemmConfig(c.ToString());
    ASSERT_TRUE(back.has_value()) << c.ToString();
    EXPECT_EQ(*back, c) << c.ToString();
  }
  for (const char* bad :
       {"", "cublaslt", "128x64 mma warps 2x2", "128x64x32 mma warps 2x2x1",
        "128x64x32 wgmma warps 2x2", "128x64x32 mma warps 2x2 stages 1",
        "128x64x32 mma warps 3x2", "-1x64x32 mma warps 2x2",
        "128x128x64 wgmma groups 2x1 stages 4 ws",
        "128x128x64 wgmma groups 2x1 stages 4 ws tma",
        "64x128x64 tcgen05 groups 1x1 stages 4",
        "128x128x64 tcgen05 groups 2x1 stages 4",
        "128x120x64 tcgen05 groups 1x1",
        "128x128x64 tcgen05 groups 1x1 "
        "stages 4 tma ws"}) {
    EXPECT_FALSE(ParseTiledGemmConfig(bad).has_value()) << bad;
  }
}

TEST(GemmPathCache, RoundTripsAndLaterLinesWin) {
  const std::string text =
      "xlite-gemm-path-cache 1\n"
      "# a comment\n"
      "\n"
      "gpu=h100 region=00112233445566ff path=cublaslt us=10.5\n"
      "gpu=\"h200\" path=\"64x64x32 mma warps 2x2 stages 2\" "
      "region=0123456789abcdef\n"
      "gpu=h100 region=00112233445566ff path=\"128x128x32 mma warps 2x2\"\n";
  absl::StatusOr<GemmPathCache> cache = GemmPathCache::Parse(text, "c.txt");
  ASSERT_TRUE(cache.ok()) << cache.status();
  EXPECT_EQ(cache->size(), 2u);
  const GemmPathEntry* h100 = cache->Find("h100", "00112233445566ff");
  ASSERT_NE(h100, nullptr);
  EXPECT_EQ(h100->PathName(), "128x128x32 mma warps 2x2");
  EXPECT_LT(h100->microseconds, 0);
  EXPECT_EQ(cache->Find("h200", "00112233445566ff"), nullptr);
  absl::StatusOr<GemmPathCache> again =
      GemmPathCache::Parse(cache->ToText(), "again.txt");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->ToText(), cache->ToText());
  EXPECT_TRUE(GemmPathCache::Parse("", "empty").ok());
}

TEST(GemmPathCache, LocatedErrors) {
  const std::string header = "xlite-gemm-path-cache 1\n";
  const std::pair<std::string, std::string> cases[] = {
      {"xlite-gemm-path-cache 2\n",
       "c:1:1: error: GEMM path cache format version '2'; this xlite reads 1"},
      {"hello\n", "c:1:1: error: not an xlite GEMM path cache"},
      {header + "gpu=h100 region=00112233445566ff\n",
       "c:2:1: error: entry without 'path'"},
      {header + "gpu=h100 region=0011 path=cublaslt\n",
       "c:2:17: error: region must be 16 lower-case hex digits"},
      {header + "gpu=h100 region=00112233445566ff path=\"64x64 mma\"\n",
       "c:2:39: error: path must be \"cublaslt\" or a tiling"},
      {header + "gpu=h100 colour=red\n",
       "c:2:10: error: unknown field 'colour'; expected gpu, region, path or "
       "us"},
      {header + "gpu=h100 region=00112233445566ff path=cublaslt us=-3\n",
       "c:2:51: error: us must be a time in microseconds"},
  };
  for (const auto& [text, error] : cases) {
    absl::StatusOr<GemmPathCache> cache = GemmPathCache::Parse(text, "c");
    ASSERT_FALSE(cache.ok()) << text;
    EXPECT_TRUE(absl::StartsWith(cache.status().message(), error))
        << cache.status().message() << "\nwanted: " << error;
  }
}

TEST(GemmPathCache, FingerprintsIgnoreNamesAndMetadata) {
  std::unique_ptr<HloModule> one = Parse(DotModule(256, 512, 128));
  std::unique_ptr<HloModule> two = Parse(DotModule(
      256, 512, 128, "another_name", ", metadata={op_name=\"jit(f)/dot\"}"));
  std::unique_ptr<HloModule> other = Parse(DotModule(256, 512, 64));
  const std::string a =
      GemmRegionFingerprint(*ExtractTiledGemmRegion(FindDot(*one)));
  EXPECT_EQ(a.size(), 16u);
  EXPECT_EQ(a, GemmRegionFingerprint(*ExtractTiledGemmRegion(FindDot(*two))));
  EXPECT_NE(a, GemmRegionFingerprint(*ExtractTiledGemmRegion(FindDot(*other))));
}

TEST(GemmPathCache, ThePipelineTakesTheCachedPath) {
  // The cost model keeps this large GEMM with cuBLASLt; the cache, as if
  // measured, says a tiling.
  const std::string text = DotModule(4096, 4096, 4096);
  std::unique_ptr<HloModule> module = Parse(text);
  const std::string region =
      GemmRegionFingerprint(*ExtractTiledGemmRegion(FindDot(*module)));
  absl::StatusOr<GemmPathCache> cache = GemmPathCache::Parse(
      absl::StrCat("xlite-gemm-path-cache 1\ngpu=h100 region=", region,
                   " path=\"64x128x32 mma warps 2x2 stages 2\"\n"),
      "c");
  ASSERT_TRUE(cache.ok()) << cache.status();
  GpuPipelineOptions options;
  options.gemm_path_cache = &*cache;
  ASSERT_TRUE(PrepareForGpu(*module, H100(), options).ok());
  std::string tiling;
  EXPECT_EQ(CountTiledFusions(*module, &tiling), 1);
  EXPECT_EQ(tiling, "64x128x32 mma warps 2x2 stages 2");

  // Another GPU's entry does not apply.
  std::unique_ptr<HloModule> b200 = Parse(text);
  absl::StatusOr<GpuTargetSpec> spec = LoadGpuTargetSpec("b200");
  ASSERT_TRUE(spec.ok());
  ASSERT_TRUE(PrepareForGpu(*b200, *spec, options).ok());
  EXPECT_EQ(CountTiledFusions(*b200), 0);

  // "cublaslt" keeps a dot the cost model would fuse.
  const std::string silu =
      "HloModule t\n\nENTRY e {\n  a = bf16[2048,256] parameter(0)\n"
      "  b = bf16[256,2048] parameter(1)\n"
      "  d = bf16[2048,2048] dot(a, b), lhs_contracting_dims={1}, "
      "rhs_contracting_dims={0}\n  e = bf16[2048,2048] parameter(2)\n"
      "  ROOT y = bf16[2048,2048] multiply(d, e)\n}\n";
  std::unique_ptr<HloModule> fused = Parse(silu);
  ASSERT_TRUE(PrepareForGpu(*fused, H100()).ok());
  EXPECT_EQ(CountTiledFusions(*fused), 1);
  std::unique_ptr<HloModule> kept = Parse(silu);
  absl::StatusOr<GemmPathCache> library = GemmPathCache::Parse(
      absl::StrCat(
          "xlite-gemm-path-cache 1\ngpu=h100 path=cublaslt region=",
          GemmRegionFingerprint(*ExtractTiledGemmRegion(FindDot(*kept)))),
      "c");
  ASSERT_TRUE(library.ok()) << library.status();
  options.gemm_path_cache = &*library;
  ASSERT_TRUE(PrepareForGpu(*kept, H100(), options).ok());
  EXPECT_EQ(CountTiledFusions(*kept), 0);
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(GemmPathCache, AnUnsuitableCachedTilingFallsBackToTheHeuristic) {
  // A CUDA-core tiling of 4 stages, which the emitter does not run as
  // asked: the fusion gets the heuristic's tiling instead.
  const std::string text = DotModule(4096, 4096, 4096);
  std::unique_ptr<HloModule> module = Parse(text);
  absl::StatusOr<GemmPathCache> cache = GemmPathCache::Parse(
      absl::StrCat(
          "xlite-gemm-path-cache 1\ngpu=h100 path=\"64x64x16 simt threads "
          "4x4 stages 4\" region=",
          GemmRegionFingerprint(*ExtractTiledGemmRegion(FindDot(*module)))),
      "c");
  ASSERT_TRUE(cache.ok()) << cache.status();
  GpuPipelineOptions options;
  options.gemm_path_cache = &*cache;
  ASSERT_TRUE(PrepareForGpu(*module, H100(), options).ok());
  std::string tiling;
  EXPECT_EQ(CountTiledFusions(*module, &tiling), 1);
  EXPECT_TRUE(absl::StrContains(tiling, "mma")) << tiling;
}

TEST(GemmPathVariants, WritesEachPathOfEachDistinctRegion) {
  // Two equal dots (one region) and a third of another shape.
  const std::string text =
      "HloModule t\n\nENTRY e {\n  a = bf16[96,64] parameter(0)\n"
      "  b = bf16[64,80] parameter(1)\n"
      "  d1 = bf16[96,80] dot(a, b), lhs_contracting_dims={1}, "
      "rhs_contracting_dims={0}\n"
      "  c = bf16[96,64] parameter(2)\n"
      "  d2 = bf16[96,80] dot(c, b), lhs_contracting_dims={1}, "
      "rhs_contracting_dims={0}\n"
      "  e = bf16[64,48] parameter(3)\n"
      "  d3 = bf16[96,48] dot(a, e), lhs_contracting_dims={1}, "
      "rhs_contracting_dims={0}\n"
      "  ROOT t = (bf16[96,80], bf16[96,80], bf16[96,48]) tuple(d1, d2, d3)\n"
      "}\n";
  std::unique_ptr<HloModule> module = Parse(text);
  const std::filesystem::path dir =
      std::filesystem::path(testing::TempDir()) / "variants";
  absl::StatusOr<int64_t> regions =
      WriteGemmPathVariants(*module, H100(), dir.string(), /*device=*/false);
  ASSERT_TRUE(regions.ok()) << regions.status();
  EXPECT_EQ(*regions, 2);
  EXPECT_EQ(ReadFile(dir / "gpu.txt"), "h100\n");
  int64_t seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.is_directory()) continue;
    ++seen;
    EXPECT_TRUE(std::filesystem::exists(entry.path() / "region.hlo"));
    EXPECT_TRUE(std::filesystem::exists(entry.path() / "cublaslt.xlx"));
    const std::string paths = ReadFile(entry.path() / "paths.txt");
    EXPECT_TRUE(absl::StartsWith(paths, "cublaslt.xlx cublaslt\n")) << paths;
    EXPECT_TRUE(absl::StrContains(paths, "tiled_0.xlx ")) << paths;
    EXPECT_TRUE(std::filesystem::exists(entry.path() / "tiled_0.xlx"));
    // The directory is the region's fingerprint.
    std::unique_ptr<HloModule> region =
        Parse(ReadFile(entry.path() / "region.hlo"));
    EXPECT_EQ(GemmRegionFingerprint(*region), entry.path().filename());
  }
  EXPECT_EQ(seen, 2);
}

// The opt-in TMA and warp-specialized forms of the heuristic's warpgroup
// pipelines are measured too, so a device can pick them.
TEST(GemmPathVariants, MeasuresTmaAndWarpSpecializedForms) {
  std::unique_ptr<HloModule> module = Parse(DotModule(1024, 1024, 1024));
  const std::filesystem::path dir =
      std::filesystem::path(testing::TempDir()) / "variants_tma";
  absl::StatusOr<int64_t> regions =
      WriteGemmPathVariants(*module, H100(), dir.string(), /*device=*/false);
  ASSERT_TRUE(regions.ok()) << regions.status();
  ASSERT_EQ(*regions, 1);
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.is_directory()) continue;
    const std::string paths = ReadFile(entry.path() / "paths.txt");
    EXPECT_TRUE(absl::StrContains(paths, " wgmma groups ")) << paths;
    EXPECT_TRUE(absl::StrContains(paths, " tma\n")) << paths;
    EXPECT_TRUE(absl::StrContains(paths, " tma ws\n")) << paths;
    EXPECT_FALSE(absl::StrContains(paths, "# ")) << paths;
  }
}

}  // namespace
}  // namespace xlite::gpu
