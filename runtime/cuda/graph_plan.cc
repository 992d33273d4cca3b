#include "runtime/cuda/graph_plan.h"

namespace xlite::runtime::cuda {

int64_t CapturedNodes(const Thunk& thunk, int64_t max_nodes) {
  switch (thunk.kind) {
    case Thunk::Kind::kKernel:
    case Thunk::Kind::kMemcpy:
    case Thunk::Kind::kMemset:
    case Thunk::Kind::kGemm:
      return 1;
    case Thunk::Kind::kConditional:
    // cuDNN makes its plan on the first run, not under a capture.
    case Thunk::Kind::kBlockScaledDot:
      return -1;
    case Thunk::Kind::kWhile: {
      if (thunk.trip_count < 0 || thunk.children.size() != 2) return -1;
      int64_t body = 0;
      for (const Thunk& t : thunk.children[1]) {
        const int64_t n = CapturedNodes(t, max_nodes);
        if (n < 0) return -1;
        body += n;
      }
      if (body > 0 && thunk.trip_count > max_nodes / body) return -1;
      return body * thunk.trip_count;
    }
  }
  return -1;
}

std::vector<GraphSegment> PlanGraphSegments(const ThunkSequence& thunks,
                                            int64_t max_nodes) {
  std::vector<GraphSegment> segments;
  size_t i = 0;
  while (i < thunks.size()) {
    // The longest run from i whose nodes fit the budget.
    size_t end = i;
    int64_t nodes = 0;
    while (end < thunks.size()) {
      const int64_t n = CapturedNodes(thunks[end], max_nodes);
      if (n < 0 || nodes + n > max_nodes) break;
      nodes += n;
      ++end;
    }
    if (end == i) {  // needs the host: alone, eager
      segments.push_back({i, i + 1, false});
      i = i + 1;
      continue;
    }
    segments.push_back({i, end, nodes >= 2});
    i = end;
  }
  return segments;
}

}  // namespace xlite::runtime::cuda
