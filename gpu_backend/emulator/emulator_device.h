#ifndef XLITE_GPU_BACKEND_EMULATOR_EMULATOR_DEVICE_H_
#define XLITE_GPU_BACKEND_EMULATOR_EMULATOR_DEVICE_H_

// The emulated GPU device: its memory is host memory (one 256-byte
// aligned block per allocation), kernels are the host JIT's entries, and
// thunks run in order on the calling thread. While and conditional read
// their predicate from "device" memory as a GPU runtime would. A while
// with a known trip count runs its body that often, as a device does; the
// emulator still evaluates the condition each time and reports a trip
// count the condition contradicts (so tests check the compile-time count).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "gpu_backend/emulator/emulator_runtime.h"
#include "runtime/gpu_thunks.h"
#include "runtime/thunk_profile.h"

namespace xlite::gpu::emulator {

class EmulatorDevice {
 public:
  /// `kernels` maps kernel names to their host entries.
  explicit EmulatorDevice(absl::flat_hash_map<std::string, KernelEntry> kernels)
      : kernels_(std::move(kernels)) {}

  /// Runs `thunks` with allocation i at `allocations[i]`. With `profile`
  /// (whose clock must be the emulator's), each kernel and GEMM thunk and
  /// the whole run are timed on the host's wall clock.
  absl::Status Run(const runtime::ThunkSequence& thunks,
                   const std::vector<uint8_t*>& allocations,
                   runtime::ThunkProfile* profile = nullptr) const;

 private:
  absl::Status RunSequence(const runtime::ThunkSequence& thunks,
                           const std::vector<uint8_t*>& allocations,
                           runtime::ThunkProfile* profile) const;
  absl::Status RunOne(const runtime::Thunk& thunk,
                      const std::vector<uint8_t*>& allocations,
                      runtime::ThunkProfile* profile) const;
  absl::Status RunWhile(const runtime::Thunk& thunk,
                        const std::vector<uint8_t*>& allocations,
                        runtime::ThunkProfile* profile) const;

  absl::flat_hash_map<std::string, KernelEntry> kernels_;
};

}  // namespace xlite::gpu::emulator

#endif  // XLITE_GPU_BACKEND_EMULATOR_EMULATOR_DEVICE_H_
