#ifndef XLITE_CPU_BACKEND_RUNTIME_LIB_CONV_GEOMETRY_H_
#define XLITE_CPU_BACKEND_RUNTIME_LIB_CONV_GEOMETRY_H_

// Internal to the runtime library: the sizes of one xlite_cpu_conv call
// (runtime_lib.h), read once by conv.cc and handed to the contraction
// kernels of every instruction set (contraction_kernels.h). Plain data, so
// that it means the same in every variant's translation unit.

#include <cstdint>

namespace xlite::cpu {

inline constexpr int64_t kConvMaxSpatial = 3;

struct ConvSpatialDim {
  int64_t in = 0, out = 0, window = 0;
  int64_t stride = 1, pad_low = 0, base_dilation = 1, window_dilation = 1;
  bool reversal = false;
};

struct ConvGeometry {
  int64_t rank = 0, batch = 0, in_features = 0, out_features = 0;
  ConvSpatialDim dims[kConvMaxSpatial];
  int64_t in_positions = 1, out_positions = 1, window_positions = 1;

  /// Rows of the patch (and output) matrix: batch x output positions.
  int64_t rows() const { return batch * out_positions; }
  /// Columns of the patch matrix: window positions x input features.
  int64_t depth() const { return window_positions * in_features; }
};

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_RUNTIME_LIB_CONV_GEOMETRY_H_
