#ifndef XLITE_TESTS_FUZZ_SEED_RUNNER_H_
#define XLITE_TESTS_FUZZ_SEED_RUNNER_H_

// The differential tests' loop (GoogleTest): the random modules of seeds
// first..first+count-1 on `options.backend` against the interpreter; each
// must match or be refused at compile time with a located error. A failure
// prints the module and the cpu_differential command that replays it; the
// outcome counts go to stdout.

#include <cstdint>
#include <map>
#include <string>

#include "tests/fuzz/differential.h"

namespace xlite::fuzz {

/// What a range of seeds did, for tests that must not pass vacuously.
struct SeedRunSummary {
  std::map<std::string, int64_t> outcomes;  // per OutcomeName
  /// Modules whose compiled form holds a tiled GEMM fusion, and how many
  /// such fusions they hold in all (gpu).
  int64_t modules_with_tiled_gemm = 0;
  int64_t tiled_gemm_fusions = 0;
};

SeedRunSummary RunSeedsExpectingNoFailure(uint64_t first, uint64_t count,
                                          const DifferentialOptions& options);

}  // namespace xlite::fuzz

#endif  // XLITE_TESTS_FUZZ_SEED_RUNNER_H_
