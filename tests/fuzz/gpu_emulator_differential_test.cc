// The differential fuzzing of the gpu backend, run on its host emulator,
// against the interpreter for a fixed budget in every `bazel test //...`:
// the random module generator's first seeds (tests/fuzz/random_module.h),
// through the gpu pipeline (fusion, layouts) and without it, and seeds
// with large arrays. Each module
// matches the interpreter or is refused at compile time with a located
// error; the counts show how much of the generator's space the backend
// covers. By hand: cpu_differential --platform=gpu-emulator.
#include <gtest/gtest.h>

#include <string>

#include "gpu_backend/gpu_pipeline.h"
#include "hlo/ir/tiled_gemm_config.h"
#include "tests/fuzz/differential.h"
#include "tests/fuzz/seed_runner.h"

namespace xlite::fuzz {
namespace {

void RunSeeds(uint64_t first, uint64_t count, bool run_passes,
              int64_t max_elements = 256, bool tile_sized_transposes = false) {
  DifferentialOptions options;
  options.backend = Backend::kGpuEmulator;
  options.run_passes = run_passes;
  options.module.max_elements = max_elements;
  options.module.tile_sized_transposes = tile_sized_transposes;
  RunSeedsExpectingNoFailure(first, count, options);
}

TEST(GpuEmulatorDifferential, ThroughTheGpuPipeline) { RunSeeds(0, 150, true); }

TEST(GpuEmulatorDifferential, WithoutPasses) { RunSeeds(300, 75, false); }

// Arrays of up to 16384 elements, dimensions up to 1024: kernels of
// several warps and blocks. The range holds seed 70436 (a reduction fusion
// overwriting an operand it never reads, once refused).
TEST(GpuEmulatorDifferential, LargeArrays) { RunSeeds(70410, 60, true, 16384); }

// Transposes of tile-sized operands: the tiled transpose kernel, with the
// producers and consumers fusion gives it.
TEST(GpuEmulatorDifferential, TiledTransposes) {
  RunSeeds(90000, 60, true, 16384, /*tile_sized_transposes=*/true);
}

// Dot fusion shapes (RandomModuleOptions::dot_fusions) with
// --gemm-backend=tiled: the tiled GEMM fusion pass and kernel over odd and
// tile-sized dimensions, layouts, operand types, producers, epilogues and
// second users, arrays of up to 40000 elements. Most modules must compile
// to at least one tiled GEMM fusion (the others hold only f8 dots, which
// the kernel does not compute), so that refusals or another path cannot
// pass it.
DifferentialOptions TiledGemmOptions(bool run_passes) {
  DifferentialOptions options;
  options.backend = Backend::kGpuEmulator;
  options.run_passes = run_passes;
  options.gemm_backend = gpu::GemmBackend::kTiled;
  options.module.dot_fusions = true;
  options.module.max_elements = 40000;
  return options;
}

TEST(GpuEmulatorDifferential, TiledGemmFusions) {
  constexpr uint64_t kCount = 200;
  const SeedRunSummary summary =
      RunSeedsExpectingNoFailure(0, kCount, TiledGemmOptions(true));
  EXPECT_GE(summary.modules_with_tiled_gemm, kCount * 3 / 4);
  // Nothing here is refused but a fusion the pass formed and the kernel
  // does not compute: a disagreement between the two.
  EXPECT_EQ(summary.outcomes.count("refused"), 0u);
}

// The same without the simplification pipeline: the fusion pass sees the
// producers as drawn, calls not inlined, dead values too.
TEST(GpuEmulatorDifferential, TiledGemmFusionsWithoutPasses) {
  constexpr uint64_t kCount = 80;
  const SeedRunSummary summary =
      RunSeedsExpectingNoFailure(5050, kCount, TiledGemmOptions(false));
  EXPECT_GE(summary.modules_with_tiled_gemm, kCount * 3 / 4);
  EXPECT_EQ(summary.outcomes.count("refused"), 0u);
}

// Every tiled GEMM fusion forced onto Hopper's warpgroups (wgmma, one or
// two warpgroups, 1-4 stages: the multistage pipeline keeps a wgmma
// group in flight where both tiles are copied; TMA tiles, with and
// without a producer warp, where the operands take tensor maps), which
// the heuristic keeps
// for GEMMs larger than these modules. Dots the warpgroups cannot
// multiply (no tensor-core input) are refused, located; no other
// outcome but a match.
TEST(GpuEmulatorDifferential, TiledGemmFusionsOnWarpgroups) {
  uint64_t first = 7000;
  for (const char* tiling :
       {"64x64x32 wgmma groups 1x1 stages 4", "128x64x64 wgmma groups 2x1",
        "64x128x32 wgmma groups 1x2 stages 3",
        "64x64x64 wgmma groups 1x1 stages 4 tma",
        "128x64x64 wgmma groups 2x1 stages 3 tma ws"}) {
    SCOPED_TRACE(tiling);
    DifferentialOptions options = TiledGemmOptions(true);
    options.tiled_gemm_config = ParseTiledGemmConfig(tiling);
    ASSERT_TRUE(options.tiled_gemm_config.has_value());
    constexpr uint64_t kCount = 40;
    const SeedRunSummary summary =
        RunSeedsExpectingNoFailure(first, kCount, options);
    first += kCount;
    EXPECT_GE(summary.modules_with_tiled_gemm, kCount / 2);
  }
}

// Every tiled GEMM fusion forced onto Blackwell's tensor memory (b200:
// tcgen05 multiplies of 128 rows, block_n 48-256, 1-4 stages, operands
// through registers, cp.async or TMA), which the heuristic never
// proposes. As on the warpgroups, only a match or a located refusal.
TEST(GpuEmulatorDifferential, TiledGemmFusionsOnTensorMemory) {
  uint64_t first = 7500;
  for (const char* tiling : {"128x64x32 tcgen05 groups 1x1",
                             "128x128x64 tcgen05 groups 1x1 stages 3",
                             "128x256x32 tcgen05 groups 1x1 stages 3 tma",
                             "128x48x64 tcgen05 groups 1x1 stages 4 tma"}) {
    SCOPED_TRACE(tiling);
    DifferentialOptions options = TiledGemmOptions(true);
    options.gpu_spec = "b200";
    options.tiled_gemm_config = ParseTiledGemmConfig(tiling);
    ASSERT_TRUE(options.tiled_gemm_config.has_value());
    constexpr uint64_t kCount = 30;
    const SeedRunSummary summary =
        RunSeedsExpectingNoFailure(first, kCount, options);
    first += kCount;
    EXPECT_GE(summary.modules_with_tiled_gemm, kCount / 2);
  }
}

// The dot fusion shapes under the default backend (cuBLASLt calls with
// their epilogues where the GEMM rewriter makes them, tiled GEMMs for the
// rest). The range holds seed 326, a bias along M of a column-major
// result that the epilogue fusion once took for a per-column bias.
TEST(GpuEmulatorDifferential, DotFusionsThroughTheDefaultBackend) {
  DifferentialOptions options = TiledGemmOptions(true);
  options.gemm_backend = gpu::GemmBackend::kAuto;
  RunSeedsExpectingNoFailure(300, 100, options);
}

// Dead epilogue steps (no dead code elimination without passes) were
// fused, and the kernel refused the fusion (dot fusion shapes without
// passes, seeds 5060, 5184 and 5778 as first drawn; reduced).
TEST(GpuEmulatorDifferential, TiledGemmFusionWithDeadEpilogueSteps) {
  const std::string text = R"(
HloModule dead_steps
ENTRY e {
  a = s8[20,256]{0,1} parameter(0)
  b = s8[23,256]{0,1} parameter(1)
  dot = s32[20,23] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  m1 = s32[] constant(-1)
  m1s = s32[20,23] broadcast(m1), dimensions={}
  dead = s32[20,23] multiply(dot, m1s)
  neg = s32[20,23] negate(dot)
  x = f32[16,29] parameter(2)
  y = f32[16,59] parameter(3)
  dot2 = f32[29,59] dot(x, y), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  two = f32[] constant(2)
  twos = f32[29,59] broadcast(two), dimensions={}
  scaled = f32[29,59] multiply(dot2, twos)
  sig = f32[29,59] logistic(scaled)
  silu = f32[29,59] multiply(scaled, sig)
  dead2 = f16[29,59] convert(silu)
  neg2 = f32[29,59]{0,1} negate(scaled)
  ROOT t = (s32[20,23], f32[29,59]{0,1}) tuple(neg, neg2)
})";
  const DifferentialResult r = RunDifferential(text, TiledGemmOptions(false));
  EXPECT_STREQ(OutcomeName(r.outcome), "match") << r.message;
  EXPECT_EQ(r.tiled_gemm_fusions, 2);
}

// An f8 GEMM into bf16 (the GEMM rewriter's, not the tiled kernel's) whose
// bias and residual adds the rewriter folds into the call, rounding to bf16
// once where the interpreter rounds three times; the f16 result keeps a
// one-bf16-ulp difference (-1.9297 vs -1.9375), within the tolerance of
// the bf16 dot it comes from (dot_rounding.h). Dot fusion shapes, seed
// 1630 as first drawn; reduced.
TEST(GpuEmulatorDifferential, NarrowGemmRoundedAfterItsEpilogue) {
  const std::string text = R"(
HloModule rounded_once
ENTRY e {
  a = f8e4m3fn[2,2,4]{0,1,2} parameter(0)
  b = f8e5m2[2,56,4]{0,2,1} parameter(1)
  dot = bf16[2,2,56] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}
  bias = bf16[56] parameter(2)
  bb = bf16[2,2,56] broadcast(bias), dimensions={2}
  biased = bf16[2,2,56] add(bb, dot)
  residual = bf16[2,2,56]{0,1,2} parameter(3)
  sum = bf16[2,2,56] add(residual, biased)
  ROOT out = f16[2,2,56] convert(sum)
})";
  const DifferentialResult r = RunDifferential(text, TiledGemmOptions(true));
  EXPECT_STREQ(OutcomeName(r.outcome), "match") << r.message;
}

}  // namespace
}  // namespace xlite::fuzz
