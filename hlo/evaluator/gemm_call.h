#ifndef XLITE_HLO_EVALUATOR_GEMM_CALL_H_
#define XLITE_HLO_EVALUATOR_GEMM_CALL_H_

// The reference numerics of XLA:GPU's cuBLAS GEMM calls, outside any
// module: what the evaluator computes for such a custom call, for runtimes
// that hold only the call's description (the GPU emulator's GEMM thunk).

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/ir/gemm_config.h"
#include "hlo/ir/literal.h"
#include "hlo/ir/shape.h"

namespace xlite::eval {

/// The call's result (d, or the tuple with aux/amax/workspace) from its
/// operand values, as the evaluator gives it for the custom call (the dot
/// in the result type, each epilogue step rounded to it). An error when
/// the operands do not fit the config.
absl::StatusOr<Literal> EvaluateGemmCall(
    GemmTarget target, const GemmBackendConfig& config,
    absl::Span<const Literal* const> operands, const Shape& result);

}  // namespace xlite::eval

#endif  // XLITE_HLO_EVALUATOR_GEMM_CALL_H_
