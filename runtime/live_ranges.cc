#include "runtime/live_ranges.h"

#include <algorithm>

namespace xlite::runtime {

void LiveRanges::Place(const HloComputation* computation,
                       const Schedules& schedules) {
  const int64_t first = next_;
  for (const HloInstruction* h : schedules.at(computation)) {
    LiveRange span;
    span.start = next_++;
    switch (h->opcode()) {
      case HloOpcode::kWhile:
        Place(h->while_condition(), schedules);
        Place(h->while_body(), schedules);
        span.end = next_++;
        break;
      case HloOpcode::kConditional:
      case HloOpcode::kCall:
        for (const HloComputation* callee : h->called_computations()) {
          Place(callee, schedules);
        }
        span.end = next_++;
        break;
      default:
        span.end = span.start;
        break;
    }
    spans_[h] = span;
  }
  computation_spans_[computation] = {first, std::max(first, next_ - 1)};
}

LiveRanges LiveRanges::Compute(const AliasAnalysis& analysis,
                               const Schedules& schedules) {
  LiveRanges live;
  const HloComputation* entry = analysis.module().entry_computation();
  live.Place(entry, schedules);
  const int64_t program_end = live.next_;

  live.ranges_.resize(analysis.values().size());
  for (const HloValue& value : analysis.values()) {
    const HloInstruction* definer = value.instruction;
    int64_t start = live.spans_.at(definer).end;
    if (definer->opcode() == HloOpcode::kParameter) {
      const HloInstruction* caller = analysis.Caller(definer->parent());
      // Entry parameters exist before anything runs; loop state from the
      // loop's first position on.
      start = caller == nullptr ? 0 : live.spans_.at(caller).start;
    }
    live.ranges_[value.id] = {start, start};
  }
  for (const HloComputation* computation :
       analysis.sequential_computations()) {
    for (const HloInstruction* h : schedules.at(computation)) {
      const int64_t at = live.spans_.at(h).start;
      for (int v : analysis.ValuesRead(h)) {
        live.ranges_[v].end = std::max(live.ranges_[v].end, at);
      }
    }
    const int64_t end = computation == entry
                            ? program_end
                            : live.computation_spans_.at(computation).end;
    for (const auto& [leaf, v] :
         analysis.Leaves(computation->root_instruction())) {
      live.ranges_[v].end = std::max(live.ranges_[v].end, end);
    }
  }
  return live;
}

}  // namespace xlite::runtime
