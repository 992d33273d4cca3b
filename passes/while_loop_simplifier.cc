// while-loop-simplifier: zero- and one-trip loops whose state is constant,
// loop-invariant constant elements, dead tuple elements.

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "hlo/evaluator/evaluator.h"
#include "passes/hlo_util.h"
#include "passes/passes.h"

namespace xlite {
namespace {

// The value of `h` if it is built only from constants and tuples.
std::optional<Literal> ConstantValue(const HloInstruction* h) {
  if (h->opcode() == HloOpcode::kConstant) {
    if (!h->attrs().literal.has_value() || h->attrs().literal->is_unknown()) {
      return std::nullopt;
    }
    Literal l = *h->attrs().literal;
    l.mutable_shape_for_layout() = h->shape();
    return l;
  }
  if (h->opcode() == HloOpcode::kTuple) {
    std::vector<Literal> elements;
    for (const HloInstruction* o : h->operands()) {
      std::optional<Literal> v = ConstantValue(o);
      if (!v.has_value()) return std::nullopt;
      elements.push_back(*std::move(v));
    }
    return Literal::Tuple(std::move(elements));
  }
  return std::nullopt;
}

bool Pure(const HloComputation* c) {
  for (const HloInstruction* h : c->instructions()) {
    if (HasSideEffectDeep(h)) return false;
  }
  return true;
}

// Zero- or one-trip loops whose initial state is constant.
absl::StatusOr<bool> TryRemoveLoop(HloInstruction* loop) {
  std::optional<Literal> init = ConstantValue(loop->operand(0));
  if (!init.has_value() || !Pure(loop->while_body()) ||
      !Pure(loop->while_condition())) {
    return false;
  }
  const Literal* args[] = {&*init};
  absl::StatusOr<Literal> go = EvaluateComputation(
      *loop->while_condition(), args, CompileTimeEvaluation());
  if (!go.ok()) return false;
  HloComputation* c = loop->parent();
  if (go->GetAsInt64(0) == 0) {
    absl::Status s = ReplaceInstruction(loop, loop->mutable_operand(0));
    if (!s.ok()) return s;
    return true;
  }
  absl::StatusOr<Literal> next =
      EvaluateComputation(*loop->while_body(), args, CompileTimeEvaluation());
  if (!next.ok()) return false;
  const Literal* next_args[] = {&*next};
  absl::StatusOr<Literal> again = EvaluateComputation(
      *loop->while_condition(), next_args, CompileTimeEvaluation());
  if (!again.ok() || again->GetAsInt64(0) != 0) return false;
  HloInstruction* state = loop->mutable_operand(0);
  absl::StatusOr<HloInstruction*> result =
      InlineComputation(c, *loop->while_body(), {state});
  if (!result.ok()) return result.status();
  absl::Status s = ReplaceInstruction(loop, *result);
  if (!s.ok()) return s;
  return true;
}

// The loop's body and condition use their parameter only through
// get-tuple-element, the body's root is a tuple, the loop's users are
// get-tuple-elements, and no one else calls the computations.
bool SimpleShape(const HloInstruction* loop,
                 const absl::flat_hash_map<const HloComputation*, int64_t>&
                     callers) {
  if (!loop->shape().IsTuple() || loop->IsRoot() || HasSideEffectDeep(loop)) {
    return false;
  }
  const HloComputation* body = loop->while_body();
  const HloComputation* cond = loop->while_condition();
  if (callers.at(body) != 1 || callers.at(cond) != 1 || body == cond) {
    return false;
  }
  if (body->root_instruction()->opcode() != HloOpcode::kTuple) return false;
  for (const HloComputation* c : {body, cond}) {
    for (const HloInstruction* u : c->parameter_instruction(0)->users()) {
      if (u->opcode() != HloOpcode::kGetTupleElement) return false;
    }
    if (c->parameter_instruction(0)->IsRoot()) return false;
  }
  for (const HloInstruction* u : loop->users()) {
    if (u->opcode() != HloOpcode::kGetTupleElement) return false;
  }
  return true;
}

// Elements the body passes through unchanged and that start as constants
// become constants inside the loop (and outside it).
absl::StatusOr<bool> ConstantInvariants(HloInstruction* loop) {
  HloComputation* body = loop->while_body();
  const HloInstruction* root = body->root_instruction();
  const HloInstruction* init = loop->operand(0);
  if (init->opcode() != HloOpcode::kTuple) return false;
  bool changed = false;
  for (int64_t i = 0; i < root->operand_count(); ++i) {
    const HloInstruction* out = root->operand(i);
    const HloInstruction* value = init->operand(i);
    if (out->opcode() != HloOpcode::kGetTupleElement ||
        out->operand(0) != body->parameter_instruction(0) ||
        out->tuple_index() != i || value->opcode() != HloOpcode::kConstant) {
      continue;
    }
    // Is anything other than the pass-through reading the element?
    bool read = false;
    for (const HloComputation* c : {static_cast<const HloComputation*>(body),
                                    static_cast<const HloComputation*>(
                                        loop->while_condition())}) {
      for (const HloInstruction* u : c->parameter_instruction(0)->users()) {
        if (u->tuple_index() == i &&
            (u->user_count() > 1 ||
             (u->user_count() == 1 && u->users()[0] != root))) {
          read = true;
        }
      }
    }
    bool used_outside = false;
    for (const HloInstruction* u : loop->users()) {
      if (u->tuple_index() == i) used_outside = true;
    }
    if (!read && !used_outside) continue;
    // Inside: uses other than the pass-through read the constant.
    for (HloComputation* c : {body, loop->while_condition()}) {
      for (HloInstruction* u :
           std::vector<HloInstruction*>(c->parameter_instruction(0)->users())) {
        if (u->tuple_index() != i) continue;
        for (HloInstruction* user : std::vector<HloInstruction*>(u->users())) {
          if (user == root) continue;
          std::unique_ptr<HloInstruction> copy =
              value->CloneWithNewOperands(u->shape(), {});
          copy->set_name(c->parent()->NewInstructionName("constant"));
          HloInstruction* constant = c->AddInstruction(std::move(copy));
          absl::Status s = u->ReplaceUseWith(user, constant);
          if (!s.ok()) return s;
        }
      }
    }
    for (HloInstruction* u : std::vector<HloInstruction*>(loop->users())) {
      if (u->tuple_index() != i) continue;
      // Only the get-tuple-element goes (ReplaceInstruction would also
      // delete its operands once dead: the loop this pass still works on).
      absl::Status s = u->ReplaceAllUsesWith(const_cast<HloInstruction*>(value));
      if (!s.ok()) return s;
      if (u->users().empty() && !u->IsRoot() &&
          u->control_successors().empty() &&
          u->control_predecessors().empty()) {
        s = loop->parent()->RemoveInstruction(u);
        if (!s.ok()) return s;
      }
    }
    changed = true;
  }
  return changed;
}

// Removes tuple elements whose values feed only themselves.
absl::StatusOr<bool> RemoveDeadElements(HloInstruction* loop) {
  HloComputation* body = loop->while_body();
  HloComputation* cond = loop->while_condition();
  HloInstruction* root = body->root_instruction();
  HloInstruction* param = body->parameter_instruction(0);
  const int64_t n = loop->shape().tuple_shapes_size();
  std::vector<bool> live(n, false);
  for (const HloInstruction* u : loop->users()) live[u->tuple_index()] = true;
  for (const HloInstruction* u : cond->parameter_instruction(0)->users()) {
    live[u->tuple_index()] = true;
  }
  // Propagate: element j live -> everything root operand j reads is live.
  // Side-effecting instructions of the body keep what they read live.
  bool grew = true;
  while (grew) {
    grew = false;
    absl::flat_hash_set<const HloInstruction*> reached;
    std::vector<const HloInstruction*> work;
    for (int64_t j = 0; j < n; ++j) {
      if (live[j]) work.push_back(root->operand(j));
    }
    for (const HloInstruction* h : body->instructions()) {
      if (h != root && (HasSideEffectDeep(h) || h->IsRoot())) {
        work.push_back(h);
      }
    }
    while (!work.empty()) {
      const HloInstruction* h = work.back();
      work.pop_back();
      if (!reached.insert(h).second) continue;
      if (h->opcode() == HloOpcode::kGetTupleElement && h->operand(0) == param &&
          !live[h->tuple_index()]) {
        live[h->tuple_index()] = true;
        grew = true;
      }
      for (const HloInstruction* o : h->operands()) work.push_back(o);
    }
  }
  std::vector<int64_t> kept;
  for (int64_t j = 0; j < n; ++j) {
    if (live[j]) kept.push_back(j);
  }
  if (static_cast<int64_t>(kept.size()) == n || kept.empty()) return false;
  std::vector<int64_t> new_index(n, -1);
  std::vector<Shape> shapes;
  for (size_t k = 0; k < kept.size(); ++k) {
    new_index[kept[k]] = static_cast<int64_t>(k);
    shapes.push_back(loop->shape().tuple_shapes(kept[k]));
  }
  const Shape shape = Shape::Tuple(shapes);
  HloModule* module = loop->parent()->parent();
  // Body: a new root tuple of the kept outputs; dead chains go away.
  std::vector<HloInstruction*> outputs;
  for (int64_t j : kept) outputs.push_back(root->mutable_operand(j));
  HloInstruction* new_root = AddNew(body, HloOpcode::kTuple, shape, outputs);
  body->set_root_instruction(new_root);
  {
    absl::Status s = body->RemoveInstructionAndUnusedOperands(root);
    if (!s.ok()) return s;
    absl::StatusOr<bool> swept = RemoveDeadInstructions(body);
    if (!swept.ok()) return swept.status();
  }
  for (HloComputation* c : {body, cond}) {
    HloInstruction* p = c->parameter_instruction(0);
    for (HloInstruction* u : std::vector<HloInstruction*>(p->users())) {
      if (new_index[u->tuple_index()] < 0) {
        if (!u->users().empty() || u->IsRoot()) {
          return absl::InternalError("while-loop-simplifier: dead element read");
        }
        absl::Status s = c->RemoveInstruction(u);
        if (!s.ok()) return s;
        continue;
      }
      u->set_index(new_index[u->tuple_index()]);
    }
    *p->mutable_shape() = shape;
  }
  // Outside: the init shrinks, users read the new indices.
  HloComputation* c = loop->parent();
  HloInstruction* init = loop->mutable_operand(0);
  std::vector<HloInstruction*> init_elements;
  for (int64_t j : kept) {
    if (init->opcode() == HloOpcode::kTuple) {
      init_elements.push_back(init->mutable_operand(j));
    } else {
      HloInstruction* g = AddNew(c, HloOpcode::kGetTupleElement,
                                 loop->shape().tuple_shapes(j), {init});
      g->set_index(j);
      init_elements.push_back(g);
    }
  }
  HloInstruction* new_init = AddNew(c, HloOpcode::kTuple, shape, init_elements);
  std::unique_ptr<HloInstruction> clone =
      loop->CloneWithNewOperands(shape, {new_init});
  clone->set_name(module->NewInstructionName(loop->name()));
  HloInstruction* new_loop = c->AddInstruction(std::move(clone));
  if (loop->users().empty()) {
    // `loop` is gone after this: nothing may read it.
    absl::Status s = c->RemoveInstructionAndUnusedOperands(loop);
    if (!s.ok()) return s;
    return true;
  }
  // Replacing the last user also removes `loop` (dead by then).
  for (HloInstruction* u : std::vector<HloInstruction*>(loop->users())) {
    HloInstruction* g =
        AddNew(c, HloOpcode::kGetTupleElement, u->shape(), {new_loop});
    g->set_index(new_index[u->tuple_index()]);
    absl::Status s = ReplaceInstruction(u, g);
    if (!s.ok()) return s;
  }
  return true;
}

}  // namespace

absl::StatusOr<bool> RunWhileLoopSimplifier(HloModule& module) {
  bool changed = false;
  for (HloComputation* c : module.MakeComputationPostOrder()) {
    for (HloInstruction* loop : InstructionsWithOpcode(c, HloOpcode::kWhile)) {
      absl::StatusOr<bool> removed = TryRemoveLoop(loop);
      if (!removed.ok()) return removed.status();
      if (*removed) {
        changed = true;
        continue;
      }
      const auto callers = CallerCounts(module);
      if (!SimpleShape(loop, callers)) continue;
      absl::StatusOr<bool> invariants = ConstantInvariants(loop);
      if (!invariants.ok()) return invariants.status();
      changed |= *invariants;
      absl::StatusOr<bool> dead = RemoveDeadElements(loop);
      if (!dead.ok()) return dead.status();
      changed |= *dead;
    }
  }
  if (changed) {
    absl::StatusOr<bool> dce = RunDce(module, true);
    if (!dce.ok()) return dce.status();
  }
  return changed;
}

}  // namespace xlite
