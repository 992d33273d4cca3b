#include "cpu_backend/fusion_rules.h"

#include <algorithm>

#include "hlo/ir/opcode.h"
#include "hlo/ir/primitive_type.h"

namespace xlite::cpu {
namespace {

using O = HloOpcode;

bool ElementIsComplex(const HloInstruction& hlo) {
  return hlo.shape().IsArray() && IsComplex(hlo.shape().element_type());
}

bool SameDimensions(const Shape& a, const Shape& b) {
  return a.IsArray() && b.IsArray() && a.dimensions() == b.dimensions();
}

// A constant, or a broadcast of one, holding a single value.
bool IsScalarConstantLike(const HloInstruction* hlo) {
  if (hlo->opcode() == O::kBroadcast) hlo = hlo->operand(0);
  return hlo->opcode() == O::kConstant && hlo->shape().IsArray() &&
         hlo->shape().ElementCount() == 1;
}

// An elementwise op the fused loop computes per element: not a
// bitcast-convert between widths (whose result has a dimension more or
// less than its operand).
bool IsFusibleElementwise(const HloInstruction& hlo) {
  if (!IsElementwiseOpcode(hlo.opcode()) || !hlo.shape().IsArray()) {
    return false;
  }
  return hlo.opcode() != O::kBitcastConvert ||
         SameDimensions(hlo.operand(0)->shape(), hlo.shape());
}

// XLA:CPU materializes concatenates of many operands, and those along the
// minor-most dimension of a large result, rather than fusing them (a branch
// per element in the inner loop).
bool ConcatenateFusesBadly(const HloInstruction& concat) {
  if (concat.operand_count() > 8) return true;
  const Shape& shape = concat.shape();
  if (shape.rank() <= 1 || !shape.has_layout()) return false;
  const int64_t dim = concat.dimensions(0);
  const int64_t element_bytes =
      shape.ElementCount() > 0 ? shape.ByteSizeOfElements() / shape.ElementCount()
                               : 0;
  return shape.layout().minor_to_major()[0] == dim &&
         shape.dimensions(dim) * element_bytes >= 64 &&
         shape.ByteSizeOfElements() >= 2048;
}

}  // namespace

bool IsExpensive(const HloInstruction& hlo) {
  switch (hlo.opcode()) {
    case O::kAdd: case O::kAnd: case O::kBitcast: case O::kBitcastConvert:
    case O::kBroadcast: case O::kCeil: case O::kClamp: case O::kClz:
    case O::kCompare: case O::kComplex: case O::kConcatenate:
    case O::kConstant: case O::kCopy: case O::kDynamicSlice:
    case O::kDynamicUpdateSlice: case O::kFloor: case O::kGetTupleElement:
    case O::kImag: case O::kIota: case O::kIsFinite: case O::kMaximum:
    case O::kMinimum: case O::kMultiply: case O::kMulhi: case O::kNegate:
    case O::kNot: case O::kOr: case O::kPad: case O::kPopulationCount:
    case O::kReal: case O::kReducePrecision: case O::kReshape:
    case O::kReverse: case O::kRoundNearestAfz: case O::kRoundNearestEven:
    case O::kSelect: case O::kShiftLeft: case O::kShiftRightArithmetic:
    case O::kShiftRightLogical: case O::kSlice: case O::kStochasticConvert:
    case O::kSubtract: case O::kTranspose: case O::kTuple: case O::kXor:
      return false;
    case O::kAbs: case O::kSign: case O::kCos: case O::kSin: case O::kTan:
      return ElementIsComplex(hlo);
    case O::kConvert:
      // f32 -> bf16 rounds with NaN checks; widening is a shift.
      return hlo.shape().element_type() == PrimitiveType::kBF16 &&
             hlo.operand(0)->shape().element_type() == PrimitiveType::kF32;
    case O::kDivide:
    case O::kRemainder:
      // Integer division by a constant becomes multiplies and shifts.
      return !(IsInteger(hlo.shape().element_type()) &&
               IsScalarConstantLike(hlo.operand(1)));
    default:
      return true;
  }
}

bool CanRootFusion(const HloInstruction& hlo) {
  if (hlo.HasSideEffect() || !hlo.control_predecessors().empty() ||
      !hlo.control_successors().empty()) {
    return false;
  }
  switch (hlo.opcode()) {
    case O::kBroadcast: case O::kDynamicSlice: case O::kDynamicUpdateSlice:
    case O::kGather: case O::kPad: case O::kReshape: case O::kReverse:
    case O::kSlice: case O::kTranspose:
      return hlo.shape().IsArray();
    case O::kConcatenate:
      return hlo.shape().IsArray();
    case O::kReduce:
    case O::kReduceWindow:
      // Variadic forms root a multi-output kernel (a tuple of arrays).
      if (hlo.shape().IsTuple()) {
        for (const Shape& leaf : hlo.shape().tuple_shapes()) {
          if (!leaf.IsArray()) return false;
        }
        return true;
      }
      return hlo.shape().IsArray();
    default:
      return IsFusibleElementwise(hlo);
  }
}

bool CanFuseAsProducer(const HloInstruction& hlo) {
  if (hlo.HasSideEffect() || !hlo.control_predecessors().empty() ||
      !hlo.control_successors().empty() || !hlo.shape().IsArray()) {
    return false;
  }
  switch (hlo.opcode()) {
    case O::kConstant:
      // Large constants stay in their own buffers.
      return hlo.shape().ElementCount() <= 1;
    case O::kBitcast: case O::kBroadcast: case O::kDynamicSlice:
    case O::kGather: case O::kIota: case O::kPad: case O::kReshape:
    case O::kReverse: case O::kSlice: case O::kTranspose:
    case O::kReduceWindow:
      return true;
    case O::kReduce:
      return hlo.operand_count() == 2;
    case O::kConcatenate:
      return !ConcatenateFusesBadly(hlo);
    default:
      // A dynamic-update-slice stays a root, updating its buffer in place.
      return IsFusibleElementwise(hlo);
  }
}

bool ReadsAtSameIndex(const HloInstruction& consumer, int64_t operand_index) {
  const HloInstruction* operand = consumer.operand(operand_index);
  if (!SameDimensions(operand->shape(), consumer.shape())) return false;
  switch (consumer.opcode()) {
    case O::kCopy:
      return true;
    case O::kDynamicUpdateSlice:
      return operand_index == 0;
    default:
      return IsElementwiseOpcode(consumer.opcode()) &&
             consumer.opcode() != O::kBitcastConvert;
  }
}

bool ReusesOperand(const HloInstruction& consumer, int64_t operand_index) {
  const Shape& operand = consumer.operand(operand_index)->shape();
  if (!operand.IsArray()) return true;
  // One element read by at most one element of the result.
  if (operand.ElementCount() <= 1 && consumer.shape().IsArray() &&
      consumer.shape().ElementCount() <= 1) {
    return false;
  }
  switch (consumer.opcode()) {
    case O::kBitcast: case O::kReshape: case O::kTranspose: case O::kCopy:
    case O::kReverse: case O::kSlice: case O::kConcatenate:
      return false;
    case O::kPad:
      return operand_index == 1;  // the padding value
    case O::kBroadcast:
      return consumer.shape().ElementCount() > operand.ElementCount();
    case O::kDynamicSlice:
      return operand_index != 0;
    case O::kDynamicUpdateSlice:
      return operand_index >= 2;
    case O::kReduce:
      return operand_index >= consumer.operand_count() / 2;  // init values
    case O::kReduceWindow: {
      if (operand_index >= consumer.operand_count() / 2) return true;
      if (!consumer.attrs().window) return true;
      for (const WindowDimension& d : (*consumer.attrs().window).dimensions) {
        if (d.stride < (d.size - 1) * d.window_dilation + 1) return true;
      }
      return false;
    }
    default:
      return !ReadsAtSameIndex(consumer, operand_index) &&
             !(IsElementwiseOpcode(consumer.opcode()) &&
               SameDimensions(operand, consumer.shape()));
  }
}

}  // namespace xlite::cpu
