#include "passes/annotation_calls.h"

#include <vector>

#include "absl/strings/match.h"
#include "hlo/ir/opcode.h"
#include "passes/hlo_util.h"

namespace xlite {
namespace {

// Whether every result leaf of `hlo` is an array shaped like the operand
// that fills it (operand i for leaf i, the only operand for an array).
bool PassesOperandsThrough(const HloInstruction& hlo) {
  const Shape& shape = hlo.shape();
  if (shape.IsArray()) {
    return hlo.operand_count() == 1 && hlo.operand(0)->shape().IsArray() &&
           ShapesCompatible(hlo.operand(0)->shape(), shape);
  }
  if (shape.tuple_shapes_size() != hlo.operand_count()) return false;
  for (int64_t i = 0; i < hlo.operand_count(); ++i) {
    if (!shape.tuple_shapes(i).IsArray() ||
        !hlo.operand(i)->shape().IsArray() ||
        !ShapesCompatible(hlo.operand(i)->shape(), shape.tuple_shapes(i))) {
      return false;
    }
  }
  return true;
}

// Zeros of `shape` (an array, or a tuple of arrays).
HloInstruction* Zeros(HloComputation* c, const Shape& shape,
                      const HloInstruction* like) {
  if (shape.IsArray()) return AddFilledLike(c, shape, 0, like);
  std::vector<HloInstruction*> leaves;
  for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
    leaves.push_back(Zeros(c, shape.tuple_shapes(i), like));
  }
  return AddNew(c, HloOpcode::kTuple, shape, leaves);
}

bool IsArrayOrTupleOfArrays(const Shape& shape) {
  if (shape.IsArray()) return true;
  if (!shape.IsTuple()) return false;
  for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
    if (!shape.tuple_shapes(i).IsArray()) return false;
  }
  return true;
}

// The replacement for an annotation call or AllocateBuffer, or nullptr.
HloInstruction* Replacement(HloInstruction* hlo) {
  HloComputation* c = hlo->parent();
  const std::string& target = hlo->attrs().custom_call->target;
  if (target == "AllocateBuffer") {
    return IsArrayOrTupleOfArrays(hlo->shape()) ? Zeros(c, hlo->shape(), hlo)
                                                : nullptr;
  }
  if (!IsPassThroughTarget(target) || !PassesOperandsThrough(*hlo)) {
    return nullptr;
  }
  if (hlo->shape().IsArray()) {
    return AddNew(c, HloOpcode::kCopy, hlo->shape(), {hlo->mutable_operand(0)});
  }
  std::vector<HloInstruction*> copies;
  for (int64_t i = 0; i < hlo->operand_count(); ++i) {
    copies.push_back(AddNew(c, HloOpcode::kCopy, hlo->shape().tuple_shapes(i),
                            {hlo->mutable_operand(i)}));
  }
  return AddNew(c, HloOpcode::kTuple, hlo->shape(), copies);
}

}  // namespace

bool IsPassThroughTarget(const std::string& target) {
  return target == "Sharding" || target == "SPMDFullToShardShape" ||
         target == "SPMDShardToFullShape" || target == "MoveToHost" ||
         target == "MoveToDevice" || target == "annotate_device_placement" ||
         absl::StartsWith(target, "xla.sdy.");
}

absl::StatusOr<bool> RemoveAnnotationCalls(HloModule& module) {
  bool changed = false;
  for (HloComputation* c : module.computations()) {
    for (HloInstruction* hlo :
         InstructionsWithOpcode(c, HloOpcode::kCustomCall)) {
      HloInstruction* replacement = Replacement(hlo);
      if (replacement == nullptr) continue;
      if (absl::Status s =
              ReplaceInstruction(hlo, replacement, /*always_remove=*/true);
          !s.ok()) {
        return s;
      }
      changed = true;
    }
  }
  return changed;
}

}  // namespace xlite
