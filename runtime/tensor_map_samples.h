#ifndef XLITE_RUNTIME_TENSOR_MAP_SAMPLES_H_
#define XLITE_RUNTIME_TENSOR_MAP_SAMPLES_H_

// Tensor maps the runtime's tests describe kernels with (testonly).

#include <cstdint>

#include "runtime/gpu_thunks.h"

namespace xlite::runtime::testing {

/// A u16[2,4096,64] operand (dimensions innermost first: 64, 4096, 2) in
/// [1,128,64] boxes, 128-byte swizzled, over kernel argument `argument`:
/// a warpgroup GEMM's K-major tile map.
inline TensorMapDescription SwizzledTileMap(int64_t argument = 1) {
  TensorMapDescription m;
  m.argument = argument;
  m.element_bytes = 2;
  m.dims = {64, 4096, 2};
  m.strides = {2, 128, 524288};
  m.box = {64, 128, 1};
  m.swizzle_128b = true;
  return m;
}

/// A vector of `n` elements of `bytes` in boxes of `box`, unswizzled, over
/// kernel argument `argument`.
inline TensorMapDescription VectorMap(int64_t bytes, int64_t n, int64_t box,
                                      int64_t argument = 0) {
  TensorMapDescription m;
  m.argument = argument;
  m.element_bytes = bytes;
  m.dims = {n};
  m.strides = {bytes};
  m.box = {box};
  return m;
}

}  // namespace xlite::runtime::testing

#endif  // XLITE_RUNTIME_TENSOR_MAP_SAMPLES_H_
