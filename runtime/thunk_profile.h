#ifndef XLITE_RUNTIME_THUNK_PROFILE_H_
#define XLITE_RUNTIME_THUNK_PROFILE_H_

// The times a GPU device measured for the kernel and GEMM thunks of its
// runs (GpuDevice::set_profile), accumulated over runs: per thunk its
// calls (a while body's thunks once per trip) and total time, next to the
// cost the compiler gave it (Thunk::cost). Which clock measured them is
// part of the profile: CUDA events on a GPU, the host's wall clock around
// each emulated thunk on the emulator (not a GPU's time).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "runtime/gpu_thunks.h"

namespace xlite::runtime {

class ThunkProfile {
 public:
  enum class Clock {
    /// cuEventRecord before and after each thunk on the device's stream.
    kCudaEvents,
    /// steady_clock around each thunk the emulator runs on the host.
    kEmulatorHostWall,
  };

  /// One timed thunk.
  struct Entry {
    /// The kernel's symbol, or the GEMM's instruction.
    std::string name;
    std::string instruction;
    Thunk::Kind kind = Thunk::Kind::kKernel;
    ThunkCost cost;
    int64_t calls = 0;
    double seconds = 0;
  };

  explicit ThunkProfile(Clock clock) : clock_(clock) {}

  Clock clock() const { return clock_; }
  /// One execution of `thunk` (a kernel or GEMM of a sequence that stays
  /// alive and unchanged while this profile is in use) took `seconds`.
  void Record(const Thunk& thunk, double seconds);
  /// One whole run (every thunk, copies and control flow included) took
  /// `seconds` of host wall time.
  void RecordRun(double seconds);

  /// The timed thunks in the order they first ran.
  const std::vector<Entry>& entries() const { return entries_; }
  int64_t runs() const { return runs_; }
  double run_seconds() const { return run_seconds_; }

 private:
  Clock clock_;
  absl::flat_hash_map<const Thunk*, size_t> index_;
  std::vector<Entry> entries_;
  int64_t runs_ = 0;
  double run_seconds_ = 0;
};

/// "CUDA events" or "emulator host wall time", for reports.
std::string ClockDescription(ThunkProfile::Clock clock);

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_THUNK_PROFILE_H_
