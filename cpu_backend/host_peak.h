#ifndef XLITE_CPU_BACKEND_HOST_PEAK_H_
#define XLITE_CPU_BACKEND_HOST_PEAK_H_

// The host's peak rates on one core, measured in-process, that the profiler
// compares achieved bandwidth and arithmetic against. The backend runs a
// module on one thread per device, so one core is the roof.

#include <string>

#include "absl/status/statusor.h"

namespace xlite::cpu {

struct HostPeak {
  /// memcpy of a 64 MiB buffer (well past the caches), best of a few:
  /// bytes read plus bytes written per second, as the cost model counts.
  double bytes_per_second = 0;
  /// f32 multiply-adds (two flops each) in independent 8-lane chains,
  /// JIT-compiled for the host as generated code is: flops per second.
  double flops_per_second = 0;
  /// The CPU the JIT compiles for (LLVM's name).
  std::string cpu;
};

/// Measured on the first call (a few tens of milliseconds), then the same
/// for the rest of the process.
absl::StatusOr<HostPeak> MeasuredHostPeak();

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_HOST_PEAK_H_
