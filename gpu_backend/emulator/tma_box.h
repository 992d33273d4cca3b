#ifndef XLITE_GPU_BACKEND_EMULATOR_TMA_BOX_H_
#define XLITE_GPU_BACKEND_EMULATOR_TMA_BOX_H_

// What one cp.async.bulk.tensor (tile mode, global to shared) of an
// EmulatedTensorMap writes: the box at `coords` (one signed coordinate per
// dimension, innermost first), its elements in order (dimension 0
// fastest) from shared offset `dst` on, elements outside the tensor zero,
// and with the 128-byte swizzle the 16-byte chunk at shared offset a
// moved to a ^ ((a >> 7) & 7) << 4 (CUDA's CU_TENSOR_MAP_SWIZZLE_128B).

#include <cstdint>
#include <string>
#include <vector>

#include "gpu_backend/emulator/emulated_tensor_map.h"
#include "gpu_backend/emulator/mbarrier_table.h"

namespace xlite::gpu::emulator {

/// The box's 16-byte chunks with their shared offsets, or an error (a bad
/// map, a destination not 128-byte aligned, or 1024 with the swizzle, or
/// past `shared_bytes`).
std::string GatherTmaBox(const EmulatedTensorMap& map, const int32_t* coords,
                         int64_t dst, int64_t shared_bytes,
                         std::vector<MbarrierTable::Chunk>& chunks);

/// The bytes one copy of `map`'s box brings (what expect_tx counts).
int64_t TmaBoxBytes(const EmulatedTensorMap& map);

}  // namespace xlite::gpu::emulator

#endif  // XLITE_GPU_BACKEND_EMULATOR_TMA_BOX_H_
