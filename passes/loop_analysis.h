#ifndef XLITE_PASSES_LOOP_ANALYSIS_H_
#define XLITE_PASSES_LOOP_ANALYSIS_H_

// Analyses passes share: the trip count of counted while loops, and which
// values are identical on every replica of a replica group.

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "hlo/ir/module.h"

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

/// Which instructions hold the same value on every device: constants,
/// iotas, all-reduce/all-gather results over one group of every device,
/// and anything computed from replicated values without replica-id/
/// partition-id, rng or infeed. Entry parameters are replicated only where
/// parameter_replication says so. While-loop state is replicated when its
/// initial value and every iteration's value are (a fixed point).
///
/// Beyond that (XLA's partial replication), values that agree only within
/// groups of devices are tracked per device: known integer functions of the
/// device id (replica-id, partition-id, constant tables indexed by them,
/// arithmetic and comparisons on those), results of collectives over
/// several groups, and what is computed from either. A module that does
/// not give its replica count is taken to run on as many replicas as its
/// collectives name.
class ReplicationAnalysis {
 public:
  static ReplicationAnalysis Run(const HloModule& module);
  bool IsReplicated(const HloInstruction* hlo) const;
  /// Whether `hlo` holds the same value on every member of each group of
  /// `collective` (an all-reduce or reduce-scatter).
  bool IsReplicatedWithin(const HloInstruction* hlo,
                          const HloInstruction& collective) const;

 private:
  using Flags = std::vector<bool>;  // per tuple element (one for arrays)
  bool Compute(const HloInstruction* hlo);
  Flags Elements(const HloInstruction* hlo) const;
  void Set(const HloInstruction* hlo, Flags flags);
  void VisitComputation(const HloComputation* c,
                        const std::vector<Flags>& params);
  static bool SameFunctionEverywhere(const HloInstruction* hlo);
  void ComputeDeviceValues(const HloInstruction* hlo);
  std::optional<std::vector<int64_t>> DeviceValues(
      const HloInstruction* hlo) const;
  std::optional<std::vector<int64_t>> KnownValues(
      const HloInstruction* hlo) const;
  std::optional<std::vector<int64_t>> DerivedClasses(
      const HloInstruction* hlo) const;
  std::optional<std::vector<int64_t>> Classes(const HloInstruction* hlo) const;
  absl::flat_hash_map<const HloInstruction*, Flags> replicated_;
  int64_t replicas_ = 1;
  int64_t partitions_ = 1;
  // Every element of the instruction equals values[d] on device d (global
  // id replica * partitions + partition).
  absl::flat_hash_map<const HloInstruction*, std::vector<int64_t>>
      device_values_;
  // Devices with equal labels hold equal values of the instruction (the
  // collective groups and device ids it depends on, not the values).
  absl::flat_hash_map<const HloInstruction*, std::vector<int64_t>>
      device_classes_;
};

/// The groups of global device ids that `collective` reduces over, by XLA's
/// group modes (the evaluator's reading of replica_groups).
std::vector<std::vector<int64_t>> CollectiveDeviceGroups(
    const HloInstruction& collective, int64_t replicas, int64_t partitions);

}  // namespace xlite

#endif  // XLITE_PASSES_LOOP_ANALYSIS_H_
