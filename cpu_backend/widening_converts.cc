#include "cpu_backend/widening_converts.h"

#include <memory>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "hlo/ir/opcode.h"

namespace xlite::cpu {

std::optional<PrimitiveType> NormalizedComputeType(PrimitiveType narrow) {
  switch (narrow) {
    case PrimitiveType::kBF16:
    case PrimitiveType::kF8E8M0FNU:
      return PrimitiveType::kF32;
    case PrimitiveType::kF8E5M2:
    case PrimitiveType::kF8E4M3FN:
    case PrimitiveType::kF8E4M3B11FNUZ:
    case PrimitiveType::kF8E5M2FNUZ:
    case PrimitiveType::kF8E4M3FNUZ:
    case PrimitiveType::kF8E4M3:
    case PrimitiveType::kF8E3M4:
    case PrimitiveType::kF4E2M1FN:
      return PrimitiveType::kF16;
    case PrimitiveType::kS4:
      return PrimitiveType::kS8;
    case PrimitiveType::kU4:
      return PrimitiveType::kU8;
    default:
      return std::nullopt;
  }
}

namespace {

// Operations whose wide result can differ from their narrow one rounded.
bool ComputesInWideType(const HloInstruction& hlo) {
  if (!hlo.shape().IsArray() || hlo.HasSideEffect()) return false;
  switch (hlo.opcode()) {
    case HloOpcode::kReducePrecision:
    case HloOpcode::kDot:
    case HloOpcode::kConvolution:
      return true;
    default:
      return HloOpcodeFamily(hlo.opcode()) == OpcodeFamily::kElementwise;
  }
}

// The operation `convert` reads unrounded, or nullptr.
HloInstruction* WidenedSource(const HloInstruction& convert) {
  if (convert.opcode() != HloOpcode::kConvert) return nullptr;
  HloInstruction* source = convert.operands()[0];
  const std::optional<PrimitiveType> wide =
      NormalizedComputeType(source->shape().element_type());
  if (!wide || *wide != convert.shape().element_type()) return nullptr;
  return ComputesInWideType(*source) ? source : nullptr;
}

Shape WithType(const Shape& shape, PrimitiveType type) {
  Shape out = shape;
  out.set_element_type(type);
  return out;
}

// `source` computed in `wide`: its operands of its own narrow type
// converted to `wide` first (exact), the others as they are.
HloInstruction* Widen(HloComputation& computation, HloInstruction* source,
                      PrimitiveType wide) {
  const PrimitiveType narrow = source->shape().element_type();
  std::vector<HloInstruction*> operands;
  for (HloInstruction* operand : source->operands()) {
    if (operand->shape().IsArray() &&
        operand->shape().element_type() == narrow) {
      operand = computation.AddInstruction(HloInstruction::Create(
          HloOpcode::kConvert, WithType(operand->shape(), wide), {operand}));
    }
    operands.push_back(operand);
  }
  return computation.AddInstruction(
      source->CloneWithNewOperands(WithType(source->shape(), wide), operands));
}

absl::StatusOr<bool> FoldIn(HloComputation& computation) {
  // The converts of the module as given: the ones Widen adds are not.
  std::vector<std::pair<HloInstruction*, HloInstruction*>> folds;
  for (HloInstruction* hlo : computation.MakeInstructionPostOrder()) {
    if (HloInstruction* source = WidenedSource(*hlo)) {
      folds.emplace_back(hlo, source);
    }
  }
  for (auto [convert, source] : folds) {
    HloInstruction* wide =
        Widen(computation, source, convert->shape().element_type());
    wide->set_metadata(convert->metadata());
    if (absl::Status s = convert->ReplaceAllUsesWith(wide); !s.ok()) return s;
    if (convert->control_predecessors().empty() &&
        convert->control_successors().empty()) {
      if (absl::Status s = computation.RemoveInstruction(convert); !s.ok()) {
        return s;
      }
    }
    if (source->users().empty() && source != computation.root_instruction() &&
        source->control_predecessors().empty() &&
        source->control_successors().empty()) {
      if (absl::Status s = computation.RemoveInstruction(source); !s.ok()) {
        return s;
      }
    }
  }
  return !folds.empty();
}

}  // namespace

absl::StatusOr<bool> FoldWideningConverts(HloModule& module) {
  absl::flat_hash_set<const HloComputation*> fused;
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* hlo : computation->instructions()) {
      if (hlo->opcode() == HloOpcode::kFusion) {
        fused.insert(hlo->fused_computation());
      }
    }
  }
  bool changed = false;
  for (HloComputation* computation : module.computations()) {
    if (fused.contains(computation)) continue;
    absl::StatusOr<bool> folded = FoldIn(*computation);
    if (!folded.ok()) return folded.status();
    changed |= *folded;
  }
  return changed;
}

}  // namespace xlite::cpu
