#include "passes/all_reduce_code_motion_setup.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "hlo/ir/primitive_type.h"
#include "passes/hlo_util.h"

namespace xlite {
namespace {

// Computations that are the body of some while loop.
absl::flat_hash_set<const HloComputation*> WhileBodies(
    const HloModule& module) {
  absl::flat_hash_set<const HloComputation*> bodies;
  for (const HloComputation* c : module.computations()) {
    for (const HloInstruction* h : c->instructions()) {
      if (h->opcode() == HloOpcode::kWhile) bodies.insert(h->while_body());
    }
  }
  return bodies;
}

// The same single-op reduction as `reducer`, on scalars of `type`.
HloComputation* ReducerOfType(HloModule& module, HloComputation* reducer,
                              PrimitiveType type) {
  if (reducer->root_instruction()->shape().element_type() == type) {
    return reducer;
  }
  auto f = std::make_unique<HloComputation>(
      module.NewComputationName(reducer->name()));
  HloComputation* out = module.AddComputation(std::move(f));
  std::vector<HloInstruction*> params;
  for (int64_t i = 0; i < 2; ++i) {
    std::unique_ptr<HloInstruction> p =
        HloInstruction::Create(HloOpcode::kParameter, Shape(type, {}));
    p->set_index(i);
    p->set_name(module.NewInstructionName(i == 0 ? "x" : "y"));
    params.push_back(out->AddInstruction(std::move(p)));
  }
  out->set_root_instruction(AddNew(out, reducer->root_instruction()->opcode(),
                                   Shape(type, {}), params));
  return out;
}

// A single-op SUM reducer (the only kind the main pass moves).
bool IsSumReducer(const HloComputation* f) {
  const HloInstruction* r = f->root_instruction();
  return f->num_parameters() == 2 && r->opcode() == HloOpcode::kAdd &&
         r->operand_count() == 2 &&
         r->operand(0)->opcode() == HloOpcode::kParameter &&
         r->operand(1)->opcode() == HloOpcode::kParameter &&
         r->operand(0) != r->operand(1);
}

// Clones collective `c` onto `operand` with result `shape`, reducing in the
// shape's element type.
HloInstruction* CloneCollective(HloInstruction* c, HloInstruction* operand,
                                const Shape& shape) {
  HloComputation* body = c->parent();
  HloModule& module = *body->parent();
  std::unique_ptr<HloInstruction> moved =
      c->CloneWithNewOperands(shape, {operand});
  moved->set_name(module.NewInstructionName(c->name()));
  moved->set_called_computation(
      0, ReducerOfType(module, c->to_apply(), shape.element_type()));
  return body->AddInstruction(std::move(moved));
}

bool IsSimple(const HloInstruction* c) {
  return c->operand_count() == 1 && c->shape().IsArray() &&
         !HasControlDeps(c) && IsSumReducer(c->to_apply());
}

// add(x, get-tuple-element(parameter)) for either operand order.
bool AddsToLoopState(const HloInstruction* add, const HloInstruction* x) {
  if (add == nullptr || add->opcode() != HloOpcode::kAdd ||
      add->operand(0) == add->operand(1)) {
    return false;
  }
  const HloInstruction* other = add->operand(add->operand(0) == x ? 1 : 0);
  return other->opcode() == HloOpcode::kGetTupleElement &&
         other->operand(0)->opcode() == HloOpcode::kParameter;
}

HloInstruction* SingleUser(const HloInstruction* h) {
  return h->user_count() == 1 ? h->users()[0] : nullptr;
}

// Makes `moved` replace `last`, then removes the old chain (users before
// operands; a collective is removed even though it communicates, since its
// work moved).
absl::Status RemoveChain(HloInstruction* last, HloInstruction* moved,
                         std::vector<HloInstruction*> chain) {
  absl::Status s = last->ReplaceAllUsesWith(moved);
  if (!s.ok()) return s;
  HloInstruction* previous = nullptr;
  for (HloInstruction* h : chain) {
    if (h == previous) continue;  // no convert: the chain repeats
    previous = h;
    s = h->parent()->RemoveInstruction(h);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<bool> ReorderReduceScatterTranspose(HloModule& module) {
  bool changed = false;
  const absl::flat_hash_set<const HloComputation*> bodies = WhileBodies(module);
  for (HloComputation* body : module.MakeComputationPostOrder()) {
    if (!bodies.contains(body)) continue;
    for (HloInstruction* t :
         InstructionsWithOpcode(body, HloOpcode::kTranspose)) {
      HloInstruction* cv = t->mutable_operand(0);
      HloInstruction* rs =
          cv->opcode() == HloOpcode::kConvert ? cv->mutable_operand(0) : cv;
      if (rs->opcode() != HloOpcode::kReduceScatter || !IsSimple(rs) ||
          SingleUser(rs) == nullptr ||
          (cv != rs && SingleUser(cv) == nullptr) ||
          !AddsToLoopState(SingleUser(t), t) || !rs->has_dimensions() ||
          rs->dimensions().size() != 1) {
        continue;
      }
      // transpose(x) then scatter along the output dimension the old
      // scatter dimension moved to: the same pieces in the same order.
      const std::vector<int64_t>& perm = t->dimensions();
      int64_t scatter_dim = -1;
      for (size_t i = 0; i < perm.size(); ++i) {
        if (perm[i] == rs->dimensions()[0]) scatter_dim = i;
      }
      if (scatter_dim < 0) continue;
      HloInstruction* x = rs->mutable_operand(0);
      if (cv != rs) {
        Shape wide = x->shape();
        wide.set_element_type(cv->shape().element_type());
        x = AddNew(body, HloOpcode::kConvert, wide, {x});
      }
      std::vector<int64_t> dims;
      for (int64_t p : perm) dims.push_back(x->shape().dimensions(p));
      const Shape transposed =
          LayoutLike(Shape(x->shape().element_type(), dims), t);
      HloInstruction* xt = AddNew(body, HloOpcode::kTranspose, transposed, {x});
      *xt->mutable_dimensions() = perm;
      xt->set_has_dimensions(true);
      HloInstruction* moved = CloneCollective(rs, xt, t->shape());
      *moved->mutable_dimensions() = {scatter_dim};
      absl::Status s = RemoveChain(t, moved, {t, cv, rs});
      if (!s.ok()) return s;
      changed = true;
    }
  }
  return changed;
}

absl::StatusOr<bool> ReorderConvertCollectiveAdd(HloModule& module,
                                                 bool enable_reduce_scatter) {
  bool changed = false;
  const absl::flat_hash_set<const HloComputation*> bodies = WhileBodies(module);
  for (HloComputation* body : module.MakeComputationPostOrder()) {
    if (!bodies.contains(body)) continue;
    for (HloInstruction* cv :
         InstructionsWithOpcode(body, HloOpcode::kConvert)) {
      HloInstruction* c = cv->mutable_operand(0);
      const bool candidate =
          c->opcode() == HloOpcode::kAllReduce ||
          (enable_reduce_scatter && c->opcode() == HloOpcode::kReduceScatter);
      const PrimitiveType t = cv->shape().element_type();
      if (!candidate || !IsSimple(c) || SingleUser(c) != cv ||
          !AddsToLoopState(SingleUser(cv), cv) || IsComplex(t) ||
          t == PrimitiveType::kPred) {
        continue;
      }
      Shape wide = c->operand(0)->shape();
      wide.set_element_type(t);
      HloInstruction* x =
          AddNew(body, HloOpcode::kConvert, wide, {c->mutable_operand(0)});
      HloInstruction* moved = CloneCollective(c, x, cv->shape());
      absl::Status s = RemoveChain(cv, moved, {cv, c});
      if (!s.ok()) return s;
      changed = true;
    }
  }
  return changed;
}

}  // namespace xlite
