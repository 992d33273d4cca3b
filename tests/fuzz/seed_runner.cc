#include "tests/fuzz/seed_runner.h"

#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <string>

namespace xlite::fuzz {

void RunSeedsExpectingNoFailure(uint64_t first, uint64_t count,
                                const DifferentialOptions& options) {
  const char* platform = BackendName(options.backend);
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
           "--platform="
        << platform << " --first_seed=" << seed
        << " --seeds=1 --run_passes=" << options.run_passes
        << " --max_elements=" << options.module.max_elements
        << (options.module.tile_sized_transposes
                ? " --tile_sized_transposes"
                : "")
        << " --dump_dir=DIR, then --reduce=DIR/seed_" << seed << ".hlo)";
  }
  std::cout << "seeds " << first << ".." << first + count - 1 << " ("
            << platform << (options.run_passes ? ", its pipeline):" : ", no passes):");
  for (const auto& [outcome, n] : counts) {
    std::cout << " " << outcome << " " << n << ";";
  }
  std::cout << "\n";
}

}  // namespace xlite::fuzz
