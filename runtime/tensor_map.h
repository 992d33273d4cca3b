#ifndef XLITE_RUNTIME_TENSOR_MAP_H_
#define XLITE_RUNTIME_TENSOR_MAP_H_

// What every device trusts in a kernel thunk's TMA tensor maps
// (TensorMapDescription): the limits cuTensorMapEncodeTiled places on a
// tiled map, and the tensor lying inside its argument's slice. The .xlx
// reader, the CUDA device and the emulator device all check with these, so
// a bad map is an error everywhere, never a fault on the device or the
// host. And the maps' text for thunk dumps.

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "runtime/gpu_thunks.h"

namespace xlite::runtime {

/// The most dimensions a tensor map has.
inline constexpr int64_t kMaxTensorMapRank = 5;

/// The map alone, for a kernel of `argument_count` pointer arguments:
/// `argument` in range; rank 1 to 5 with dims, strides and box all of
/// that size; element_bytes 1, 2 or 4 and strides[0] equal to it; each
/// dim in [1, 2^32]; strides[i >= 1] positive multiples of 16 below 2^40;
/// each box extent in [1, 256], box[0] * element_bytes a multiple of 16
/// and, when swizzled, at most 128 (one swizzle row).
absl::Status ValidateTensorMap(const TensorMapDescription& map,
                               int64_t argument_count);

/// Every tensor map of kernel thunk `t`: ValidateTensorMap, then its
/// argument a real slice (not allocation -1) at a 16-byte aligned offset
/// (allocations start 256-byte aligned; TMA needs a 16-byte aligned global
/// address) large enough for the whole tensor (its last element at
/// sum((dims[i] - 1) * strides[i])). Messages name the map ("tensor map 1
/// (argument 0): ...").
absl::Status ValidateKernelTensorMaps(const Thunk& t);

/// "tma(arg 1: u16 dims [64,4096,2] strides [2,8192,33554432]
/// box [64,128,1] sw128)": what ThunkSequenceToString prints per map.
std::string TensorMapToString(const TensorMapDescription& map);

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_TENSOR_MAP_H_
