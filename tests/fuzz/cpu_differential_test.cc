// The differential fuzzing of the cpu backend against the interpreter for
// a fixed budget in every `bazel test //...`: the first seeds' random
// modules (tests/fuzz/random_module.h), through the cpu pipeline and
// without it, each match the interpreter or are refused at compile time
// with a located error. Longer runs by hand: cpu_differential (seed
// ranges, --reduce) and cpu_differential_fuzzer (libFuzzer), see BUILD.
#include <gtest/gtest.h>

#include "tests/fuzz/differential.h"
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

// A loop fusion's tuple of a scalar reduce and an array of another shape:
// the array's walk took the reduce's lanes and read past its dimensions
// (a segfault at compile time; seed 4837 as first drawn, reduced).
TEST(CpuDifferential, TupleOfAReduceAndAnotherShape) {
  const DifferentialResult r = RunDifferential(R"(
HloModule m
%mul {
  %a = f8e8m0fnu[] parameter(0)
  %b = f8e8m0fnu[] parameter(1)
  ROOT %m = f8e8m0fnu[] multiply(%a, %b)
}
%fused {
  %p0 = u16[2,3,2] parameter(0)
  %one = f8e8m0fnu[] constant(1)
  %r = f8e8m0fnu[] reduce(%one, %one), dimensions={}, to_apply=%mul
  ROOT %t = (f8e8m0fnu[], u16[2,3,2]) tuple(%r, %p0)
}
ENTRY %main {
  %p = u16[2,3,2] parameter(0)
  ROOT %f = (f8e8m0fnu[], u16[2,3,2]) fusion(%p), kind=kLoop, calls=%fused
}
)");
  EXPECT_EQ(r.outcome, Outcome::kMatch) << r.message;
}

}  // namespace
}  // namespace xlite::fuzz
