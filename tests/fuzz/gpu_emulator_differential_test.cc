// The differential fuzzing of the gpu backend, run on its host emulator,
// against the interpreter for a fixed budget in every `bazel test //...`:
// the random module generator's first seeds (tests/fuzz/random_module.h),
// through the gpu pipeline (fusion, layouts) and without it, and seeds
// with large arrays. Each module
// matches the interpreter or is refused at compile time with a located
// error; the counts show how much of the generator's space the backend
// covers. By hand: cpu_differential --platform=gpu-emulator.
#include <gtest/gtest.h>

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
TEST(GpuEmulatorDifferential, LargeArrays) {
  RunSeeds(70410, 60, true, 16384);
}

// Transposes of tile-sized operands: the tiled transpose kernel, with the
// producers and consumers fusion gives it.
TEST(GpuEmulatorDifferential, TiledTransposes) {
  RunSeeds(90000, 60, true, 16384, /*tile_sized_transposes=*/true);
}

}  // namespace
}  // namespace xlite::fuzz
