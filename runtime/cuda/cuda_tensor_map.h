#ifndef XLITE_RUNTIME_CUDA_CUDA_TENSOR_MAP_H_
#define XLITE_RUNTIME_CUDA_CUDA_TENSOR_MAP_H_

// A kernel thunk's TMA tensor maps (runtime::TensorMapDescription) as the
// CUDA driver encodes them (cuTensorMapEncodeTiled) before each launch:
// the 128 opaque bytes a kernel takes by value after its pointers.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/gpu_thunks.h"

namespace xlite::runtime::cuda {

/// CUtensorMap: 128 bytes, 64-byte aligned.
struct alignas(64) CuTensorMap {
  uint64_t opaque[16] = {};
};
static_assert(sizeof(CuTensorMap) == 128);

/// cuTensorMapEncodeTiled's arguments for a valid map (ValidateTensorMap)
/// over `address`: the driver takes rank - 1 strides (the innermost is
/// the element size), every element stride 1, no interleave, L2 promotion
/// by 128 bytes, zeros out of bounds.
struct TiledEncoding {
  int data_type = 0;
  uint32_t rank = 0;
  uint64_t address = 0;
  uint64_t dims[5] = {};
  uint64_t strides[4] = {};
  uint32_t box[5] = {};
  uint32_t element_strides[5] = {};
  int interleave = kTensorMapInterleaveNone;
  int swizzle = kTensorMapSwizzleNone;
  int l2_promotion = kTensorMapL2Promotion128B;
  int oob_fill = kTensorMapOobFillNone;
};
TiledEncoding TiledEncodingOf(const TensorMapDescription& map,
                              uint64_t address);

/// Kernel thunk `t`'s tensor maps over its arguments at `addresses` (one
/// per argument), checked (ValidateKernelTensorMaps) and encoded, in
/// order. Errors name the kernel and the map; a driver without
/// cuTensorMapEncodeTiled is one.
absl::StatusOr<std::vector<CuTensorMap>> EncodeTensorMaps(
    const CudaDriver& driver, const Thunk& t,
    const std::vector<CuDevicePtr>& addresses);

}  // namespace xlite::runtime::cuda

#endif  // XLITE_RUNTIME_CUDA_CUDA_TENSOR_MAP_H_
