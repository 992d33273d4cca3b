#ifndef XLITE_PASSES_LOOP_ANALYSIS_H_
#define XLITE_PASSES_LOOP_ANALYSIS_H_

// Analyses passes share: the trip count of counted while loops, and which
// values are identical on every replica of a replica group.

#include <cstdint>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "hlo/module.h"

namespace xlite {

/// The value of a scalar integer constant instruction.
std::optional<int64_t> ScalarIntConstant(const HloInstruction* hlo);

/// A counted loop: tuple element `index` starts at `init`, the body adds
/// `step`, and the condition runs while it is below `bound` (or the like).
struct CountedLoop {
  int64_t index = 0;
  int64_t init = 0;
  int64_t step = 0;
  int64_t bound = 0;
  int64_t trip_count = 0;
};

/// The induction variable and trip count of `loop` (a while with tuple
/// state), when its initial value, step and bound are constants; nullopt
/// otherwise.
std::optional<CountedLoop> AnalyzeCountedLoop(const HloInstruction& loop);

/// Which instructions hold the same value on every replica (within each
/// replica group of the collectives that define them): constants, iotas,
/// all-reduce/all-gather results, and anything computed from replicated
/// values without replica-id/partition-id, rng or infeed. Entry parameters
/// are replicated only where parameter_replication says so. While-loop
/// state is replicated when its initial value and every iteration's value
/// are (a fixed point).
class ReplicationAnalysis {
 public:
  static ReplicationAnalysis Run(const HloModule& module);
  bool IsReplicated(const HloInstruction* hlo) const;

 private:
  using Flags = std::vector<bool>;  // per tuple element (one for arrays)
  bool Compute(const HloInstruction* hlo);
  Flags Elements(const HloInstruction* hlo) const;
  void Set(const HloInstruction* hlo, Flags flags);
  void VisitComputation(const HloComputation* c,
                        const std::vector<Flags>& params);
  absl::flat_hash_map<const HloInstruction*, Flags> replicated_;
};

}  // namespace xlite

#endif  // XLITE_PASSES_LOOP_ANALYSIS_H_
