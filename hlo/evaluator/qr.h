#ifndef XLITE_HLO_EVALUATOR_QR_H_
#define XLITE_HLO_EVALUATOR_QR_H_

// The QR custom calls XLA's QrExpander lowers (xla/service/qr_expander.cc),
// with LAPACK's semantics:
//
//   (a', taus) = custom-call(a), custom_call_target="Qr"
//     a: [..., m, n]; a': [..., m, n]; taus: [..., min(m, n)].
//     geqrf: R on and above the diagonal of a', the Householder vectors
//     (unit leading entry implied) below it; H(j) = I - taus[j] v_j v_j^H
//     and a = H(0) H(1) ... H(k-1) R.
//
//   q = custom-call(a', taus),
//       custom_call_target="ProductOfElementaryHouseholderReflectors"
//     a': [..., m, n] with m >= n; taus: [..., p] with p <= n; q: [..., m, n].
//     orgqr: the first n columns of H(0) H(1) ... H(p-1).
//
// Leading dimensions are batch dimensions. Arithmetic is in double (or
// complex<double>) and rounded to the element type once.

#include "absl/status/statusor.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/ir/literal.h"

namespace xlite::eval {

/// geqrf of every matrix of `a`; the result has shape `shape` (a tuple of
/// a's shape and the taus' shape).
absl::StatusOr<Literal> HouseholderQr(const Literal& a, const Shape& shape);

/// orgqr of every (a, taus) pair; the result has shape `shape` (a's).
absl::StatusOr<Literal> HouseholderProduct(const Literal& a,
                                           const Literal& taus,
                                           const Shape& shape);

/// Registers "Qr" and "ProductOfElementaryHouseholderReflectors".
void RegisterQrCustomCalls(CustomCallRegistry& registry);

}  // namespace xlite::eval

#endif  // XLITE_HLO_EVALUATOR_QR_H_
