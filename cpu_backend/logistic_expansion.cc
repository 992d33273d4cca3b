#include "cpu_backend/logistic_expansion.h"

#include <vector>

#include "hlo/ir/float_types.h"
#include "passes/hlo_util.h"

namespace xlite::cpu {

namespace {

bool ComputesLogisticInF16(PrimitiveType type) {
  return type == PrimitiveType::kF16 || ComputesInF16(type);
}

// convert(1 / (1 + exp(-convert(x)))) in f16 for `logistic`, each new
// instruction keeping its metadata.
HloInstruction* Expand(HloComputation* c, HloInstruction* logistic) {
  const Shape& shape = logistic->shape();
  const Shape half = WithElementType(shape, PrimitiveType::kF16);
  const bool convert = shape.element_type() != PrimitiveType::kF16;
  std::vector<HloInstruction*> added;
  auto add = [&](HloOpcode opcode, const Shape& s,
                 std::vector<HloInstruction*> operands) {
    added.push_back(AddNew(c, opcode, s, operands));
    return added.back();
  };
  HloInstruction* x = logistic->operands()[0];
  if (convert) x = add(HloOpcode::kConvert, half, {x});
  HloInstruction* one = AddFilledLike(c, half, 1.0, logistic);
  HloInstruction* negated = add(HloOpcode::kNegate, half, {x});
  HloInstruction* exp = add(HloOpcode::kExp, half, {negated});
  HloInstruction* sum = add(HloOpcode::kAdd, half, {one, exp});
  HloInstruction* result = add(HloOpcode::kDivide, half, {one, sum});
  if (convert) result = add(HloOpcode::kConvert, shape, {result});
  if (logistic->has_metadata()) {
    for (HloInstruction* hlo : added) hlo->set_metadata(logistic->metadata());
  }
  return result;
}

}  // namespace

absl::StatusOr<bool> ExpandLogisticsInF16(HloModule& module) {
  const absl::flat_hash_set<const HloComputation*> fused =
      FusionComputations(module);
  bool changed = false;
  for (HloComputation* c : module.computations()) {
    if (fused.contains(c)) continue;
    for (HloInstruction* logistic :
         InstructionsWithOpcode(c, HloOpcode::kLogistic)) {
      if (!ComputesLogisticInF16(logistic->shape().element_type())) continue;
      if (absl::Status s = ReplaceInstruction(logistic, Expand(c, logistic));
          !s.ok()) {
        return s;
      }
      changed = true;
    }
  }
  return changed;
}

}  // namespace xlite::cpu
