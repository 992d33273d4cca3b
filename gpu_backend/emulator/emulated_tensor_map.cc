#include "gpu_backend/emulator/emulated_tensor_map.h"

namespace xlite::gpu::emulator {

EmulatedTensorMap EncodeEmulatedTensorMap(
    const runtime::TensorMapDescription& map, uint64_t address) {
  EmulatedTensorMap e;
  e.address = address;
  e.rank = static_cast<uint32_t>(map.dims.size());
  e.element_bytes = static_cast<uint32_t>(map.element_bytes);
  e.swizzle_128b = map.swizzle_128b ? 1 : 0;
  for (uint32_t i = 0; i < e.rank && i < 5; ++i) {
    e.dims[i] = static_cast<uint64_t>(map.dims[i]);
    e.strides[i] = static_cast<uint64_t>(map.strides[i]);
    e.box[i] = static_cast<uint32_t>(map.box[i]);
  }
  return e;
}

}  // namespace xlite::gpu::emulator
