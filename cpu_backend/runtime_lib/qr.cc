// xlite_cpu_geqrf and xlite_cpu_orgqr (see runtime_lib.h): unblocked
// Householder QR with LAPACK's conventions (xLARFG, xGEQR2, xORG2R) as
// Eigen level-2 operations on a column-major working copy; the evaluator's
// counterparts are in hlo/evaluator/qr.cc. (Eigen's own HouseholderQR uses
// another tau convention for complex matrices, hence these loops.)

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <complex>

#include "cpu_backend/runtime_lib/matrix_batch.h"
#include "cpu_backend/runtime_lib/runtime_lib.h"

namespace xlite::cpu {
namespace {

template <typename T>
struct IsComplexType : std::false_type {};
template <typename R>
struct IsComplexType<std::complex<R>> : std::true_type {};

// re + i im as T (im dropped for real T, where it is zero).
template <typename T, typename R>
T MakeScalar(R re, R im) {
  if constexpr (IsComplexType<T>::value) {
    return T(re, im);
  } else {
    (void)im;
    return re;
  }
}

// sqrt(x^2 + y^2 + z^2) without overflow in the squares (LAPACK's xLAPY3).
template <typename R>
R Norm3(R x, R y, R z) {
  const R w = std::max({std::abs(x), std::abs(y), std::abs(z)});
  if (w == 0) return 0;
  return w *
         std::sqrt((x / w) * (x / w) + (y / w) * (y / w) + (z / w) * (z / w));
}

// Column j of `a`: turns it into beta e_j + the reflector's vector below
// the diagonal (xLARFG), applies H(j)^H to the columns right of j and
// returns tau.
template <typename T>
T ReflectColumn(WorkMatrix<T>& a, int64_t j) {
  using R = typename Eigen::NumTraits<T>::Real;
  const int64_t below = a.rows() - j - 1;
  const int64_t right = a.cols() - j - 1;
  const T alpha = a(j, j);
  const R re = Eigen::numext::real(alpha), im = Eigen::numext::imag(alpha);
  const R sigma = a.col(j).tail(below).squaredNorm();
  // Nothing to annihilate (and alpha real): H = I.
  if (sigma == 0 && im == 0) return T(0);
  const R mu = Norm3<R>(re, im, std::sqrt(sigma));
  const R beta = re < 0 ? mu : -mu;
  const T tau = MakeScalar<T, R>((beta - re) / beta, -im / beta);
  a.col(j).tail(below) *= T(1) / (alpha - T(beta));
  // a[j:, c] -= conj(tau) v (v^H a[j:, c]) for the columns c > j, v[j] = 1.
  auto v = a.col(j).tail(below);
  Eigen::Matrix<T, 1, Eigen::Dynamic> w =
      a.row(j).tail(right) + v.adjoint() * a.bottomRightCorner(below, right);
  w *= Eigen::numext::conj(tau);
  a.row(j).tail(right) -= w;
  a.bottomRightCorner(below, right).noalias() -= v * w;
  a(j, j) = T(beta);
  return tau;
}

template <typename T>
int32_t Geqrf(const void* a, void* qr, void* taus, int64_t batch, int64_t m,
              int64_t n, bool col_major) {
  const int64_t k = std::min(m, n);
  T* tau_out = static_cast<T*>(taus);
  for (int64_t b = 0; b < batch; ++b) {
    WorkMatrix<T> w = LoadMatrix<T>(a, b, m, n, col_major);
    for (int64_t j = 0; j < k; ++j) tau_out[b * k + j] = ReflectColumn(w, j);
    StoreMatrix<T>(w, qr, b, col_major);
  }
  return kStatusOk;
}

template <typename T>
int32_t Orgqr(const void* a, const void* taus, void* q, int64_t batch,
              int64_t m, int64_t n, int64_t p, bool col_major) {
  const T* tau_in = static_cast<const T*>(taus);
  for (int64_t b = 0; b < batch; ++b) {
    const WorkMatrix<T> v = LoadMatrix<T>(a, b, m, n, col_major);
    WorkMatrix<T> out = WorkMatrix<T>::Identity(m, n);
    // Q = H(0) (H(1) (... (H(p-1) I))): the last reflector first.
    for (int64_t j = p - 1; j >= 0; --j) {
      const T tau = tau_in[b * p + j];
      const int64_t below = m - j - 1;
      auto vj = v.col(j).tail(below);
      Eigen::Matrix<T, 1, Eigen::Dynamic> w =
          out.row(j) + vj.adjoint() * out.bottomRows(below);
      w *= tau;
      out.row(j) -= w;
      out.bottomRows(below).noalias() -= vj * w;
    }
    StoreMatrix<T>(out, q, b, col_major);
  }
  return kStatusOk;
}

}  // namespace

// C linkage: the global functions runtime_lib.h declares.
extern "C" int32_t xlite_cpu_geqrf(int32_t type, const void* a, void* qr,
                                   void* taus, int64_t batch, int64_t m,
                                   int64_t n, int32_t col_major) {
  if (batch < 0 || m < 0 || n < 0) return kStatusInvalidArgument;
  if (batch * m * n > 0 && (a == nullptr || qr == nullptr || taus == nullptr)) {
    return kStatusInvalidArgument;
  }
  return DispatchLinalgType(type, [&](auto t) {
    return Geqrf<decltype(t)>(a, qr, taus, batch, m, n, col_major != 0);
  });
}

extern "C" int32_t xlite_cpu_orgqr(int32_t type, const void* a,
                                   const void* taus, void* q, int64_t batch,
                                   int64_t m, int64_t n, int64_t p,
                                   int32_t col_major) {
  if (batch < 0 || p < 0 || n < p || m < n) return kStatusInvalidArgument;
  if (batch * m * n > 0 &&
      (a == nullptr || q == nullptr || (p > 0 && taus == nullptr))) {
    return kStatusInvalidArgument;
  }
  return DispatchLinalgType(type, [&](auto t) {
    return Orgqr<decltype(t)>(a, taus, q, batch, m, n, p, col_major != 0);
  });
}

}  // namespace xlite::cpu
