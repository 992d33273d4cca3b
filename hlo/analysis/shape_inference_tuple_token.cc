// Shape inference for the tuple-and-token and host transfer families:
// tuples, the ops that order or annotate a value without changing it, and
// infeed/outfeed/send/recv, whose tokens order them against each other.

#include "absl/strings/str_cat.h"
#include "hlo/analysis/shape_inference_internal.h"

namespace xlite {
namespace shape_inference_internal {
namespace {

absl::StatusOr<Shape> InferGetTupleElement(const HloInstruction& hlo) {
  const Shape& in = hlo.operand(0)->shape();
  if (!in.IsTuple()) {
    return Invalid(absl::StrCat("get-tuple-element of a non-tuple ", S(in)));
  }
  if (hlo.tuple_index() < 0 || hlo.tuple_index() >= in.tuple_shapes_size()) {
    return Invalid(absl::StrCat("tuple index ", hlo.tuple_index(),
                                " is out of range for ", S(in)));
  }
  return in.tuple_shapes(hlo.tuple_index());
}

}  // namespace

absl::StatusOr<Shape> InferTupleAndTokenShape(const HloInstruction& hlo) {
  switch (hlo.opcode()) {
    case HloOpcode::kGetTupleElement:
      return InferGetTupleElement(hlo);
    case HloOpcode::kTuple:
      return Shape::Tuple(OperandShapes(hlo));
    case HloOpcode::kAfterAll:
      // XLA orders after any operand, token or not: its verifier checks
      // only that the result is a token.
      return Shape::Token();
    default:  // add-dependency, opt-barrier, domain
      return hlo.operand(0)->shape();
  }
}

absl::StatusOr<Shape> InferHostTransferShape(const HloInstruction& hlo) {
  switch (hlo.opcode()) {
    case HloOpcode::kSend:
      return Shape::Tuple({hlo.operand(0)->shape(),
                           Shape(PrimitiveType::kU32, {}), Shape::Token()});
    case HloOpcode::kSendDone:
    case HloOpcode::kOutfeed:
      return Shape::Token();
    case HloOpcode::kRecvDone: {
      const Shape& recv = hlo.operand(0)->shape();
      if (!recv.IsTuple() || recv.tuple_shapes_size() < 1) {
        return Invalid("recv-done's operand must be a recv");
      }
      return Shape::Tuple({recv.tuple_shapes(0), Shape::Token()});
    }
    default:
      // infeed and recv: the data comes from outside the module. infeed's
      // (data, token) form is checked by the verifier (CheckInfeed).
      return hlo.shape();
  }
}

}  // namespace shape_inference_internal
}  // namespace xlite
