#ifndef XLITE_CPU_BACKEND_WIDENING_CONVERTS_H_
#define XLITE_CPU_BACKEND_WIDENING_CONVERTS_H_

// XLA:CPU computes the narrow types in a wider one (its float
// normalization: bf16 and f8e8m0fnu in f32, the other f8 types and
// f4e2m1fn in f16, s4 and u4 in s8 and u8) and rounds (wraps) each result
// back, except for a user that
// converts the result to exactly that wider type: that convert is dropped
// and reads the value before its rounding. So convert<f32>(multiply<bf16>(a,
// b)) is the f32 product of a and b, not the product rounded to bf16 (a
// bf16 layer norm's `x.astype(f32)` after an add, a bf16 dot's result
// widened for a softmax). Other users of the narrow operation still read
// its rounded value.
//
// FoldWideningConverts makes that explicit, as XLA does before it
// simplifies anything: each such convert becomes its operand's operation
// computed in the wide type on its operands converted (exactly) to it.
// Operations: the elementwise ones, reduce-precision, dot and convolution
// (data movement and reductions, whose reducers round every step, give
// values of the narrow type either way). The operand converts it adds are
// not folded again, so the rewrite must run once, before anything but the
// contraction casts rewrites the module (xla_cpu_numerics.h runs it before
// the pipeline, where XLA:CPU normalizes before simplifying). Fusion
// computations are left alone: a fused module comes from XLA already
// normalized.

#include <optional>

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"
#include "hlo/ir/primitive_type.h"

namespace xlite::cpu {

/// The type XLA:CPU computes `narrow` in (f32 for bf16 and f8e8m0fnu, f16
/// for the other f8 types and f4e2m1fn, s8 and u8 for s4 and u4); nullopt
/// for the types it computes natively.
std::optional<PrimitiveType> NormalizedComputeType(PrimitiveType narrow);

/// Rewrites every convert that reads an unrounded value (above) in the
/// non-fusion computations; true if any changed.
absl::StatusOr<bool> FoldWideningConverts(HloModule& module);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_WIDENING_CONVERTS_H_
