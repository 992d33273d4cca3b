#ifndef XLITE_CPU_BACKEND_LOGISTIC_EXPANSION_H_
#define XLITE_CPU_BACKEND_LOGISTIC_EXPANSION_H_

// XLA:CPU computes `logistic` as 1 / (1 + exp(-x)) in the type it computes
// the element type in (its float normalization comes first, its logistic
// expander after): every step of that expansion rounds to that type, and
// the quotient rounds once more to the element type. For bf16 and
// f8e8m0fnu (computed in f32), f32, f64 and the complex types that is what
// the logistic op computes here (in f32 or wider, rounded once). It is not
// for f16 and the types XLA:CPU computes in f16 (the f8 types but
// f8e8m0fnu, and f4e2m1fn): there the sum and the quotient round to f16
// before the result does: the f16 logistic of 2 is 0.88037109375 (0x3B0B)
// in XLA:CPU, where the f32 logistic, 0.880797, rounds to 0.880859375
// (0x3B0C).
//
// ExpandLogisticsInF16 rewrites those logistics into that expansion:
// logistic(x) becomes convert(1 / (1 + exp(-convert(x)))), the expansion
// in f16 (no converts for f16 itself). It runs after the widening converts
// are folded (widening_converts.h), as XLA's normalization decides which
// type a logistic computes in before it is expanded: a convert to f16 of
// an f8 logistic reads the f16 quotient. Fusion computations are left
// alone (a fused module comes from XLA expanded already).

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"

namespace xlite::cpu {

/// Expands the logistics of f16 and of the types computed in f16 (above)
/// in the non-fusion computations; true if any changed.
absl::StatusOr<bool> ExpandLogisticsInF16(HloModule& module);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_LOGISTIC_EXPANSION_H_
