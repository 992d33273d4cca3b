#ifndef XLITE_TESTS_TESTING_RESULT_DIFFERENCE_H_
#define XLITE_TESTS_TESTING_RESULT_DIFFERENCE_H_

// The tolerance policy of cross-platform translation validation (the cpu
// backend against the interpreter): integers, pred and the bits of
// everything else that is not a float compare exactly; floats and
// complex numbers within 1e-3 absolute + 1e-3 relative, NaN where NaN
// (any NaN), infinities exactly. A backend that sums in another order
// than the interpreter (the gpu backend's reductions: per-thread partial
// sums, then warp shuffles) may also be off by a few units of the
// narrow float types' precision (ResultTolerance::type_epsilons).

#include <string>
#include <vector>

#include "hlo/ir/literal.h"

namespace xlite::testing {

struct ResultTolerance {
  double absolute = 1e-3;
  double relative = 1e-3;
  /// Also accepted: |got - want| <= type_epsilons * eps(T) * max(|want|, 1)
  /// where eps(T) = 2^-mantissa_bits of the result's float type T (0.0078
  /// for bf16, 0.125 for f8e4m3). Rounding at every step of a sum in T
  /// makes its value depend on the order by about that much; 0: off.
  double type_epsilons = 0;
  /// Per result leaf (tuples flattened in order), a type coarser than the
  /// leaf's own that its values were rounded through, whose epsilon
  /// type_epsilons then counts instead (kInvalid or no entry: none). A
  /// backend may move where that rounding happens: the gpu's GEMM
  /// rewriter folds a bf16 GEMM's scale, bias and residual into the call,
  /// rounding once after them instead of after each, and a later convert
  /// to f16 or f32 keeps the bf16-sized difference.
  std::vector<PrimitiveType> rounding_types;
};

/// "" when `got` matches `want` under the policy; otherwise the first
/// difference ("result 1 element 3: 2 vs 5").
std::string ResultDifference(const Literal& got, const Literal& want,
                             const ResultTolerance& tolerance = {});

/// The tolerance for a backend that reduces in another order: the
/// default plus 4 epsilons of the result type.
ResultTolerance ReorderedReductionTolerance();

}  // namespace xlite::testing

#endif  // XLITE_TESTS_TESTING_RESULT_DIFFERENCE_H_
