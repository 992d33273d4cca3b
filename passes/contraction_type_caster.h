#ifndef XLITE_PASSES_CONTRACTION_TYPE_CASTER_H_
#define XLITE_PASSES_CONTRACTION_TYPE_CASTER_H_

// A dot or convolution with a real floating point result computes in the
// higher of its operands' and result's element types, as XLA's
// OperandUpcaster and ResultCaster rewrite it before XLA:CPU decides how
// each type computes. "Higher" is XLA's order: a floating point type with
// a larger range (the power of two it overflows at) first, then one with
// more significand bits; integer and pred operands are below every float.
// With C that type:
//
//   - an operand whose values C does not hold exactly (f8e4m3fn in
//     f8e5m2, f16 in bf16, s16 in bf16) is converted to C: it rounds
//     before it is multiplied;
//   - a result type below C gets the product computed in C and then
//     converted, so it rounds twice: dot(bf16, bf16) -> f8e4m3fn rounds
//     its f32 sum to bf16, then to f8e4m3fn; dot(f8e4m3fn, f8e5m2) ->
//     f8e4m3fn rounds to f16, to f8e5m2, then to f8e4m3fn. A result
//     converted to a wider type reads the rounded value (dot(f32, f32) ->
//     bf16, converted to f32, is rounded).
//
// Floating point operands C holds exactly stay as they are (the dot reads
// them exactly either way); integer and pred operands of another type are
// converted whatever their values, so the product is a float one. Types
// that tie in the order without being the same
// (f8e5m2 and f8e5m2fnuz, f8e4m3 and f8e4m3fnuz) leave the instruction
// alone: XLA fails a CHECK on them. Complex and integer results and
// fusion computations are left alone too.

#include <optional>

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"
#include "hlo/ir/primitive_type.h"

namespace xlite {

/// The higher of two types in XLA's order (above; complex above real, then
/// wider, then signed), or nullopt when two different types tie.
std::optional<PrimitiveType> HigherPrecisionType(PrimitiveType a,
                                                 PrimitiveType b);

/// Whether every value of the floating point type `from` converts to the
/// floating point type `to` unchanged (false for other `from` types but
/// `to` itself).
bool ConvertsExactly(PrimitiveType from, PrimitiveType to);

/// contraction-type-caster: rewrites every dot and convolution of the
/// non-fusion computations (above); true if any changed.
absl::StatusOr<bool> CastContractionTypes(HloModule& module);

}  // namespace xlite

#endif  // XLITE_PASSES_CONTRACTION_TYPE_CASTER_H_
