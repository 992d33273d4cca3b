#ifndef XLITE_HLO_IR_JACOBI_LINALG_H_
#define XLITE_HLO_IR_JACOBI_LINALG_H_

// The Hermitian eigendecomposition (LAPACK syevd/heevd) and the singular
// value decomposition (gesdd) of one matrix, by Jacobi rotations, written
// once for the evaluator (hlo/evaluator/eigh_svd.cc) and the CPU runtime
// library (cpu_backend/runtime_lib/eigh_svd.cc), which must agree and may
// not call each other. Header-only and dependency-free, so that AOT
// libraries built on the runtime library need nothing more at run time.
//
// Matrices are column-major (element (i, j) of an m-row matrix at i + j m),
// complex<double> whatever the caller's type: a real matrix is one with
// zero imaginary parts, and f32 callers round once at the end.
//
// Cyclic Jacobi converges quadratically; a pair is left alone once its
// off-diagonal entry is below eps times the geometric mean of its diagonal
// entries (the relative criterion of Demmel and Veselic), so the results
// are accurate to a few ulps of the matrix norm. Non-finite input gives
// NaN results rather than a sweep count exhausted on NaN comparisons.

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

namespace xlite::jacobi {

using Complex = std::complex<double>;

/// A rotation in the (p, q) plane: G = [[c, s], [-s conj(e), c conj(e)]]
/// with |e| = 1, so that G^H [[a, g], [conj(g), b]] G is real diagonal.
struct Rotation {
  double c = 1;
  double s = 0;
  Complex e = 1;
};

/// The rotation that diagonalizes the Hermitian 2x2 [[alpha, g],
/// [conj(g), beta]] (alpha, beta real); g != 0.
inline Rotation DiagonalizingRotation(double alpha, double beta, Complex g) {
  const double r = std::abs(g);
  Rotation rot;
  rot.e = g / r;
  // With g made real (r), the classic symmetric Jacobi angle.
  const double theta = (beta - alpha) / (2 * r);
  double t;
  if (std::abs(theta) > 1e150) {
    t = 0.5 / theta;
  } else {
    t = (theta >= 0 ? 1.0 : -1.0) /
        (std::abs(theta) + std::sqrt(theta * theta + 1));
  }
  rot.c = 1 / std::sqrt(t * t + 1);
  rot.s = t * rot.c;
  return rot;
}

/// Columns p and q of the rows x cols matrix `x` := x G.
inline void RotateColumns(std::vector<Complex>& x, int64_t rows, int64_t p,
                          int64_t q, const Rotation& g) {
  Complex* xp = x.data() + p * rows;
  Complex* xq = x.data() + q * rows;
  const Complex ce = std::conj(g.e);
  for (int64_t k = 0; k < rows; ++k) {
    const Complex a = xp[k], b = xq[k];
    xp[k] = g.c * a - g.s * ce * b;
    xq[k] = g.s * a + g.c * ce * b;
  }
}

/// Rows p and q of the n x n matrix `x` := G^H x.
inline void RotateRows(std::vector<Complex>& x, int64_t n, int64_t p, int64_t q,
                       const Rotation& g) {
  for (int64_t k = 0; k < n; ++k) {
    const Complex a = x[p + k * n], b = x[q + k * n];
    x[p + k * n] = g.c * a - g.s * g.e * b;
    x[q + k * n] = g.s * a + g.c * g.e * b;
  }
}

inline bool AllFinite(const std::vector<Complex>& x) {
  return std::all_of(x.begin(), x.end(), [](const Complex& v) {
    return std::isfinite(v.real()) && std::isfinite(v.imag());
  });
}

inline constexpr int kMaxSweeps = 100;

/// Eigenvalues (ascending, into `w`, n of them) and unit eigenvectors (the
/// columns of `v`, n x n) of the n x n Hermitian matrix `a`, whose
/// diagonal's imaginary parts are ignored and whose `lower` (else upper)
/// triangle is read. Returns false (results NaN) on non-finite input.
inline bool HermitianEigen(std::vector<Complex> a, int64_t n, bool lower,
                           std::vector<double>& w, std::vector<Complex>& v) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  w.assign(n, nan);
  v.assign(n * n, Complex(nan, nan));
  if (!AllFinite(a)) return false;
  for (int64_t j = 0; j < n; ++j) {
    a[j + j * n] = a[j + j * n].real();
    for (int64_t i = j + 1; i < n; ++i) {
      Complex& below = a[i + j * n];
      Complex& above = a[j + i * n];
      if (lower) {
        above = std::conj(below);
      } else {
        below = std::conj(above);
      }
    }
  }
  std::vector<Complex> vectors(n * n, 0.0);
  for (int64_t j = 0; j < n; ++j) vectors[j + j * n] = 1;
  const double eps = std::numeric_limits<double>::epsilon();
  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    bool rotated = false;
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        const Complex g = a[p + q * n];
        const double alpha = a[p + p * n].real(), beta = a[q + q * n].real();
        if (std::abs(g) <= eps * std::sqrt(std::abs(alpha) * std::abs(beta)) ||
            std::abs(g) < std::numeric_limits<double>::min()) {
          continue;
        }
        rotated = true;
        const Rotation rot = DiagonalizingRotation(alpha, beta, g);
        RotateColumns(a, n, p, q, rot);
        RotateRows(a, n, p, q, rot);
        a[p + q * n] = a[q + p * n] = 0;
        a[p + p * n] = a[p + p * n].real();
        a[q + q * n] = a[q + q * n].real();
        RotateColumns(vectors, n, p, q, rot);
      }
    }
    if (!rotated) break;
  }
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
    return a[x + x * n].real() < a[y + y * n].real();
  });
  for (int64_t j = 0; j < n; ++j) {
    w[j] = a[order[j] + order[j] * n].real();
    std::copy_n(vectors.begin() + order[j] * n, n, v.begin() + j * n);
  }
  return true;
}

/// Makes columns [from, cols) of the rows x cols matrix `u` (whose columns
/// [0, from) are orthonormal) orthonormal to them and to each other,
/// drawing candidates from the unit vectors, the least represented first.
inline void CompleteOrthonormal(std::vector<Complex>& u, int64_t rows,
                                int64_t from, int64_t cols) {
  for (int64_t j = from; j < cols; ++j) {
    std::vector<Complex> best;
    double best_norm = -1;
    for (int64_t k = 0; k < rows; ++k) {
      std::vector<Complex> x(rows, 0.0);
      x[k] = 1;
      // Twice is enough (Kahan's "twice is enough" for Gram-Schmidt).
      for (int pass = 0; pass < 2; ++pass) {
        for (int64_t i = 0; i < j; ++i) {
          Complex dot = 0;
          for (int64_t r = 0; r < rows; ++r) {
            dot += std::conj(u[r + i * rows]) * x[r];
          }
          for (int64_t r = 0; r < rows; ++r) x[r] -= dot * u[r + i * rows];
        }
      }
      double norm = 0;
      for (const Complex& c : x) norm += std::norm(c);
      if (norm > best_norm) {
        best_norm = norm;
        best = std::move(x);
      }
      if (best_norm > 0.5) break;
    }
    const double scale = 1 / std::sqrt(best_norm);
    for (int64_t r = 0; r < rows; ++r) u[r + j * rows] = best[r] * scale;
  }
}

/// One-sided (Hestenes) Jacobi on the m x n matrix `x`, m >= n: x := x V
/// with V (n x n, into `v`) unitary, until x's columns are orthogonal.
inline void OrthogonalizeColumns(std::vector<Complex>& x, int64_t m, int64_t n,
                                 std::vector<Complex>& v) {
  v.assign(n * n, 0.0);
  for (int64_t j = 0; j < n; ++j) v[j + j * n] = 1;
  const double eps = std::numeric_limits<double>::epsilon();
  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    bool rotated = false;
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        double alpha = 0, beta = 0;
        Complex g = 0;
        for (int64_t k = 0; k < m; ++k) {
          const Complex xp = x[k + p * m], xq = x[k + q * m];
          alpha += std::norm(xp);
          beta += std::norm(xq);
          g += std::conj(xp) * xq;
        }
        if (std::abs(g) <= eps * std::sqrt(alpha) * std::sqrt(beta) ||
            std::abs(g) < std::numeric_limits<double>::min()) {
          continue;
        }
        rotated = true;
        const Rotation rot = DiagonalizingRotation(alpha, beta, g);
        RotateColumns(x, m, p, q, rot);
        RotateColumns(v, n, p, q, rot);
      }
    }
    if (!rotated) break;
  }
}

/// The SVD a = U diag(s) V^H of the m x n matrix `a`, k = min(m, n):
/// `s` gets the k singular values, descending; `u` the m x ucols matrix
/// U and `vh` the vhrows x n matrix V^H, where ucols = m and vhrows = n
/// when `full` (U and V square), else both k. Returns false (results NaN)
/// on non-finite input.
inline bool Svd(const std::vector<Complex>& a, int64_t m, int64_t n, bool full,
                std::vector<double>& s, std::vector<Complex>& u,
                std::vector<Complex>& vh) {
  const int64_t k = std::min(m, n);
  const int64_t ucols = full ? m : k, vhrows = full ? n : k;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  s.assign(k, nan);
  u.assign(m * ucols, Complex(nan, nan));
  vh.assign(vhrows * n, Complex(nan, nan));
  if (!AllFinite(a)) return false;
  // Work on a (tall: rows = m) or on a^H (wide: rows = n): x = a or a^H.
  const bool tall = m >= n;
  const int64_t rows = tall ? m : n, cols = k;
  std::vector<Complex> x(rows * cols);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      x[i + j * rows] = tall ? a[i + j * m] : std::conj(a[j + i * m]);
    }
  }
  // x V = W with W's columns orthogonal: x = W V^H; W = left vectors * s.
  std::vector<Complex> right;
  OrthogonalizeColumns(x, rows, cols, right);
  std::vector<double> norms(cols);
  for (int64_t j = 0; j < cols; ++j) {
    double sum = 0;
    for (int64_t r = 0; r < rows; ++r) sum += std::norm(x[r + j * rows]);
    norms[j] = std::sqrt(sum);
  }
  std::vector<int64_t> order(cols);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t p, int64_t q) { return norms[p] > norms[q]; });
  // left: rows x (full ? rows : k); right_sorted: k x k.
  const int64_t left_cols = full ? rows : k;
  std::vector<Complex> left(rows * left_cols, 0.0), right_sorted(k * k);
  int64_t nonzero = 0;
  for (int64_t j = 0; j < k; ++j) {
    const int64_t from = order[j];
    s[j] = norms[from];
    if (norms[from] > 0) ++nonzero;
    for (int64_t r = 0; r < rows; ++r) {
      left[r + j * rows] =
          norms[from] > 0 ? x[r + from * rows] / norms[from] : 0.0;
    }
    std::copy_n(right.begin() + from * k, k, right_sorted.begin() + j * k);
  }
  CompleteOrthonormal(left, rows, nonzero, left_cols);
  // tall: U = left, V = right (k = n). wide: U = right (k = m), V = left.
  const std::vector<Complex>& uu = tall ? left : right_sorted;
  const std::vector<Complex>& vv = tall ? right_sorted : left;
  std::copy_n(uu.begin(), m * ucols, u.begin());
  for (int64_t i = 0; i < vhrows; ++i) {
    for (int64_t j = 0; j < n; ++j)
      vh[i + j * vhrows] = std::conj(vv[j + i * n]);
  }
  return true;
}

}  // namespace xlite::jacobi

#endif  // XLITE_HLO_IR_JACOBI_LINALG_H_
