#include "cpu_backend/unfuse_non_elemental.h"

#include <memory>

#include "hlo/ir/opcode.h"

namespace xlite::cpu {
namespace {

// Whether the elemental emitter generates `hlo` inside a fusion (its
// MakeGenerator dispatch); a scatter only as the fused root.
bool HasElementalForm(const HloInstruction* hlo, bool root);

bool AllElemental(const HloComputation& computation) {
  for (const HloInstruction* hlo : computation.instructions()) {
    if (!HasElementalForm(hlo, hlo == computation.root_instruction())) {
      return false;
    }
  }
  return true;
}

bool HasElementalForm(const HloInstruction* hlo, bool root) {
  switch (HloOpcodeFamily(hlo->opcode())) {
    case OpcodeFamily::kElementwise:
    case OpcodeFamily::kConversion:
      return true;
    default:
      break;
  }
  switch (hlo->opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kIota:
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kBroadcast:
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast:
    case HloOpcode::kTranspose:
    case HloOpcode::kSetDimensionSize:
    case HloOpcode::kGetDimensionSize:
    case HloOpcode::kDynamicReshape:
    case HloOpcode::kCopy:
    case HloOpcode::kSlice:
    case HloOpcode::kPad:
    case HloOpcode::kConcatenate:
    case HloOpcode::kReverse:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kMap:
    case HloOpcode::kDot:
    case HloOpcode::kConvolution:
    case HloOpcode::kRaggedDot:
    case HloOpcode::kGather:
      return true;
    case HloOpcode::kScatter:
      return root;
    case HloOpcode::kFusion:
      return AllElemental(*hlo->fused_computation());
    default:
      return false;
  }
}

// A tuple holding a tuple: a fusion kernel writes array leaves only.
bool NestedTuple(const Shape& shape) {
  if (!shape.IsTuple()) return false;
  for (const Shape& element : shape.tuple_shapes()) {
    if (element.IsTuple()) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<bool> UnfuseNonElementalFusions(HloModule& module) {
  bool changed = false;
  for (HloComputation* computation : module.MakeComputationPostOrder()) {
    for (HloInstruction* fusion : computation->MakeInstructionPostOrder()) {
      if (fusion->opcode() != HloOpcode::kFusion) continue;
      HloComputation* fused = fusion->fused_computation();
      if (AllElemental(*fused) && !NestedTuple(fusion->shape())) continue;
      // Operands past the computation's parameters are never read.
      std::vector<HloInstruction*> operands(
          fusion->operands().begin(),
          fusion->operands().begin() +
              std::min<int64_t>(fusion->operand_count(),
                                fused->num_parameters()));
      std::unique_ptr<HloInstruction> call =
          HloInstruction::Create(HloOpcode::kCall, fusion->shape(), operands);
      call->AppendCalledComputation(fused);
      call->set_location(fusion->location());
      call->set_metadata(fusion->metadata());
      HloInstruction* added = computation->AddInstruction(std::move(call));
      added->set_name(fusion->name());
      for (HloInstruction* pred : fusion->control_predecessors()) {
        if (absl::Status s = pred->AddControlDependencyTo(added); !s.ok()) {
          return s;
        }
      }
      for (HloInstruction* succ : fusion->control_successors()) {
        if (absl::Status s = added->AddControlDependencyTo(succ); !s.ok()) {
          return s;
        }
      }
      fusion->DropAllControlDeps();
      if (absl::Status s = fusion->ReplaceAllUsesWith(added); !s.ok()) return s;
      if (computation->root_instruction() == fusion) {
        computation->set_root_instruction(added);
      }
      if (absl::Status s = computation->RemoveInstruction(fusion); !s.ok()) {
        return s;
      }
      changed = true;
    }
  }
  return changed;
}

}  // namespace xlite::cpu
