#ifndef XLITE_RUNTIME_GPU_DEVICE_H_
#define XLITE_RUNTIME_GPU_DEVICE_H_

// What runs a GPU image's thunks: device memory (addresses as integers),
// copies to and from the host, and the thunk interpreter. Implemented by
// the CUDA driver device (runtime/cuda) and by the emulator.

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/gpu_thunks.h"
#include "runtime/thunk_profile.h"

namespace xlite::runtime {

class GpuDevice {
 public:
  virtual ~GpuDevice() = default;
  /// `bytes` of zeroed device memory, 256-byte aligned.
  virtual absl::StatusOr<uint64_t> Allocate(int64_t bytes) = 0;
  virtual absl::Status Free(uint64_t address) = 0;
  virtual absl::Status CopyToDevice(uint64_t destination, const void* source,
                                    int64_t bytes) = 0;
  virtual absl::Status CopyFromDevice(void* destination, uint64_t source,
                                      int64_t bytes) = 0;
  /// Runs `thunks` with allocation i at `allocations[i]`; returns when the
  /// device has finished.
  virtual absl::Status Run(const ThunkSequence& thunks,
                           const std::vector<uint64_t>& allocations) = 0;

  /// Later runs time each kernel and GEMM thunk, and the whole run, into
  /// `profile` (null: no more timing), with the clock the profile names;
  /// an error when this device has no such clock.
  virtual absl::Status SetProfile(ThunkProfile* profile) {
    if (profile != nullptr) {
      return absl::UnimplementedError("this device cannot profile thunks");
    }
    return absl::OkStatus();
  }
};

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_GPU_DEVICE_H_
