// The CUDA-graph plan: host-free runs are captured, conditionals and
// loops that read their predicate split them, counted loops unroll into a
// run up to the node budget, single nodes stay eager.
#include "runtime/cuda/graph_plan.h"

#include <gtest/gtest.h>

namespace xlite::runtime::cuda {
namespace {

Thunk Of(Thunk::Kind kind) {
  Thunk t;
  t.kind = kind;
  return t;
}

Thunk Loop(int64_t trip_count, ThunkSequence body) {
  Thunk t = Of(Thunk::Kind::kWhile);
  t.trip_count = trip_count;
  t.children = {{Of(Thunk::Kind::kKernel)}, std::move(body)};
  return t;
}

std::string Text(const std::vector<GraphSegment>& segments) {
  std::string out;
  for (const GraphSegment& s : segments) {
    out += (s.capture ? "G[" : "E[") + std::to_string(s.begin) + "," +
           std::to_string(s.end) + ")";
  }
  return out;
}

TEST(GraphPlan, HostFreeRunsAreCaptured) {
  const ThunkSequence seq = {Of(Thunk::Kind::kKernel),
                             Of(Thunk::Kind::kMemcpy),
                             Of(Thunk::Kind::kGemm),
                             Of(Thunk::Kind::kConditional),
                             Of(Thunk::Kind::kMemset)};
  EXPECT_EQ(Text(PlanGraphSegments(seq)), "G[0,3)E[3,4)E[4,5)");
}

TEST(GraphPlan, CountedLoopsUnrollAndOthersSplit) {
  const ThunkSequence body = {Of(Thunk::Kind::kKernel),
                              Of(Thunk::Kind::kKernel)};
  EXPECT_EQ(CapturedNodes(Loop(10, body), 4096), 20);
  EXPECT_EQ(CapturedNodes(Loop(-1, body), 4096), -1);
  EXPECT_EQ(CapturedNodes(Loop(3000, body), 4096), -1);  // past the budget
  EXPECT_EQ(CapturedNodes(Loop(0, body), 4096), 0);
  const ThunkSequence seq = {Of(Thunk::Kind::kKernel), Loop(10, body),
                             Of(Thunk::Kind::kKernel), Loop(-1, body),
                             Of(Thunk::Kind::kKernel)};
  EXPECT_EQ(Text(PlanGraphSegments(seq)), "G[0,3)E[3,4)E[4,5)");
}

TEST(GraphPlan, RunsSplitAtTheNodeBudget) {
  const ThunkSequence seq(5, Of(Thunk::Kind::kKernel));
  EXPECT_EQ(Text(PlanGraphSegments(seq, 2)), "G[0,2)G[2,4)E[4,5)");
  EXPECT_EQ(Text(PlanGraphSegments({})), "");
}

}  // namespace
}  // namespace xlite::runtime::cuda
