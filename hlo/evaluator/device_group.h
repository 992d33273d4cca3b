#ifndef XLITE_HLO_EVALUATOR_DEVICE_GROUP_H_
#define XLITE_HLO_EVALUATOR_DEVICE_GROUP_H_

// Simulated devices for the evaluator: one thread per device, and the
// rendezvous through which collectives (collectives.cc) exchange values.

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/ir/literal.h"

namespace xlite::eval {

class DeviceGroup {
 public:
  DeviceGroup(int64_t replicas, int64_t partitions);

  int64_t replicas() const { return replicas_; }
  int64_t partitions() const { return partitions_; }
  int64_t size() const { return replicas_ * partitions_; }

  /// `device` contributes `value` to the collective `key` whose
  /// participants are `participants` (device ids, including `device`, the
  /// same list on every participant). Returns every participant's value in
  /// participant order once all have arrived. If every device that has not
  /// finished is waiting and none of the waits can complete, all waiting
  /// devices get a deadlock error naming what each waits for.
  absl::StatusOr<std::vector<Literal>> Exchange(
      int64_t device, const std::string& key,
      const std::vector<int64_t>& participants, Literal value);

  /// `device` has finished (it will join no more collectives).
  void Finish(int64_t device);

 private:
  struct Pending {
    std::vector<int64_t> participants;
    std::map<int64_t, Literal> values;
    std::vector<Literal> result;
    bool complete = false;
    int64_t taken = 0;
  };
  // Called with mu_ held: is everyone stuck?
  bool Deadlocked() const;

  const int64_t replicas_;
  const int64_t partitions_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Pending> pending_;
  std::vector<std::string> waiting_;  // per device: key, or "" if running
  std::vector<bool> finished_;
  std::string deadlock_;  // set once a deadlock is found
};

/// Runs the entry computation on every device of a group (see
/// EvaluateOnDevices).
absl::StatusOr<std::vector<Literal>> RunOnDevices(
    const HloModule& module, int64_t replicas, int64_t partitions,
    const std::vector<std::vector<Literal>>& arguments,
    const EvaluatorOptions& options);

}  // namespace xlite::eval

#endif  // XLITE_HLO_EVALUATOR_DEVICE_GROUP_H_
