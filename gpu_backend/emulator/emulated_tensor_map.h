#ifndef XLITE_GPU_BACKEND_EMULATOR_EMULATED_TENSOR_MAP_H_
#define XLITE_GPU_BACKEND_EMULATOR_EMULATED_TENSOR_MAP_H_

// The 128 bytes an emulated kernel receives for each TMA tensor map
// parameter (runtime::TensorMapDescription): what the emulator's bulk
// tensor copies (emulator_runtime.cc) read. The emulator device fills one
// per launch with the argument buffer's address.

#include <cstdint>

#include "runtime/gpu_thunks.h"

namespace xlite::gpu::emulator {

struct alignas(64) EmulatedTensorMap {
  uint64_t address = 0;  // of element (0, ..., 0)
  uint32_t rank = 0;
  uint32_t element_bytes = 0;
  uint32_t swizzle_128b = 0;
  uint32_t reserved = 0;
  uint64_t dims[5] = {};     // innermost first
  uint64_t strides[5] = {};  // bytes; strides[0] = element_bytes
  uint32_t box[5] = {};
};
static_assert(sizeof(EmulatedTensorMap) == 128);

/// `map` (valid: runtime::ValidateTensorMap) over the buffer at host
/// `address`; entries past its rank 0.
EmulatedTensorMap EncodeEmulatedTensorMap(
    const runtime::TensorMapDescription& map, uint64_t address);

}  // namespace xlite::gpu::emulator

#endif  // XLITE_GPU_BACKEND_EMULATOR_EMULATED_TENSOR_MAP_H_
