// xlite_cpu_cholesky and xlite_cpu_trsm (see runtime_lib.h): Eigen's LLT
// and triangular solves; the evaluator's counterparts are Cholesky and
// TriangularSolve in hlo/evaluator/linalg_fft.cc and the potrf/trsm custom
// calls in hlo/evaluator/custom_calls.cc.

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <cmath>

#include "cpu_backend/runtime_lib/matrix_batch.h"
#include "cpu_backend/runtime_lib/runtime_lib.h"

namespace xlite::cpu {
namespace {

// The evaluator's column-by-column Cholesky of the Hermitian matrix whose
// lower triangle `h` holds: it keeps going past a non-positive pivot (NaNs
// follow) and returns LAPACK's info (0, or the first such column + 1).
template <typename T>
int32_t CholeskyByColumns(const WorkMatrix<T>& h, WorkMatrix<T>& l) {
  using Real = typename Eigen::NumTraits<T>::Real;
  const int64_t n = h.rows();
  l = WorkMatrix<T>::Zero(n, n);
  int32_t info = 0;
  for (int64_t j = 0; j < n; ++j) {
    const Real d =
        Eigen::numext::real(h(j, j)) - l.row(j).head(j).squaredNorm();
    if (info == 0 && !(d > 0)) info = static_cast<int32_t>(j + 1);
    const Real diag = std::sqrt(d);
    l(j, j) = diag;
    const int64_t below = n - j - 1;
    l.col(j).tail(below) =
        (h.col(j).tail(below) -
         l.block(j + 1, 0, below, j) * l.row(j).head(j).adjoint()) /
        diag;
  }
  return info;
}

template <typename T>
int32_t Cholesky(const void* a, void* factor, int32_t* info, int64_t batch,
                 int64_t n, bool lower, bool keep_other_triangle,
                 bool col_major) {
  using Real = typename Eigen::NumTraits<T>::Real;
  for (int64_t b = 0; b < batch; ++b) {
    const WorkMatrix<T> in = LoadMatrix<T>(a, b, n, n, col_major);
    // The Hermitian matrix, its lower triangle read from the given one.
    const WorkMatrix<T> h = lower ? in : WorkMatrix<T>(in.adjoint());
    WorkMatrix<T> l;
    int32_t status = 0;
    Eigen::LLT<WorkMatrix<T>, Eigen::Lower> llt(h);
    bool ok = llt.info() == Eigen::Success;
    if (ok) {
      l = WorkMatrix<T>::Zero(n, n);
      l.template triangularView<Eigen::Lower>() = llt.matrixL();
      // LLT lets NaN pivots through; the evaluator reports them.
      for (int64_t j = 0; j < n && ok; ++j) {
        ok = Eigen::numext::real(l(j, j)) > Real(0);
      }
    }
    if (!ok) status = CholeskyByColumns<T>(h, l);
    WorkMatrix<T> result = lower ? l : WorkMatrix<T>(l.adjoint());
    if (keep_other_triangle) {
      if (lower) {
        result.template triangularView<Eigen::StrictlyUpper>() =
            in.template triangularView<Eigen::StrictlyUpper>();
      } else {
        result.template triangularView<Eigen::StrictlyLower>() =
            in.template triangularView<Eigen::StrictlyLower>();
      }
    }
    StoreMatrix<T>(result, factor, b, col_major);
    if (info != nullptr) info[b] = status;
  }
  return kStatusOk;
}

// Solves in place: x := op(A)^-1 x (left) or x op(A)^-1 (right), where
// `a` already is op(A) and `Mode` says which triangle of it to read.
template <int Mode, typename T>
void SolveInPlace(const WorkMatrix<T>& a, WorkMatrix<T>& x, bool left) {
  if (left) {
    a.template triangularView<Mode>().template solveInPlace<Eigen::OnTheLeft>(
        x);
  } else {
    a.template triangularView<Mode>().template solveInPlace<Eigen::OnTheRight>(
        x);
  }
}

template <typename T>
int32_t Trsm(const void* a, const void* b, void* x, int64_t batch, int64_t m,
             int64_t n, bool left, bool lower, int32_t transpose, bool unit,
             bool col_major) {
  const int64_t s = left ? m : n;
  for (int64_t i = 0; i < batch; ++i) {
    WorkMatrix<T> op = LoadMatrix<T>(a, i, s, s, col_major);
    bool op_lower = lower;
    // op(A) explicitly: its given triangle is A's other one.
    if (transpose == kTrsmTranspose) {
      op.transposeInPlace();
      op_lower = !lower;
    } else if (transpose == kTrsmAdjoint) {
      op.adjointInPlace();
      op_lower = !lower;
    }
    WorkMatrix<T> sol = LoadMatrix<T>(b, i, m, n, col_major);
    if (op_lower) {
      unit ? SolveInPlace<Eigen::UnitLower>(op, sol, left)
           : SolveInPlace<Eigen::Lower>(op, sol, left);
    } else {
      unit ? SolveInPlace<Eigen::UnitUpper>(op, sol, left)
           : SolveInPlace<Eigen::Upper>(op, sol, left);
    }
    StoreMatrix<T>(sol, x, i, col_major);
  }
  return kStatusOk;
}

}  // namespace

// C linkage: the global functions runtime_lib.h declares.
extern "C" int32_t xlite_cpu_cholesky(int32_t type, const void* a, void* factor,
                                      int32_t* info, int64_t batch, int64_t n,
                                      int32_t lower,
                                      int32_t keep_other_triangle,
                                      int32_t col_major) {
  if (batch < 0 || n < 0) return kStatusInvalidArgument;
  if (batch > 0 && n > 0 && (a == nullptr || factor == nullptr)) {
    return kStatusInvalidArgument;
  }
  return DispatchLinalgType(type, [&](auto t) {
    return Cholesky<decltype(t)>(a, factor, info, batch, n, lower != 0,
                                 keep_other_triangle != 0, col_major != 0);
  });
}

extern "C" int32_t xlite_cpu_trsm(int32_t type, const void* a, const void* b,
                                  void* x, int64_t batch, int64_t m, int64_t n,
                                  int32_t left, int32_t lower,
                                  int32_t transpose, int32_t unit_diagonal,
                                  int32_t col_major) {
  if (batch < 0 || m < 0 || n < 0 || transpose < kTrsmNoTranspose ||
      transpose > kTrsmAdjoint) {
    return kStatusInvalidArgument;
  }
  if (batch * m * n > 0 && (a == nullptr || b == nullptr || x == nullptr)) {
    return kStatusInvalidArgument;
  }
  return DispatchLinalgType(type, [&](auto t) {
    return Trsm<decltype(t)>(a, b, x, batch, m, n, left != 0, lower != 0,
                             transpose, unit_diagonal != 0, col_major != 0);
  });
}

}  // namespace xlite::cpu
