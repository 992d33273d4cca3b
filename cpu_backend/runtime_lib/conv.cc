// xlite_cpu_conv (see runtime_lib.h): convolution as matrix products. Each
// output position's receptive field becomes one row of a patch matrix
// (im2col: window position major, input feature minor, zeros where the
// window falls in padding or between dilated input elements); the patch
// rows times the kernel, read as a [window * in_features, out_features]
// matrix, are the output rows, written in place. Rows go in chunks so the
// patch matrix stays a cache-sized block. A 1x1 window that reads every
// input position once needs no patches: the input is the patch matrix.

#include <Eigen/Core>
#include <algorithm>
#include <cstring>
#include <vector>

#include "cpu_backend/runtime_lib/runtime_lib.h"

namespace xlite::cpu {
namespace {

// Patch matrices are built at most this many elements at a time.
constexpr int64_t kPatchElements = int64_t{1} << 18;
constexpr int64_t kMaxSpatial = 3;

struct SpatialDim {
  int64_t in = 0, out = 0, window = 0;
  int64_t stride = 1, pad_low = 0, base_dilation = 1, window_dilation = 1;
  bool reversal = false;
};

struct Geometry {
  int64_t rank = 0, batch = 0, in_features = 0, out_features = 0;
  SpatialDim dims[kMaxSpatial];
  int64_t in_positions = 1, out_positions = 1, window_positions = 1;
};

// True when the input itself is the patch matrix: every window is one
// element and output position p reads input position p.
bool IsPointwise(const Geometry& g) {
  for (int64_t s = 0; s < g.rank; ++s) {
    const SpatialDim& d = g.dims[s];
    if (d.window != 1 || d.stride != 1 || d.pad_low != 0 ||
        d.base_dilation != 1 || d.in != d.out) {
      return false;
    }
  }
  return true;
}

// Fills `n` patch rows from output row `first` (rows run over batch, then
// output positions row-major).
template <typename T>
void FillPatches(const Geometry& g, const T* in, int64_t first, int64_t n,
                 T* patches) {
  const int64_t depth = g.window_positions * g.in_features;
  std::fill(patches, patches + n * depth, T(0));
  int64_t out_index[kMaxSpatial] = {0, 0, 0};
  int64_t window_index[kMaxSpatial] = {0, 0, 0};
  for (int64_t r = 0; r < n; ++r) {
    const int64_t row = first + r;
    const int64_t batch = row / g.out_positions;
    int64_t rest = row % g.out_positions;
    for (int64_t s = g.rank - 1; s >= 0; --s) {
      out_index[s] = rest % g.dims[s].out;
      rest /= g.dims[s].out;
    }
    const T* image = in + batch * g.in_positions * g.in_features;
    T* dst = patches + r * depth;
    std::fill(window_index, window_index + kMaxSpatial, 0);
    for (int64_t w = 0; w < g.window_positions; ++w) {
      // The input position window element `window_index` (as the kernel
      // stores it) meets, if it is not padding.
      int64_t at = 0;
      bool inside = true;
      for (int64_t s = 0; s < g.rank && inside; ++s) {
        const SpatialDim& d = g.dims[s];
        const int64_t k =
            d.reversal ? d.window - 1 - window_index[s] : window_index[s];
        const int64_t p =
            out_index[s] * d.stride + k * d.window_dilation - d.pad_low;
        inside =
            p >= 0 && p % d.base_dilation == 0 && p / d.base_dilation < d.in;
        at = at * d.in + (inside ? p / d.base_dilation : 0);
      }
      if (inside) {
        const T* src = image + at * g.in_features;
        std::copy(src, src + g.in_features, dst + w * g.in_features);
      }
      for (int64_t s = g.rank - 1; s >= 0; --s) {
        if (++window_index[s] < g.dims[s].window) break;
        window_index[s] = 0;
      }
    }
  }
}

template <typename T>
void Convolve(const Geometry& g, const T* in, const T* kernel, T* out) {
  using Matrix =
      Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const int64_t rows = g.batch * g.out_positions;
  const int64_t depth = g.window_positions * g.in_features;
  Eigen::Map<const Matrix> weights(kernel, depth, g.out_features);
  if (IsPointwise(g)) {
    Eigen::Map<Matrix>(out, rows, g.out_features).noalias() =
        Eigen::Map<const Matrix>(in, rows, depth) * weights;
    return;
  }
  const int64_t chunk = std::max<int64_t>(1, kPatchElements / depth);
  std::vector<T> patches(std::min(chunk, rows) * depth);
  for (int64_t first = 0; first < rows; first += chunk) {
    const int64_t n = std::min(chunk, rows - first);
    FillPatches(g, in, first, n, patches.data());
    Eigen::Map<Matrix>(out + first * g.out_features, n, g.out_features)
        .noalias() =
        Eigen::Map<const Matrix>(patches.data(), n, depth) * weights;
  }
}

}  // namespace

// C linkage: the global function runtime_lib.h declares.
extern "C" int32_t xlite_cpu_conv(int32_t type, const void* input,
                                  const void* kernel, void* out,
                                  int64_t spatial_rank, int64_t batch,
                                  int64_t in_features, int64_t out_features,
                                  const int64_t* spatial) {
  if (spatial_rank < 1 || spatial_rank > kMaxSpatial || batch < 0 ||
      in_features < 0 || out_features < 0 || spatial == nullptr) {
    return kStatusInvalidArgument;
  }
  Geometry g;
  g.rank = spatial_rank;
  g.batch = batch;
  g.in_features = in_features;
  g.out_features = out_features;
  for (int64_t s = 0; s < spatial_rank; ++s) {
    const int64_t* v = spatial + s * kConvSpatialFields;
    SpatialDim& d = g.dims[s];
    d = {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7] != 0};
    if (d.in < 0 || d.out < 0 || d.window < 0 || d.stride < 1 ||
        d.base_dilation < 1 || d.window_dilation < 1) {
      return kStatusInvalidArgument;
    }
    g.in_positions *= d.in;
    g.out_positions *= d.out;
    g.window_positions *= d.window;
  }
  if (type != kTypeF32 && type != kTypeF64) return kStatusUnsupportedType;
  const int64_t out_elements = batch * g.out_positions * out_features;
  if (out_elements == 0) return kStatusOk;
  if (out == nullptr) return kStatusInvalidArgument;
  if (g.window_positions * in_features == 0) {
    const int64_t bytes = type == kTypeF32 ? 4 : 8;
    std::memset(out, 0, out_elements * bytes);
    return kStatusOk;
  }
  if (input == nullptr || kernel == nullptr) return kStatusInvalidArgument;
  if (type == kTypeF32) {
    Convolve(g, static_cast<const float*>(input),
             static_cast<const float*>(kernel), static_cast<float*>(out));
  } else {
    Convolve(g, static_cast<const double*>(input),
             static_cast<const double*>(kernel), static_cast<double*>(out));
  }
  return kStatusOk;
}

}  // namespace xlite::cpu
