// ThunkProfile: one entry per thunk however often it runs, named by its
// kernel (or, for a GEMM, its instruction), carrying the thunk's cost.
#include "runtime/thunk_profile.h"

#include <gtest/gtest.h>

namespace xlite::runtime {
namespace {

TEST(ThunkProfile, AccumulatesPerThunkInFirstRunOrder) {
  Thunk kernel;
  kernel.kind = Thunk::Kind::kKernel;
  kernel.instruction = "fusion.1";
  kernel.kernel = "fusion_1";
  kernel.cost = {64, 16, "f32", "fusion:kLoop:add"};
  Thunk gemm;
  gemm.kind = Thunk::Kind::kGemm;
  gemm.instruction = "cublas-gemm.2";
  gemm.cost = {128, 1024, "tf32", "gemm"};

  ThunkProfile profile(ThunkProfile::Clock::kEmulatorHostWall);
  profile.Record(gemm, 2e-6);
  profile.Record(kernel, 1e-6);
  profile.Record(kernel, 3e-6);
  profile.RecordRun(1e-5);
  profile.RecordRun(2e-5);

  ASSERT_EQ(profile.entries().size(), 2u);
  const ThunkProfile::Entry& first = profile.entries()[0];
  EXPECT_EQ(first.name, "cublas-gemm.2");
  EXPECT_EQ(first.kind, Thunk::Kind::kGemm);
  EXPECT_EQ(first.calls, 1);
  const ThunkProfile::Entry& second = profile.entries()[1];
  EXPECT_EQ(second.name, "fusion_1");
  EXPECT_EQ(second.instruction, "fusion.1");
  EXPECT_EQ(second.calls, 2);
  EXPECT_DOUBLE_EQ(second.seconds, 4e-6);
  EXPECT_EQ(second.cost, kernel.cost);
  EXPECT_EQ(profile.runs(), 2);
  EXPECT_DOUBLE_EQ(profile.run_seconds(), 3e-5);
  EXPECT_EQ(ClockDescription(profile.clock()), "emulator host wall time");
}

}  // namespace
}  // namespace xlite::runtime
