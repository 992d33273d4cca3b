#ifndef XLITE_HLO_EVALUATOR_BLOCK_SCALED_CALL_H_
#define XLITE_HLO_EVALUATOR_BLOCK_SCALED_CALL_H_

// The reference numerics of __cudnn$blockScaledDot outside any module:
// what the evaluator computes for the call, for runtimes that hold only
// its description (the GPU emulator's block-scaled dot thunk).

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/ir/literal.h"
#include "hlo/ir/shape.h"

namespace xlite::eval {

/// The call's (result, workspace) tuple of shape `result` from its operand
/// values (scales swizzled in 128x4 tiles): the dequantized operands
/// contracted in f32, times the global scale when there is one, rounded
/// to the result type; the workspace empty. An error when the operands do
/// not fit.
absl::StatusOr<Literal> EvaluateCudnnBlockScaledDot(
    absl::Span<const Literal* const> operands, const Shape& result);

}  // namespace xlite::eval

#endif  // XLITE_HLO_EVALUATOR_BLOCK_SCALED_CALL_H_
