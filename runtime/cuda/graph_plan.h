#ifndef XLITE_RUNTIME_CUDA_GRAPH_PLAN_H_
#define XLITE_RUNTIME_CUDA_GRAPH_PLAN_H_

// Which parts of a thunk sequence a CUDA graph can hold: runs of thunks
// that never need the host mid-way — kernels, copies, fills, GEMMs, and
// while loops with a known trip count whose body is itself capturable
// (unrolled into the graph, up to a node budget). Conditionals and loops
// that read their predicate back end a run and execute eagerly (their
// own sequences are planned the same way). Runs of a single node gain
// nothing from a graph and stay eager.

#include <cstdint>
#include <vector>

#include "runtime/gpu_thunks.h"

namespace xlite::runtime::cuda {

/// Graph nodes `thunk` becomes when captured, or -1 when it needs the host
/// (or would unroll past `max_nodes`).
int64_t CapturedNodes(const Thunk& thunk, int64_t max_nodes);

struct GraphSegment {
  size_t begin = 0;  // thunks [begin, end)
  size_t end = 0;
  bool capture = false;
};

/// The sequence cut into segments, in order, covering every thunk once.
std::vector<GraphSegment> PlanGraphSegments(const ThunkSequence& thunks,
                                            int64_t max_nodes = 4096);

}  // namespace xlite::runtime::cuda

#endif  // XLITE_RUNTIME_CUDA_GRAPH_PLAN_H_
