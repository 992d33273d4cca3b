// xlite_cpu_matmul (see runtime_lib.h): batched Eigen GEMM, as the
// evaluator's MatMul (hlo/evaluator/dot_kernels.cc) for the same types.

#include <Eigen/Core>
#include <complex>
#include <cstring>

#include "cpu_backend/runtime_lib/runtime_lib.h"

namespace xlite::cpu {
namespace {

template <typename T>
void MatMul(const T* lhs, const T* rhs, T* out, int64_t batch, int64_t m,
            int64_t k, int64_t n, bool transpose_lhs, bool transpose_rhs) {
  using Matrix =
      Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  for (int64_t b = 0; b < batch; ++b) {
    Eigen::Map<Matrix> z(out + b * m * n, m, n);
    if (k == 0) {
      z.setZero();
      continue;
    }
    const T* x = lhs + b * m * k;
    const T* y = rhs + b * k * n;
    // A transposed operand is the row-major map of its stored shape,
    // transposed: Eigen's GEMM packs either without a copy.
    if (!transpose_lhs && !transpose_rhs) {
      z.noalias() =
          Eigen::Map<const Matrix>(x, m, k) * Eigen::Map<const Matrix>(y, k, n);
    } else if (transpose_lhs && !transpose_rhs) {
      z.noalias() = Eigen::Map<const Matrix>(x, k, m).transpose() *
                    Eigen::Map<const Matrix>(y, k, n);
    } else if (!transpose_lhs && transpose_rhs) {
      z.noalias() = Eigen::Map<const Matrix>(x, m, k) *
                    Eigen::Map<const Matrix>(y, n, k).transpose();
    } else {
      z.noalias() = Eigen::Map<const Matrix>(x, k, m).transpose() *
                    Eigen::Map<const Matrix>(y, n, k).transpose();
    }
  }
}

}  // namespace

// C linkage: the global function runtime_lib.h declares.
extern "C" int32_t xlite_cpu_matmul(int32_t type, const void* lhs,
                                    const void* rhs, void* out, int64_t batch,
                                    int64_t m, int64_t k, int64_t n,
                                    int32_t transpose_lhs,
                                    int32_t transpose_rhs) {
  if (batch < 0 || m < 0 || k < 0 || n < 0) return kStatusInvalidArgument;
  if (batch * m * n == 0) return kStatusOk;
  if (out == nullptr || (k > 0 && (lhs == nullptr || rhs == nullptr))) {
    return kStatusInvalidArgument;
  }
  const bool tl = transpose_lhs != 0, tr = transpose_rhs != 0;
  switch (type) {
    case kTypeF32:
      MatMul(static_cast<const float*>(lhs), static_cast<const float*>(rhs),
             static_cast<float*>(out), batch, m, k, n, tl, tr);
      return kStatusOk;
    case kTypeF64:
      MatMul(static_cast<const double*>(lhs), static_cast<const double*>(rhs),
             static_cast<double*>(out), batch, m, k, n, tl, tr);
      return kStatusOk;
    case kTypeC64:
      MatMul(static_cast<const std::complex<float>*>(lhs),
             static_cast<const std::complex<float>*>(rhs),
             static_cast<std::complex<float>*>(out), batch, m, k, n, tl, tr);
      return kStatusOk;
    case kTypeC128:
      MatMul(static_cast<const std::complex<double>*>(lhs),
             static_cast<const std::complex<double>*>(rhs),
             static_cast<std::complex<double>*>(out), batch, m, k, n, tl, tr);
      return kStatusOk;
    default:
      return kStatusUnsupportedType;
  }
}

}  // namespace xlite::cpu
