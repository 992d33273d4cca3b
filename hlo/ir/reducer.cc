#include "hlo/ir/reducer.h"

#include "hlo/ir/instruction.h"
#include "hlo/ir/opcode.h"

namespace xlite {

bool IsReassociableReducer(const HloComputation& reducer) {
  if (reducer.num_parameters() != 2) return false;
  const HloInstruction* root = reducer.root_instruction();
  if (root == nullptr || root->operand_count() != 2 ||
      !root->shape().IsArray() || root->shape().rank() != 0) {
    return false;
  }
  const HloInstruction* a = root->operand(0);
  const HloInstruction* b = root->operand(1);
  if (a->opcode() != HloOpcode::kParameter ||
      b->opcode() != HloOpcode::kParameter ||
      a->parameter_number() == b->parameter_number()) {
    return false;
  }
  const PrimitiveType type = root->shape().element_type();
  if (a->shape().element_type() != type || b->shape().element_type() != type ||
      a->shape().rank() != 0 || b->shape().rank() != 0) {
    return false;
  }
  switch (root->opcode()) {
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
      return IsFloatingPoint(type) || IsInteger(type) ||
             type == PrimitiveType::kPred;
    case HloOpcode::kAdd:
    case HloOpcode::kMultiply:
      return IsInteger(type);
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
      return IsInteger(type) || type == PrimitiveType::kPred;
    default:
      return false;
  }
}

bool IsReassociableReduce(const HloInstruction& reduce) {
  if (reduce.opcode() != HloOpcode::kReduce || reduce.operand_count() != 2 ||
      reduce.to_apply() == nullptr ||
      !IsReassociableReducer(*reduce.to_apply())) {
    return false;
  }
  const HloOpcode op = reduce.to_apply()->root_instruction()->opcode();
  if (op == HloOpcode::kMaximum || op == HloOpcode::kMinimum ||
      op == HloOpcode::kAnd || op == HloOpcode::kOr) {
    return true;
  }
  const HloInstruction* init = reduce.operand(1);
  if (init->opcode() != HloOpcode::kConstant || !init->has_attrs() ||
      !init->attrs().literal.has_value() ||
      init->attrs().literal->element_count() != 1) {
    return false;
  }
  const uint64_t bits = init->attrs().literal->GetBits(0);
  return op == HloOpcode::kMultiply ? init->attrs().literal->GetAsInt64(0) == 1
                                    : bits == 0;
}

}  // namespace xlite
