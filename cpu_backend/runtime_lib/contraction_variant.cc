// One instruction set's contraction kernels (contraction_kernels.h). The
// BUILD file compiles this file once per variant, with that variant's
// -m flags and XLITE_ISA set to its name; it defines one extern "C"
// object, xlite_contraction_kernels_<XLITE_ISA>. Every other symbol a
// non-baseline variant defines (Eigen's templates included) is renamed
// after compiling (rename_variant_symbols.sh), so the linker never merges
// an AVX-512 instance of an Eigen template with the baseline one.

#include <Eigen/Core>
#include <algorithm>
#include <complex>
#include <cstring>
#include <vector>

#include "cpu_backend/runtime_lib/contraction_kernels.h"
#include "cpu_backend/runtime_lib/runtime_lib.h"

#ifndef XLITE_ISA
#error "XLITE_ISA must name the variant (baseline, avx2, avx512)"
#endif
#define XLITE_STR2(x) #x
#define XLITE_STR(x) XLITE_STR2(x)
#define XLITE_CAT2(a, b) a##b
#define XLITE_CAT(a, b) XLITE_CAT2(a, b)

namespace xlite::cpu {
namespace {

template <typename T>
using RowMajor =
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstView = Eigen::Map<const RowMajor<T>, 0, Eigen::OuterStride<>>;
template <typename T>
using View = Eigen::Map<RowMajor<T>, 0, Eigen::OuterStride<>>;

// The block of one batch's product. A transposed operand is the row-major
// map of its stored shape, transposed: Eigen's GEMM packs either without a
// copy, and the leading dimensions only change where the packing reads.
template <typename T>
void MatMulOne(const MatMulBlock& b, const T* x, const T* y, T* z) {
  const int64_t rows = b.row_end - b.row_begin;
  const int64_t cols = b.col_end - b.col_begin;
  const int64_t k = b.k;
  const Eigen::OuterStride<> lx(b.lhs_ld), ly(b.rhs_ld);
  View<T> out(z + b.row_begin * b.out_ld + b.col_begin, rows, cols,
              Eigen::OuterStride<>(b.out_ld));
  if (k == 0) {
    out.setZero();
  } else if (!b.transpose_lhs && !b.transpose_rhs) {
    out.noalias() = ConstView<T>(x + b.row_begin * b.lhs_ld, rows, k, lx) *
                    ConstView<T>(y + b.col_begin, k, cols, ly);
  } else if (b.transpose_lhs && !b.transpose_rhs) {
    out.noalias() = ConstView<T>(x + b.row_begin, k, rows, lx).transpose() *
                    ConstView<T>(y + b.col_begin, k, cols, ly);
  } else if (!b.transpose_lhs && b.transpose_rhs) {
    out.noalias() =
        ConstView<T>(x + b.row_begin * b.lhs_ld, rows, k, lx) *
        ConstView<T>(y + b.col_begin * b.rhs_ld, cols, k, ly).transpose();
  } else {
    out.noalias() =
        ConstView<T>(x + b.row_begin, k, rows, lx).transpose() *
        ConstView<T>(y + b.col_begin * b.rhs_ld, cols, k, ly).transpose();
  }
}

template <typename T>
void MatMulTyped(const MatMulBlock& b) {
  const T* lhs = static_cast<const T*>(b.lhs);
  const T* rhs = static_cast<const T*>(b.rhs);
  T* out = static_cast<T*>(b.out);
  for (int64_t i = b.batch_begin; i < b.batch_end; ++i) {
    // Offsets of batch index i, minor batch dimension first.
    int64_t rest = i, x = 0, y = 0, z = 0;
    for (int32_t d = b.batch_rank - 1; d >= 0; --d) {
      const int64_t at = rest % b.batch_sizes[d];
      rest /= b.batch_sizes[d];
      x += at * b.lhs_batch_strides[d];
      y += at * b.rhs_batch_strides[d];
      z += at * b.out_batch_strides[d];
    }
    MatMulOne(b, lhs + x, rhs + y, out + z);
  }
}

void MatMul(const MatMulBlock& b) {
  switch (b.type) {
    case kTypeF32:
      return MatMulTyped<float>(b);
    case kTypeF64:
      return MatMulTyped<double>(b);
    case kTypeC64:
      return MatMulTyped<std::complex<float>>(b);
    case kTypeC128:
      return MatMulTyped<std::complex<double>>(b);
    default:
      return;
  }
}

// Patch matrices are built at most this many elements at a time.
constexpr int64_t kPatchElements = int64_t{1} << 18;

// True when the input itself is the patch matrix: every window is one
// element and output position p reads input position p.
bool IsPointwise(const ConvGeometry& g) {
  for (int64_t s = 0; s < g.rank; ++s) {
    const ConvSpatialDim& d = g.dims[s];
    if (d.window != 1 || d.stride != 1 || d.pad_low != 0 ||
        d.base_dilation != 1 || d.in != d.out) {
      return false;
    }
  }
  return true;
}

// Fills `n` patch rows from output row `first` (rows run over batch, then
// output positions row-major): window position major, input feature minor,
// zeros where the window falls in padding or between dilated elements.
template <typename T>
void FillPatches(const ConvGeometry& g, const T* in, int64_t first, int64_t n,
                 T* patches) {
  const int64_t depth = g.depth();
  std::fill(patches, patches + n * depth, T(0));
  int64_t out_index[kConvMaxSpatial] = {0, 0, 0};
  int64_t window_index[kConvMaxSpatial] = {0, 0, 0};
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
    std::fill(window_index, window_index + kConvMaxSpatial, 0);
    for (int64_t w = 0; w < g.window_positions; ++w) {
      // The input position window element `window_index` (as the kernel
      // stores it) meets, if it is not padding.
      int64_t at = 0;
      bool inside = true;
      for (int64_t s = 0; s < g.rank && inside; ++s) {
        const ConvSpatialDim& d = g.dims[s];
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

// Output rows [row_begin, row_end): patch rows times the kernel, read as a
// [depth, out_features] matrix, in chunks that keep the patch matrix a
// cache-sized block.
template <typename T>
void ConvolveRows(const ConvGeometry& g, const T* in, const T* kernel, T* out,
                  int64_t row_begin, int64_t row_end) {
  const int64_t depth = g.depth(), features = g.out_features;
  Eigen::Map<const RowMajor<T>> weights(kernel, depth, features);
  if (IsPointwise(g)) {
    Eigen::Map<RowMajor<T>>(out + row_begin * features, row_end - row_begin,
                            features)
        .noalias() = Eigen::Map<const RowMajor<T>>(in + row_begin * depth,
                                                   row_end - row_begin, depth) *
                     weights;
    return;
  }
  const int64_t chunk = std::max<int64_t>(1, kPatchElements / depth);
  std::vector<T> patches(std::min(chunk, row_end - row_begin) * depth);
  for (int64_t first = row_begin; first < row_end; first += chunk) {
    const int64_t n = std::min(chunk, row_end - first);
    FillPatches(g, in, first, n, patches.data());
    Eigen::Map<RowMajor<T>>(out + first * features, n, features).noalias() =
        Eigen::Map<const RowMajor<T>>(patches.data(), n, depth) * weights;
  }
}

void Conv(const ConvGeometry& g, bool f64, const void* input,
          const void* kernel, void* out, int64_t row_begin, int64_t row_end) {
  if (f64) {
    ConvolveRows(g, static_cast<const double*>(input),
                 static_cast<const double*>(kernel), static_cast<double*>(out),
                 row_begin, row_end);
  } else {
    ConvolveRows(g, static_cast<const float*>(input),
                 static_cast<const float*>(kernel), static_cast<float*>(out),
                 row_begin, row_end);
  }
}

}  // namespace
}  // namespace xlite::cpu

extern "C" const xlite::cpu::ContractionKernels XLITE_CAT(
    xlite_contraction_kernels_, XLITE_ISA);
extern "C" const xlite::cpu::ContractionKernels XLITE_CAT(
    xlite_contraction_kernels_, XLITE_ISA) = {
    XLITE_STR(XLITE_ISA), &xlite::cpu::MatMul, &xlite::cpu::Conv};
