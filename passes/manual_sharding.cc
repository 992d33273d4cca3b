#include "passes/manual_sharding.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/ir/opcode.h"
#include "passes/annotation_calls.h"
#include "passes/hlo_util.h"

namespace xlite {
namespace {

bool IsCall(const HloInstruction* hlo, const char* a, const char* b) {
  if (hlo->opcode() != HloOpcode::kCustomCall) return false;
  const std::string& t = hlo->attrs().custom_call->target;
  return t == a || t == b;
}

bool IsGlobalToLocal(const HloInstruction* hlo) {
  return IsCall(hlo, "xla.sdy.GlobalToLocalShape", "SPMDFullToShardShape");
}

bool IsLocalToGlobal(const HloInstruction* hlo) {
  return IsCall(hlo, "xla.sdy.LocalToGlobalShape", "SPMDShardToFullShape");
}

// The local shape of operand `i` of a global-to-local call.
const Shape& LocalShapeOf(const HloInstruction* call, int64_t i) {
  return call->shape().IsTuple() ? call->shape().tuple_shapes(i)
                                 : call->shape();
}

// Copies of `hlo`'s operands: an array, or a tuple of them.
HloInstruction* PassOperands(HloInstruction* hlo) {
  HloComputation* c = hlo->parent();
  std::vector<HloInstruction*> copies;
  std::vector<Shape> shapes;
  for (HloInstruction* operand : hlo->operands()) {
    copies.push_back(AddNew(c, HloOpcode::kCopy, operand->shape(), {operand}));
    shapes.push_back(operand->shape());
  }
  if (!hlo->shape().IsTuple()) return copies[0];
  return AddNew(c, HloOpcode::kTuple, Shape::Tuple(std::move(shapes)),
                copies);
}

// Gives the entry's parameters the local shapes their global-to-local
// calls name; those calls then pass their operands through.
absl::Status LocalizeParameters(HloComputation* entry,
                                absl::flat_hash_set<HloInstruction*>& moved) {
  for (HloInstruction* p : entry->parameter_instructions()) {
    const Shape* local = nullptr;
    for (HloInstruction* user : p->users()) {
      if (!IsGlobalToLocal(user)) continue;
      for (int64_t i = 0; i < user->operand_count(); ++i) {
        if (user->operand(i) != p) continue;
        const Shape& s = LocalShapeOf(user, i);
        if (local != nullptr && !ShapesCompatible(*local, s)) {
          return absl::UnimplementedError(absl::StrCat(
              "parameter ", p->name(), " is localized to two shapes"));
        }
        local = &s;
      }
    }
    if (local == nullptr || ShapesCompatible(*local, p->shape())) continue;
    *p->mutable_shape() = *local;
    p->clear_sharding();
    moved.insert(p);
  }
  for (HloInstruction* hlo : entry->MakeInstructionPostOrder()) {
    if (!IsGlobalToLocal(hlo) && !IsLocalToGlobal(hlo)) continue;
    const bool to_global = IsLocalToGlobal(hlo);
    HloInstruction* pass = PassOperands(hlo);
    for (HloInstruction* user : std::vector<HloInstruction*>(hlo->users())) {
      for (int64_t i = 0; i < user->operand_count(); ++i) {
        if (user->operand(i) != hlo) continue;
        if (absl::Status s = user->ReplaceOperandWithDifferentShape(i, pass);
            !s.ok()) {
          return s;
        }
      }
    }
    if (entry->root_instruction() == hlo) entry->set_root_instruction(pass);
    if (to_global && !ShapesCompatible(pass->shape(), hlo->shape())) {
      moved.insert(pass);
    }
    if (absl::Status s = entry->RemoveInstruction(hlo); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// The shape `hlo` has once its moved operands are local, or an error when
// it computes on a global value.
absl::StatusOr<Shape> ReshapedFor(const HloInstruction* hlo,
                                  const absl::flat_hash_set<HloInstruction*>& moved) {
  switch (hlo->opcode()) {
    case HloOpcode::kTuple: {
      std::vector<Shape> shapes;
      for (const HloInstruction* o : hlo->operands()) {
        shapes.push_back(o->shape());
      }
      return Shape::Tuple(std::move(shapes));
    }
    case HloOpcode::kGetTupleElement:
      return hlo->operand(0)->shape().tuple_shapes(hlo->tuple_index());
    case HloOpcode::kCopy:
    case HloOpcode::kReshape:
      if (hlo->opcode() == HloOpcode::kCopy ||
          ShapesCompatible(hlo->shape(), hlo->operand(0)->shape()) ||
          !moved.contains(hlo->operand(0))) {
        return hlo->operand(0)->shape();
      }
      break;
    case HloOpcode::kCustomCall:
      if (IsPassThroughTarget(hlo->attrs().custom_call->target) &&
          hlo->operand_count() == 1 && hlo->shape().IsArray()) {
        return hlo->operand(0)->shape();
      }
      break;
    default:
      break;
  }
  return absl::UnimplementedError(absl::StrCat(
      hlo->name(), " (", HloOpcodeString(hlo->opcode()),
      ") computes on a value of the whole program across partitions: that "
      "needs SPMD partitioning, which xlite does not do"));
}

// An entry parameter of a module as jax lowers it (before partitioning:
// it carries its Shardy sharding) that a tiled sharding splits.
bool IsSplitGlobalParameter(const HloInstruction* p) {
  if (!p->has_sharding() || !p->has_frontend_attributes() ||
      !p->frontend_attributes().contains("xla.sdy.sharding")) {
    return false;
  }
  const HloSharding& sharding = p->sharding();
  if (sharding.type != HloSharding::Type::kTiled) return false;
  const size_t rank = p->shape().IsArray() ? p->shape().dimensions().size() : 0;
  for (size_t d = 0; d < rank && d < sharding.tile_dimensions.size(); ++d) {
    if (sharding.tile_dimensions[d] > 1) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<bool> LocalizeManualSharding(HloModule& module) {
  if (module.config().num_partitions <= 1) return false;
  HloComputation* entry = module.entry_computation();
  bool any = false;
  for (HloInstruction* hlo : entry->instructions()) {
    any |= IsGlobalToLocal(hlo) || IsLocalToGlobal(hlo);
  }
  if (!any) return false;
  absl::flat_hash_set<HloInstruction*> moved;
  if (absl::Status s = LocalizeParameters(entry, moved); !s.ok()) return s;
  for (HloInstruction* hlo : entry->MakeInstructionPostOrder()) {
    if (moved.contains(hlo) || hlo->opcode() == HloOpcode::kParameter) {
      continue;
    }
    bool reads_moved = false;
    for (const HloInstruction* o : hlo->operands()) {
      reads_moved |= moved.contains(o);
    }
    if (!reads_moved) continue;
    absl::StatusOr<Shape> shape = ReshapedFor(hlo, moved);
    if (!shape.ok()) return shape.status();
    if (!ShapesCompatible(*shape, hlo->shape())) {
      *hlo->mutable_shape() = *shape;
      moved.insert(hlo);
    }
  }
  HloModuleConfig& config = module.config();
  if (config.entry_parameter_layouts.has_value()) {
    for (HloInstruction* p : entry->parameter_instructions()) {
      (*config.entry_parameter_layouts)[p->parameter_number()] = p->shape();
    }
  }
  if (config.entry_result_layout.has_value()) {
    config.entry_result_layout = entry->root_instruction()->shape();
  }
  return true;
}

absl::Status CheckNoSplitParameters(const HloModule& module) {
  if (module.config().num_partitions <= 1) return absl::OkStatus();
  for (const HloInstruction* p :
       module.entry_computation()->parameter_instructions()) {
    if (IsSplitGlobalParameter(p)) {
      return absl::UnimplementedError(absl::StrCat(
          "parameter ", p->name(), " is split across partitions (",
          p->sharding().ToString(), ") and read outside a manually "
          "partitioned body: that needs SPMD partitioning, which xlite does "
          "not do"));
    }
  }
  return absl::OkStatus();
}

}  // namespace xlite
