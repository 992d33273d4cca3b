#ifndef XLITE_CPU_BACKEND_RUNTIME_LIB_MATRIX_BATCH_H_
#define XLITE_CPU_BACKEND_RUNTIME_LIB_MATRIX_BATCH_H_

// Internal to the runtime library: the matrices of a batched LAPACK-style
// operand read into and written from column-major Eigen working copies,
// in either of the layouts runtime_lib.h describes (`col_major`), and the
// dispatch over the four element types the linear algebra functions take.

#include <Eigen/Core>
#include <complex>
#include <cstdint>

#include "cpu_backend/runtime_lib/runtime_lib.h"

namespace xlite::cpu {

template <typename T>
using WorkMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

/// Matrix `index` of a batch of rows x cols matrices at `base`.
template <typename T>
WorkMatrix<T> LoadMatrix(const void* base, int64_t index, int64_t rows,
                         int64_t cols, bool col_major) {
  const T* p = static_cast<const T*>(base) + index * rows * cols;
  if (col_major) return Eigen::Map<const WorkMatrix<T>>(p, rows, cols);
  using RowMajor =
      Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  return Eigen::Map<const RowMajor>(p, rows, cols);
}

/// Writes `m` as matrix `index` of the batch at `base`.
template <typename T>
void StoreMatrix(const WorkMatrix<T>& m, void* base, int64_t index,
                 bool col_major) {
  T* p = static_cast<T*>(base) + index * m.rows() * m.cols();
  if (col_major) {
    Eigen::Map<WorkMatrix<T>>(p, m.rows(), m.cols()) = m;
    return;
  }
  using RowMajor =
      Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<RowMajor>(p, m.rows(), m.cols()) = m;
}

/// Calls f(T{}) for the C++ type T of `type` (f32, f64, c64, c128) and
/// returns its status; kStatusUnsupportedType for any other type.
template <typename F>
int32_t DispatchLinalgType(int32_t type, F&& f) {
  switch (type) {
    case kTypeF32:
      return f(float{});
    case kTypeF64:
      return f(double{});
    case kTypeC64:
      return f(std::complex<float>{});
    case kTypeC128:
      return f(std::complex<double>{});
    default:
      return kStatusUnsupportedType;
  }
}

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_RUNTIME_LIB_MATRIX_BATCH_H_
