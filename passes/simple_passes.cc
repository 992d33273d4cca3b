// dce, cse, constant-folding, tuple-simplifier, zero-sized-hlo-elimination,
// opt-barrier-expander and sort-simplifier.

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/hash/hash.h"
#include "hlo/evaluator/evaluator.h"
#include "passes/hlo_util.h"
#include "passes/passes.h"

namespace xlite {

// ---------------------------------------------------------------- dce

absl::StatusOr<bool> RemoveDeadInstructions(HloComputation* c) {
  bool changed = false;
  std::vector<HloInstruction*> worklist;
  absl::flat_hash_set<HloInstruction*> queued;
  for (HloInstruction* h : c->instructions()) {
    if (h->users().empty() && IsRemovableWhenDead(h)) {
      worklist.push_back(h);
      queued.insert(h);
    }
  }
  while (!worklist.empty()) {
    HloInstruction* h = worklist.back();
    worklist.pop_back();
    std::vector<HloInstruction*> operands = h->operands();
    absl::Status s = c->RemoveInstruction(h);
    if (!s.ok()) return s;
    changed = true;
    for (HloInstruction* o : operands) {
      if (!queued.contains(o) && o->users().empty() &&
          IsRemovableWhenDead(o)) {
        queued.insert(o);
        worklist.push_back(o);
      }
    }
  }
  return changed;
}

absl::StatusOr<bool> RunDce(HloModule& module, bool remove_computations) {
  bool changed = false;
  for (HloComputation* c : module.computations()) {
    absl::StatusOr<bool> removed = RemoveDeadInstructions(c);
    if (!removed.ok()) return removed.status();
    changed |= *removed;
  }
  if (!remove_computations || module.entry_computation() == nullptr) {
    return changed;
  }
  // Computations the entry cannot reach.
  absl::flat_hash_set<const HloComputation*> live;
  std::vector<const HloComputation*> work = {module.entry_computation()};
  while (!work.empty()) {
    const HloComputation* c = work.back();
    work.pop_back();
    if (!live.insert(c).second) continue;
    for (const HloInstruction* h : c->instructions()) {
      for (const HloComputation* f : h->called_computations()) {
        work.push_back(f);
      }
    }
  }
  // Callers before callees, so no removed computation is still called.
  std::vector<HloComputation*> order = module.MakeComputationPostOrder();
  std::reverse(order.begin(), order.end());
  for (HloComputation* c : order) {
    if (live.contains(c)) continue;
    absl::Status s = module.RemoveComputation(c);
    if (!s.ok()) return s;
    changed = true;
  }
  return changed;
}

// ---------------------------------------------------------------- cse

namespace {

bool IsCommutative(const HloInstruction* h) {
  switch (h->opcode()) {
    case HloOpcode::kAdd:
    case HloOpcode::kMultiply:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
      return true;
    case HloOpcode::kCompare:
      return h->attrs().direction == ComparisonDirection::kEq ||
             h->attrs().direction == ComparisonDirection::kNe;
    default:
      return false;
  }
}

bool SameOperands(const HloInstruction* a, const HloInstruction* b) {
  if (a->operands() == b->operands()) return true;
  return IsCommutative(a) && a->operand_count() == 2 &&
         b->operand_count() == 2 && a->operand(0) == b->operand(1) &&
         a->operand(1) == b->operand(0);
}

size_t CseHash(const HloInstruction* h) {
  // Operand ids combined order-independently for commutative ops.
  size_t operands = 0;
  if (IsCommutative(h)) {
    for (const HloInstruction* o : h->operands()) {
      operands += absl::HashOf(o->unique_id());
    }
  } else {
    for (const HloInstruction* o : h->operands()) {
      operands = absl::HashOf(operands, o->unique_id());
    }
  }
  size_t hash = absl::HashOf(static_cast<int>(h->opcode()),
                             static_cast<int>(h->shape().element_type()),
                             h->shape().rank(), operands);
  for (int64_t d : h->shape().dimensions()) hash = absl::HashOf(hash, d);
  if (h->opcode() == HloOpcode::kConstant && h->attrs().literal.has_value()) {
    hash = absl::HashOf(hash, h->attrs().literal->data());
  }
  return hash;
}

// HasSideEffectDeep with the called computations' answers remembered.
class SideEffects {
 public:
  bool Of(const HloInstruction* h) {
    if (h->HasSideEffect()) return true;
    for (const HloComputation* c : h->called_computations()) {
      auto [it, inserted] = computations_.try_emplace(c, false);
      if (inserted) {
        bool any = false;
        for (const HloInstruction* i : c->instructions()) {
          if (Of(i)) {
            any = true;
            break;
          }
        }
        computations_[c] = any;
        if (any) return true;
      } else if (it->second) {
        return true;
      }
    }
    return false;
  }

 private:
  absl::flat_hash_map<const HloComputation*, bool> computations_;
};

}  // namespace

absl::StatusOr<bool> RunCse(HloModule& module, bool only_scalar_constants) {
  bool changed = false;
  SideEffects effects;
  for (HloComputation* c : module.computations()) {
    absl::flat_hash_map<size_t, absl::InlinedVector<HloInstruction*, 1>> seen;
    seen.reserve(c->instruction_count());
    for (HloInstruction* h : c->MakeInstructionPostOrder()) {
      if (h->opcode() == HloOpcode::kParameter || effects.Of(h) ||
          !h->control_predecessors().empty() ||
          !h->control_successors().empty()) {
        continue;
      }
      if (h->opcode() == HloOpcode::kConstant &&
          (only_scalar_constants && h->shape().rank() != 0)) {
        continue;
      }
      if (h->opcode() == HloOpcode::kConstant &&
          (!h->attrs().literal.has_value() || h->attrs().literal->is_unknown())) {
        continue;  // elided constants are not known to be equal
      }
      auto& bucket = seen[CseHash(h)];
      HloInstruction* match = nullptr;
      for (HloInstruction* candidate : bucket) {
        if (SameOperands(h, candidate) &&
            SameInstructionIgnoringOperands(*h, *candidate)) {
          match = candidate;
          break;
        }
      }
      if (match == nullptr) {
        bucket.push_back(h);
        continue;
      }
      absl::Status s = h->ReplaceAllUsesWith(match);
      if (!s.ok()) return s;
      if (!h->IsRoot()) {
        s = c->RemoveInstruction(h);
        if (!s.ok()) return s;
      }
      changed = true;
    }
  }
  return changed;
}

// ---------------------------------------------------- constant-folding

namespace {

bool Foldable(const HloInstruction* h, int64_t max_elements) {
  switch (h->opcode()) {
    case HloOpcode::kConstant:
    case HloOpcode::kParameter:
    case HloOpcode::kBroadcast:  // grows constants; XLA keeps them
    case HloOpcode::kIota:
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kWhile:
    case HloOpcode::kFft:
    case HloOpcode::kCustomCall:
    case HloOpcode::kRng:
    case HloOpcode::kRngBitGenerator:
    case HloOpcode::kRngGetAndUpdateState:
    case HloOpcode::kAfterAll:
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
      return false;
    default:
      break;
  }
  if (h->operand_count() == 0 || HasSideEffectDeep(h) || HasControlDeps(h)) {
    return false;
  }
  if (!h->shape().IsArray() || h->shape().is_dynamic()) return false;
  if (h->shape().ElementCount() > max_elements) return false;
  for (const HloInstruction* o : h->operands()) {
    if (o->opcode() != HloOpcode::kConstant ||
        !o->attrs().literal.has_value() || o->attrs().literal->is_unknown()) {
      return false;
    }
  }
  // Calls that reach collectives or ids depend on the device.
  for (const HloComputation* f : h->called_computations()) {
    for (const HloInstruction* i : f->instructions()) {
      if (i->opcode() == HloOpcode::kReplicaId ||
          i->opcode() == HloOpcode::kPartitionId ||
          i->opcode() == HloOpcode::kRng ||
          i->opcode() == HloOpcode::kWhile) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

absl::StatusOr<bool> RunConstantFolding(HloModule& module,
                                        int64_t max_elements) {
  bool changed = false;
  const auto fused = FusionComputations(module);
  for (HloComputation* c : module.computations()) {
    if (fused.contains(c)) continue;
    for (HloInstruction* h : c->MakeInstructionPostOrder()) {
      if (!Foldable(h, max_elements)) continue;
      std::vector<const Literal*> operands;
      for (const HloInstruction* o : h->operands()) {
        operands.push_back(&*o->attrs().literal);
      }
      absl::StatusOr<Literal> value =
          EvaluateInstruction(*h, operands, CompileTimeEvaluation());
      if (!value.ok()) continue;  // not evaluable: leave it
      value->mutable_shape_for_layout() = h->shape();
      HloInstruction* constant = AddConstant(c, *std::move(value));
      constant->set_metadata(h->metadata());
      absl::Status s = ReplaceInstruction(h, constant);
      if (!s.ok()) return s;
      changed = true;
    }
  }
  return changed;
}

// ---------------------------------------------------- tuple-simplifier

absl::StatusOr<bool> RunTupleSimplifier(HloModule& module) {
  bool changed = false;
  for (HloComputation* c : module.computations()) {
    for (HloInstruction* h : c->MakeInstructionPostOrder()) {
      HloInstruction* replacement = nullptr;
      if (h->opcode() == HloOpcode::kGetTupleElement &&
          h->operand(0)->opcode() == HloOpcode::kTuple) {
        replacement = h->mutable_operand(0)->mutable_operand(h->tuple_index());
      } else if (h->opcode() == HloOpcode::kTuple && h->operand_count() > 0) {
        HloInstruction* source = nullptr;
        for (int64_t i = 0; i < h->operand_count(); ++i) {
          const HloInstruction* o = h->operand(i);
          if (o->opcode() != HloOpcode::kGetTupleElement ||
              o->tuple_index() != i ||
              (source != nullptr && o->operand(0) != source)) {
            source = nullptr;
            break;
          }
          source = o->mutable_operand(0);
        }
        if (source != nullptr && source->shape() == h->shape()) {
          replacement = source;
        }
      }
      if (replacement == nullptr || HasControlDeps(h)) continue;
      absl::Status s = ReplaceInstruction(h, replacement);
      if (!s.ok()) return s;
      changed = true;
    }
  }
  return changed;
}

// ----------------------------------------- zero-sized-hlo-elimination

absl::StatusOr<bool> RunZeroSizedHloElimination(HloModule& module) {
  bool changed = false;
  for (HloComputation* c : module.computations()) {
    for (HloInstruction* h : c->MakeInstructionPostOrder()) {
      if (h->opcode() == HloOpcode::kConstant ||
          h->opcode() == HloOpcode::kParameter || !h->shape().IsArray() ||
          h->shape().is_dynamic() || h->shape().ElementCount() != 0 ||
          HasSideEffectDeep(h) || HasControlDeps(h)) {
        continue;
      }
      HloInstruction* empty = AddConstant(c, Literal(h->shape()));
      absl::Status s = ReplaceInstruction(h, empty);
      if (!s.ok()) return s;
      changed = true;
    }
  }
  return changed;
}

// ------------------------------------------------ opt-barrier-expander

absl::StatusOr<bool> RunOptBarrierExpander(HloModule& module) {
  bool changed = false;
  for (HloComputation* c : module.computations()) {
    for (HloInstruction* h : c->MakeInstructionPostOrder()) {
      if (h->opcode() != HloOpcode::kOptimizationBarrier) continue;
      absl::Status s =
          ReplaceInstruction(h, h->mutable_operand(0), /*always_remove=*/true);
      if (!s.ok()) return s;
      changed = true;
    }
  }
  return changed;
}

// ------------------------------------------------------ sort-simplifier

absl::StatusOr<bool> RunSortSimplifier(HloModule& module) {
  bool changed = false;
  for (HloComputation* c : module.computations()) {
    for (HloInstruction* sort : InstructionsWithOpcode(c, HloOpcode::kSort)) {
      if (!sort->shape().IsTuple() || sort->IsRoot()) {
        continue;
      }
      const int64_t n = sort->operand_count();
      std::vector<bool> used(n, false);
      bool only_gtes = true;
      for (const HloInstruction* u : sort->users()) {
        if (u->opcode() != HloOpcode::kGetTupleElement) {
          only_gtes = false;
          break;
        }
        used[u->tuple_index()] = true;
      }
      if (!only_gtes) continue;
      const HloComputation* cmp = sort->to_apply();
      for (int64_t i = 0; i < n; ++i) {
        if (!cmp->parameter_instruction(2 * i)->users().empty() ||
            !cmp->parameter_instruction(2 * i + 1)->users().empty()) {
          used[i] = true;
        }
      }
      std::vector<int64_t> kept;
      for (int64_t i = 0; i < n; ++i) {
        if (used[i]) kept.push_back(i);
      }
      if (static_cast<int64_t>(kept.size()) == n || kept.empty()) continue;
      // A comparator with only the kept parameters, renumbered.
      HloComputation* new_cmp = CloneComputation(module, *cmp, cmp->name());
      std::vector<HloInstruction*> params = new_cmp->parameter_instructions();
      for (int64_t i = 0; i < n; ++i) {
        if (used[i]) continue;
        for (int64_t k : {2 * i, 2 * i + 1}) {
          absl::Status s = new_cmp->RemoveParameter(params[k]);
          if (!s.ok()) return s;
        }
      }
      std::vector<HloInstruction*> operands;
      std::vector<Shape> shapes;
      for (int64_t i : kept) {
        operands.push_back(sort->mutable_operand(i));
        shapes.push_back(sort->shape().tuple_shapes(i));
      }
      Shape shape = kept.size() == 1 ? shapes[0] : Shape::Tuple(shapes);
      std::unique_ptr<HloInstruction> clone =
          sort->CloneWithNewOperands(shape, operands);
      clone->set_name(module.NewInstructionName("sort"));
      clone->set_called_computation(0, new_cmp);
      HloInstruction* new_sort = c->AddInstruction(std::move(clone));
      for (HloInstruction* u : std::vector<HloInstruction*>(sort->users())) {
        const int64_t index =
            std::find(kept.begin(), kept.end(), u->tuple_index()) -
            kept.begin();
        HloInstruction* replacement = new_sort;
        if (kept.size() > 1) {
          replacement = AddNew(c, HloOpcode::kGetTupleElement,
                               u->shape(), {new_sort});
          replacement->set_index(index);
        }
        absl::Status s = ReplaceInstruction(u, replacement);
        if (!s.ok()) return s;
      }
      changed = true;
    }
  }
  if (changed) {
    absl::StatusOr<bool> dce = RunDce(module, true);
    if (!dce.ok()) return dce.status();
  }
  return changed;
}

}  // namespace xlite
