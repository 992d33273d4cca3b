#ifndef XLITE_RUNTIME_LIVE_RANGES_H_
#define XLITE_RUNTIME_LIVE_RANGES_H_

// One timeline for the whole module and the live range of every value on
// it. A computation that a while, conditional or call runs gets positions
// inside the span of that instruction: the while's operands are read at
// its first position, then the condition and the body run, and its result
// appears at its last; a conditional's branches come one after another.

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "runtime/alias_analysis.h"

namespace xlite::runtime {

/// Positions on the timeline, both ends included.
struct LiveRange {
  int64_t start = 0;
  int64_t end = 0;
  bool Overlaps(const LiveRange& o) const {
    return start <= o.end && o.start <= end;
  }
};

using Schedules = absl::flat_hash_map<const HloComputation*,
                                      std::vector<const HloInstruction*>>;

class LiveRanges {
 public:
  /// `schedules` holds one order per sequential computation of `analysis`.
  static LiveRanges Compute(const AliasAnalysis& analysis,
                            const Schedules& schedules);

  /// A value is live from its definition (a loop-state phi: from the
  /// loop's first position) to its last read, where reads through
  /// forwarding positions count and a computation's root reads what it
  /// returns at the computation's last position (the entry's: one past it).
  const LiveRange& range(int value) const { return ranges_[value]; }
  /// First and last position of an instruction (equal unless it runs a
  /// computation) or of a computation.
  const LiveRange& span(const HloInstruction* instruction) const {
    return spans_.at(instruction);
  }
  const LiveRange& span(const HloComputation* computation) const {
    return computation_spans_.at(computation);
  }

 private:
  void Place(const HloComputation* computation, const Schedules& schedules);

  int64_t next_ = 0;
  absl::flat_hash_map<const HloInstruction*, LiveRange> spans_;
  absl::flat_hash_map<const HloComputation*, LiveRange> computation_spans_;
  std::vector<LiveRange> ranges_;
};

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_LIVE_RANGES_H_
