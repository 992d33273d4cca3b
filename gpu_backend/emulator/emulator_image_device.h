#ifndef XLITE_GPU_BACKEND_EMULATOR_EMULATOR_IMAGE_DEVICE_H_
#define XLITE_GPU_BACKEND_EMULATOR_EMULATOR_IMAGE_DEVICE_H_

// A GPU image's kernels on the emulator: the image's emulator LLVM IR is
// parsed and JIT-compiled for the host, and its thunks run on an
// EmulatorDevice over host memory (runtime::GpuDevice).

#include <memory>

#include "absl/status/statusor.h"
#include "gpu_backend/emulator/emulator_device.h"
#include "gpu_backend/emulator/host_jit.h"
#include "runtime/gpu_device.h"
#include "runtime/gpu_image.h"

namespace xlite::gpu::emulator {

class EmulatorImageDevice : public runtime::GpuDevice {
 public:
  /// Fails when the image carries no emulator IR or it does not compile.
  static absl::StatusOr<std::unique_ptr<EmulatorImageDevice>> Create(
      const runtime::GpuImage& image);

  absl::StatusOr<uint64_t> Allocate(int64_t bytes) override;
  absl::Status Free(uint64_t address) override;
  absl::Status CopyToDevice(uint64_t destination, const void* source,
                            int64_t bytes) override;
  absl::Status CopyFromDevice(void* destination, uint64_t source,
                              int64_t bytes) override;
  absl::Status Run(const runtime::ThunkSequence& thunks,
                   const std::vector<uint64_t>& allocations) override;
  /// Times on the host's wall clock (a profile of any other clock is
  /// refused).
  absl::Status SetProfile(runtime::ThunkProfile* profile) override;

 private:
  EmulatorImageDevice() = default;
  runtime::ThunkProfile* profile_ = nullptr;
  std::unique_ptr<HostJit> jit_;
  std::unique_ptr<EmulatorDevice> device_;
};

}  // namespace xlite::gpu::emulator

#endif  // XLITE_GPU_BACKEND_EMULATOR_EMULATOR_IMAGE_DEVICE_H_
