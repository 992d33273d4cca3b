// Shape inference for the async family: async-start/update/done around a
// wrapped computation, and the -start/-done pairs of copy and collectives.
// A start's result holds what its done yields.

#include "absl/strings/str_cat.h"
#include "hlo/analysis/shape_inference_internal.h"
#include "hlo/ir/computation.h"

namespace xlite {
namespace shape_inference_internal {
namespace {

// async-start's shape is ((operands), result, state...); update passes it
// on and done yields its result.
absl::StatusOr<Shape> InferAsyncStartUpdateDone(const HloInstruction& hlo) {
  const HloComputation* callee = hlo.async_wrapped_computation();
  if (callee == nullptr) return Invalid("async op has no computation");
  switch (hlo.opcode()) {
    case HloOpcode::kAsyncStart: {
      const Shape& s = hlo.shape();
      if (!s.IsTuple() || s.tuple_shapes_size() < 2 ||
          !s.tuple_shapes(0).IsTuple()) {
        return Invalid(
            "async-start's shape must be ((operands), result, state...)");
      }
      XLITE_RETURN_IF_ERROR(
          CheckCallee(callee, OperandShapes(hlo), "async computation"));
      if (!ShapesCompatible(s.tuple_shapes(1), ProgramResult(callee))) {
        return Invalid(absl::StrCat("async-start result ", S(s.tuple_shapes(1)),
                                    " differs from its computation's ",
                                    S(ProgramResult(callee))));
      }
      return s;
    }
    case HloOpcode::kAsyncUpdate:
      return hlo.operand(0)->shape();
    default: {
      const Shape& start = hlo.operand(0)->shape();
      if (!start.IsTuple() || start.tuple_shapes_size() < 2) {
        return Invalid("async-done's operand must be an async-start");
      }
      return start.tuple_shapes(1);
    }
  }
}

}  // namespace

absl::StatusOr<Shape> InferAsyncShape(const HloInstruction& hlo) {
  switch (hlo.opcode()) {
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
      return InferAsyncStartUpdateDone(hlo);
    case HloOpcode::kCopyDone: {
      const Shape& start = hlo.operand(0)->shape();
      if (!start.IsTuple() || start.tuple_shapes_size() < 1) {
        return Invalid("copy-done's operand must be a copy-start");
      }
      return start.tuple_shapes(0);
    }
    case HloOpcode::kAllReduceDone:
      return hlo.operand(0)->shape();
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteDone: {
      const Shape& start = hlo.operand(0)->shape();
      if (!start.IsTuple() || start.tuple_shapes_size() < 2) {
        return hlo.shape();
      }
      return start.tuple_shapes(1);
    }
    default:  // copy-start
      return hlo.shape();
  }
}

}  // namespace shape_inference_internal
}  // namespace xlite
