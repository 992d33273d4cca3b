#ifndef XLITE_RUNTIME_BUFFER_ASSIGNMENT_BUILDER_H_
#define XLITE_RUNTIME_BUFFER_ASSIGNMENT_BUILDER_H_

// Internal to buffer assignment: the steps of BufferAssignment::Build, one
// object per build (buffer_assignment.cc: aliasing decisions;
// buffer_allocations.cc: allocations, packing and slices).

#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "runtime/alias_analysis.h"
#include "runtime/buffer_assignment.h"
#include "runtime/buffer_sets.h"
#include "runtime/live_ranges.h"

namespace xlite::runtime {

class BufferAssignmentBuilder {
 public:
  BufferAssignmentBuilder(const HloModule& module,
                          const BufferAssignmentOptions& options,
                          bool keep_module_order)
      : module_(module),
        options_(options),
        keep_module_order_(keep_module_order) {}

  absl::StatusOr<BufferAssignment> Build();

 private:
  absl::Status ScheduleAll();
  void AliasMust();
  void GrantDonations();
  void GrantInPlace();
  absl::Status CheckInterference() const;
  absl::Status MakeAllocations();
  // Temporaries that fit in an output's bytes before it is written
  // (output_reuse.cc).
  void PlaceTempsInOutputs();
  void PackArena();
  void RecordSlices();
  std::string Describe(int writer, int live) const;
  bool IsEntryParameter(int v) const;
  bool InWhileCondition(const HloInstruction* instruction) const;

  const HloModule& module_;
  const BufferAssignmentOptions& options_;
  const bool keep_module_order_;
  BufferAssignment result_;
  std::optional<AliasAnalysis> analysis_;
  std::optional<LiveRanges> live_;
  std::optional<BufferSets> sets_;
  absl::flat_hash_set<int> donated_;  // entry parameter values
  // Per buffer (representative value): allocation and offset in it.
  absl::flat_hash_map<int, std::pair<int, int64_t>> placement_;
};

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_BUFFER_ASSIGNMENT_BUILDER_H_
