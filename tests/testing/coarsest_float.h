#ifndef XLITE_TESTS_TESTING_COARSEST_FLOAT_H_
#define XLITE_TESTS_TESTING_COARSEST_FLOAT_H_

// The coarsest float type any instruction of a module computes in: results
// derived from it carry its rounding whatever type they end in (and XLA's
// optimizer may move where that rounding happens), so corpus comparisons
// pick their tolerance from it.

#include "hlo/ir/module.h"
#include "hlo/ir/primitive_type.h"

namespace xlite::testing {

/// Precision rank of float and complex types, lower for coarser: f64/c128
/// 4, f32/c64 3, f16 2, bf16 1, anything else (f8, f4) 0.
int FloatPrecision(PrimitiveType type);

/// f64 when the module computes in nothing coarser.
PrimitiveType CoarsestFloat(const HloModule& module);

}  // namespace xlite::testing

#endif  // XLITE_TESTS_TESTING_COARSEST_FLOAT_H_
