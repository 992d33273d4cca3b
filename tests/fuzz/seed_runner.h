#ifndef XLITE_TESTS_FUZZ_SEED_RUNNER_H_
#define XLITE_TESTS_FUZZ_SEED_RUNNER_H_

// The differential tests' loop (GoogleTest): the random modules of seeds
// first..first+count-1 on `options.backend` against the interpreter; each
// must match or be refused at compile time with a located error. A failure
// prints the module and the cpu_differential command that replays it; the
// outcome counts go to stdout.

#include <cstdint>

#include "tests/fuzz/differential.h"

namespace xlite::fuzz {

void RunSeedsExpectingNoFailure(uint64_t first, uint64_t count,
                                const DifferentialOptions& options);

}  // namespace xlite::fuzz

#endif  // XLITE_TESTS_FUZZ_SEED_RUNNER_H_
