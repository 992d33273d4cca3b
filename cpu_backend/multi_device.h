#ifndef XLITE_CPU_BACKEND_MULTI_DEVICE_H_
#define XLITE_CPU_BACKEND_MULTI_DEVICE_H_

// Runs one compiled module as replicas x partitions devices: one host
// thread per device, each calling the same entry function with its own
// run context (replica id, partition id) and one shared in-process
// CollectiveExchange through which its collectives meet. Device d is
// replica d / partitions, partition d % partitions, as in the evaluator's
// EvaluateOnDevices.

#include <chrono>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "cpu_backend/executable.h"
#include "hlo/ir/literal.h"

namespace xlite::cpu {

struct MultiDeviceOptions {
  /// How long a device waits for the others in one collective before the
  /// run fails (a deadlock where every device waits is found at once).
  std::chrono::milliseconds collective_timeout{std::chrono::minutes(2)};
  /// For a profiled module: device d's counters (RunOptions::profile);
  /// empty records nothing.
  std::vector<ProfileCounters*> profiles;
};

/// Runs `executable` on every device, `arguments[d]` on device d; returns
/// each device's result. A failed collective (deadlock, timeout, a bad
/// group) fails the whole run with a message naming the device and the
/// instruction.
absl::StatusOr<std::vector<Literal>> RunOnDevices(
    const CpuExecutable& executable, int64_t replicas, int64_t partitions,
    const std::vector<std::vector<Literal>>& arguments,
    const MultiDeviceOptions& options = {});

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_MULTI_DEVICE_H_
