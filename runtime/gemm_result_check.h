#ifndef XLITE_RUNTIME_GEMM_RESULT_CHECK_H_
#define XLITE_RUNTIME_GEMM_RESULT_CHECK_H_

// Whether two GEMM algorithms computed the same d: the autotuner keeps an
// algorithm only when its result matches the reference (the first one that
// ran) — a faster algorithm that gets the numbers wrong is not faster.
// Different algorithms sum in different orders (split-K, tile shapes), so
// "the same" is a tolerance scaled to the result type's precision:
// |x - y| <= tolerance * (max(|x|, |y|) + 1), the +1 keeping values near
// zero from failing on rounding alone. NaN must meet NaN, infinities
// their equal.

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "hlo/ir/shape.h"

namespace xlite::runtime {

/// The relative tolerance for results of element type `type`.
double GemmResultTolerance(PrimitiveType type);

/// OK when `candidate` matches `reference` (both d's bytes in `d`'s
/// layout); otherwise which element differs first and by how much:
/// "element 7 is 0.75, the reference has 0.5".
absl::Status CompareGemmResults(const Shape& d, absl::string_view reference,
                                absl::string_view candidate);

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_GEMM_RESULT_CHECK_H_
