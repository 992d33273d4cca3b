#ifndef XLITE_HLO_EVALUATOR_EIGH_SVD_H_
#define XLITE_HLO_EVALUATOR_EIGH_SVD_H_

// The LAPACK FFI custom calls JAX's CPU lowering emits for
// jnp.linalg.eigh and jnp.linalg.svd, with LAPACK's results computed by
// the Jacobi methods of hlo/ir/jacobi_linalg.h (shared with the CPU
// runtime library). Leading dimensions are batch dimensions; the matrices
// are logical [m, n] whatever their layout (JAX asks for column-major).
//
//   (v, w, info) = lapack_{s,d}syevd_ffi / lapack_{c,z}heevd_ffi(a)
//     a: [..., n, n] Hermitian, only its `uplo` triangle read
//     ({mode = 86 'V' | 78 'N', uplo = 76 'L' | 85 'U'}).
//     v: [..., n, n] unit eigenvectors as columns (a's type); w: [..., n]
//     eigenvalues ascending (the real type); info: s32[...], 0.
//     Mode 'N' computes v all the same (LAPACK leaves it unspecified).
//
//   (a', s, u, vt, info) = lapack_{s,d,c,z}gesdd_ffi(a)
//     a: [..., m, n]; {mode = 65 'A' | 83 'S' | 78 'N'}, k = min(m, n).
//     a': a unchanged (LAPACK leaves garbage there); s: [..., k]
//     descending (real type); u: [..., m, m] ('A') or [..., m, k] ('S');
//     vt: [..., n, n] or [..., k, n], vt = V^H; a = u diag(s) vt. 'N'
//     (compute_uv=False) comes with either shape of u and vt and computes
//     them all the same (LAPACK leaves them unspecified).
//     lapack_?gesvd_ffi (jax's SvdAlgorithm.QR) has the same operands,
//     results and modes, and runs the same computation.
//     info: 0, or -4 where a holds a NaN (LAPACK's check), with NaN
//     results; infinities give NaN results and info 0.

#include "absl/status/statusor.h"
#include "hlo/ir/literal.h"

namespace xlite::eval {

/// syevd/heevd of every matrix of `a`; `shape` is the call's tuple shape.
absl::StatusOr<Literal> HermitianEigenCall(const Literal& a, bool lower,
                                           const Shape& shape);

/// gesdd (or gesvd) of every matrix of `a`; `mode` is the call's 'A',
/// 'S' or 'N' (whose u and vt shapes say full or reduced).
absl::StatusOr<Literal> SvdCall(const Literal& a, int64_t mode,
                                const Shape& shape);

}  // namespace xlite::eval

#endif  // XLITE_HLO_EVALUATOR_EIGH_SVD_H_
