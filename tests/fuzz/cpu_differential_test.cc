// The differential fuzzing of the cpu backend against the interpreter for
// a fixed budget in every `bazel test //...`: the first seeds' random
// modules (tests/fuzz/random_module.h), through the cpu pipeline and
// without it, each match the interpreter or are refused at compile time
// with a located error. Longer runs by hand: cpu_differential (seed
// ranges, --reduce) and cpu_differential_fuzzer (libFuzzer), see BUILD.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <string>

#include "tests/fuzz/differential.h"

namespace xlite::fuzz {
namespace {

void RunSeeds(uint64_t first, uint64_t count, bool run_passes) {
  DifferentialOptions options;
  options.run_passes = run_passes;
  std::map<std::string, int> counts;
  for (uint64_t seed = first; seed < first + count; ++seed) {
    SeededChoices choices(seed);
    const DifferentialResult r = RunDifferential(choices, options);
    ++counts[OutcomeName(r.outcome)];
    EXPECT_FALSE(IsFailure(r.outcome))
        << "seed " << seed << ": " << OutcomeName(r.outcome) << ": "
        << r.message << "\n"
        << r.text
        << "\n(again by hand: bazel run //tests/fuzz:cpu_differential -- "
           "--first_seed="
        << seed << " --seeds=1 --run_passes=" << run_passes
        << " --dump_dir=DIR, then --reduce=DIR/seed_" << seed << ".hlo)";
  }
  std::cout << "seeds " << first << ".." << first + count - 1
            << (run_passes ? " (cpu pipeline):" : " (no passes):");
  for (const auto& [outcome, n] : counts) {
    std::cout << " " << outcome << " " << n << ";";
  }
  std::cout << "\n";
}

TEST(CpuDifferential, ThroughTheCpuPipeline) { RunSeeds(0, 300, true); }

TEST(CpuDifferential, WithoutPasses) { RunSeeds(300, 150, false); }

}  // namespace
}  // namespace xlite::fuzz
