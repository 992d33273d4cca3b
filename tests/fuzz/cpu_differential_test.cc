// The differential fuzzing of the cpu backend against the interpreter for
// a fixed budget in every `bazel test //...`: the first seeds' random
// modules (tests/fuzz/random_module.h), through the cpu pipeline and
// without it, each match the interpreter or are refused at compile time
// with a located error. Longer runs by hand: cpu_differential (seed
// ranges, --reduce) and cpu_differential_fuzzer (libFuzzer), see BUILD.
#include <gtest/gtest.h>

#include "tests/fuzz/seed_runner.h"

namespace xlite::fuzz {
namespace {

void RunSeeds(uint64_t first, uint64_t count, bool run_passes) {
  DifferentialOptions options;
  options.run_passes = run_passes;
  RunSeedsExpectingNoFailure(first, count, options);
}

TEST(CpuDifferential, ThroughTheCpuPipeline) { RunSeeds(0, 300, true); }

TEST(CpuDifferential, WithoutPasses) { RunSeeds(300, 150, false); }

}  // namespace
}  // namespace xlite::fuzz
