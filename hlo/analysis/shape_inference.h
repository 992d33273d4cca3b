#ifndef XLITE_HLO_ANALYSIS_SHAPE_INFERENCE_H_
#define XLITE_HLO_ANALYSIS_SHAPE_INFERENCE_H_

#include "absl/status/statusor.h"
#include "hlo/ir/instruction.h"

namespace xlite {

/// Whether the parser may omit the result shape of `opcode` (XLA's list:
/// ops whose result follows from operands and attributes alone).
bool CanInferShape(HloOpcode opcode);

/// The result shape `hlo` must have, from its operands, attributes and
/// called computations, without layout. Checks every operand constraint
/// (counts, element types, dimension numbers, callee signatures) and explains
/// the first violation. Opcodes whose result depends on information the IR
/// does not carry (custom-call, reshape target, convert target, rng,
/// collectives with unknown group sizes...) return the declared shape after
/// checking what can be checked.
absl::StatusOr<Shape> InferShape(const HloInstruction& hlo);

/// Whether the declared and inferred shapes agree for `hlo`: equal ignoring
/// layout, except that dot/convolution-like ops may declare a different
/// (preferred) element type.
bool DeclaredShapeMatches(const HloInstruction& hlo, const Shape& inferred);

}  // namespace xlite

#endif  // XLITE_HLO_ANALYSIS_SHAPE_INFERENCE_H_
