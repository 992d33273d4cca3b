#ifndef XLITE_PASSES_ALL_REDUCE_CODE_MOTION_MATCH_H_
#define XLITE_PASSES_ALL_REDUCE_CODE_MOTION_MATCH_H_

// The patterns of while-loop-all-reduce-code-motion: which collectives in a
// loop body may run once after the loop instead of once per iteration, and
// where their results accumulate. Matching only reads the IR; the rewrite
// lives in while_loop_all_reduce_code_motion.cc.

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "hlo/ir/module.h"
#include "passes/loop_analysis.h"

namespace xlite {

/// A loop body and every while loop that runs it: a rewrite must hold for
/// all of them, since they share the body.
struct LoopBody {
  HloComputation* body = nullptr;
  std::vector<HloInstruction*> loops;
  const ReplicationAnalysis* replication = nullptr;
};

/// How a moved collective's total is rebuilt after the loop.
enum class MoveKind {
  /// The buffer starts at zero, the loop sums unreduced values, and the
  /// collective of the total is added to the old initial value.
  kAccumulate,
  /// The loop writes the collective's values into `region` of the buffer
  /// (dynamic-update-slice pattern): that region is reduced after the loop
  /// and written back; the rest of the buffer is kept.
  kRegion,
  /// A reduce-scatter: the buffer widens to the unscattered shape inside
  /// the loop and is scattered once after it.
  kReduceScatter,
};

/// One loop-carried buffer (tuple element `index`) that a movable
/// collective feeds. A collective may feed several buffers (through
/// slices, say); it moves only if all of its uses are accumulations.
struct Accumulation {
  HloInstruction* collective = nullptr;
  int64_t index = 0;
  MoveKind kind = MoveKind::kAccumulate;
  /// kRegion: [start, limit) per buffer dimension.
  std::vector<std::pair<int64_t, int64_t>> region;
  /// kReduceScatter: the accumulating add and the buffer's element read,
  /// whose shapes widen.
  HloInstruction* scatter_add = nullptr;
  HloInstruction* scatter_buffer = nullptr;
};

/// Every accumulation `collective` (an all-reduce, or a reduce-scatter
/// when `enable_reduce_scatter`) feeds in `body`, when it can move out of
/// all of the body's loops; empty otherwise. Patterns are tried in XLA's
/// order: dynamic-update-slice, scatter, accumulation.
std::vector<Accumulation> MatchCollective(HloInstruction* collective,
                                          const LoopBody& body,
                                          bool enable_reduce_scatter);

}  // namespace xlite

#endif  // XLITE_PASSES_ALL_REDUCE_CODE_MOTION_MATCH_H_
