// xlite_cpu_syevd and xlite_cpu_gesdd (see runtime_lib.h): the Jacobi
// eigendecomposition and SVD of hlo/ir/jacobi_linalg.h, the very kernels
// the evaluator runs (hlo/evaluator/eigh_svd.cc), over the batch and the
// layouts the generated code passes.

#include <algorithm>
#include <cmath>
#include <complex>
#include <type_traits>
#include <vector>

#include "cpu_backend/runtime_lib/matrix_batch.h"
#include "cpu_backend/runtime_lib/runtime_lib.h"
#include "hlo/ir/jacobi_linalg.h"

namespace xlite::cpu {
namespace {

using jacobi::Complex;

template <typename T>
struct RealOf {
  using type = T;
};
template <typename R>
struct RealOf<std::complex<R>> {
  using type = R;
};

// Matrix `index` of a batch of rows x cols matrices of T at `base`, as a
// column-major complex<double> working copy.
template <typename T>
std::vector<Complex> Load(const void* base, int64_t index, int64_t rows,
                          int64_t cols, bool col_major) {
  const T* p = static_cast<const T*>(base) + index * rows * cols;
  std::vector<Complex> out(rows * cols);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      out[i + j * rows] =
          Complex(col_major ? p[i + j * rows] : p[i * cols + j]);
    }
  }
  return out;
}

// Writes the column-major rows x cols `m` as matrix `index` at `base`.
template <typename T>
void Store(const std::vector<Complex>& m, void* base, int64_t index,
           int64_t rows, int64_t cols, bool col_major) {
  T* p = static_cast<T*>(base) + index * rows * cols;
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      const Complex v = m[i + j * rows];
      T& out = col_major ? p[i + j * rows] : p[i * cols + j];
      if constexpr (std::is_same_v<T, typename RealOf<T>::type>) {
        out = static_cast<T>(v.real());
      } else {
        out = T(v);
      }
    }
  }
}

template <typename T>
int32_t Syevd(const void* a, void* vectors, void* w, int32_t* info,
              int64_t batch, int64_t n, bool lower, bool col_major) {
  using Real = typename RealOf<T>::type;
  std::vector<double> values;
  std::vector<Complex> v;
  for (int64_t b = 0; b < batch; ++b) {
    jacobi::HermitianEigen(Load<T>(a, b, n, n, col_major), n, lower, values, v);
    Store<T>(v, vectors, b, n, n, col_major);
    Real* wb = static_cast<Real*>(w) + b * n;
    for (int64_t j = 0; j < n; ++j) wb[j] = static_cast<Real>(values[j]);
    if (info != nullptr) info[b] = 0;
  }
  return kStatusOk;
}

template <typename T>
int32_t Gesdd(const void* a, void* a_out, void* s, void* u, void* vt,
              int32_t* info, int64_t batch, int64_t m, int64_t n, bool full,
              bool col_major) {
  using Real = typename RealOf<T>::type;
  const int64_t k = std::min(m, n);
  const int64_t ucols = full ? m : k, vtrows = full ? n : k;
  std::vector<double> values;
  std::vector<Complex> left, right;
  for (int64_t b = 0; b < batch; ++b) {
    const std::vector<Complex> matrix = Load<T>(a, b, m, n, col_major);
    const bool has_nan =
        std::any_of(matrix.begin(), matrix.end(), [](const Complex& c) {
          return std::isnan(c.real()) || std::isnan(c.imag());
        });
    jacobi::Svd(matrix, m, n, full, values, left, right);
    if (a_out != nullptr) Store<T>(matrix, a_out, b, m, n, col_major);
    Real* sb = static_cast<Real*>(s) + b * k;
    for (int64_t j = 0; j < k; ++j) sb[j] = static_cast<Real>(values[j]);
    Store<T>(left, u, b, m, ucols, col_major);
    Store<T>(right, vt, b, vtrows, n, col_major);
    if (info != nullptr) info[b] = has_nan ? -4 : 0;
  }
  return kStatusOk;
}

}  // namespace

// C linkage: the global functions runtime_lib.h declares.
extern "C" int32_t xlite_cpu_syevd(int32_t type, const void* a, void* vectors,
                                   void* w, int32_t* info, int64_t batch,
                                   int64_t n, int32_t lower,
                                   int32_t col_major) {
  if (batch < 0 || n < 0) return kStatusInvalidArgument;
  if (batch * n > 0 && (a == nullptr || vectors == nullptr || w == nullptr)) {
    return kStatusInvalidArgument;
  }
  return DispatchLinalgType(type, [&](auto t) {
    return Syevd<decltype(t)>(a, vectors, w, info, batch, n, lower != 0,
                              col_major != 0);
  });
}

extern "C" int32_t xlite_cpu_gesdd(int32_t type, const void* a, void* a_out,
                                   void* s, void* u, void* vt, int32_t* info,
                                   int64_t batch, int64_t m, int64_t n,
                                   int32_t full, int32_t col_major) {
  if (batch < 0 || m < 0 || n < 0) return kStatusInvalidArgument;
  if (batch * m * n > 0 &&
      (a == nullptr || s == nullptr || u == nullptr || vt == nullptr)) {
    return kStatusInvalidArgument;
  }
  return DispatchLinalgType(type, [&](auto t) {
    return Gesdd<decltype(t)>(a, a_out, s, u, vt, info, batch, m, n, full != 0,
                              col_major != 0);
  });
}

}  // namespace xlite::cpu
