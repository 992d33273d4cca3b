#include "cpu_backend/sibling_fusion.h"

#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/ir/opcode.h"

namespace xlite::cpu {
namespace {

constexpr size_t kMaxOutputs = 8;
constexpr size_t kMaxParameters = 32;

// The roots of a fusion's results, in leaf order.
std::vector<const HloInstruction*> Outputs(const HloInstruction* fusion) {
  const HloInstruction* root = fusion->fused_computation()->root_instruction();
  if (root->opcode() != HloOpcode::kTuple) return {root};
  return {root->operands().begin(), root->operands().end()};
}

// The dimensions every result of a candidate kernel has; nullopt-like
// empty optional through `ok`.
bool ResultDimensions(const HloInstruction* fusion,
                      std::vector<int64_t>* dims) {
  bool first = true;
  for (const HloInstruction* out : Outputs(fusion)) {
    if (!out->shape().IsArray()) return false;
    std::vector<int64_t> d(out->shape().dimensions().begin(),
                           out->shape().dimensions().end());
    if (!first && d != *dims) return false;
    *dims = d;
    first = false;
  }
  return true;
}

bool IsCandidate(const HloInstruction* hlo) {
  if (hlo->opcode() != HloOpcode::kFusion ||
      !hlo->control_predecessors().empty() ||
      !hlo->control_successors().empty() ||
      hlo->attrs().fusion_kind != FusionKind::kInput ||
      hlo->operand_count() !=
          hlo->fused_computation()->num_parameters()) {
    return false;
  }
  for (const HloInstruction* out : Outputs(hlo)) {
    switch (out->opcode()) {
      case HloOpcode::kDynamicUpdateSlice:
      case HloOpcode::kScatter:
      case HloOpcode::kParameter:
        return false;
      default:
        break;
    }
    if (out->opcode() == HloOpcode::kReduce ||
        out->opcode() == HloOpcode::kReduceWindow) {
      if (hlo->attrs().fusion_kind != FusionKind::kInput) return false;
    } else if (hlo->attrs().fusion_kind != FusionKind::kLoop) {
      return false;
    }
  }
  std::vector<int64_t> dims;
  return ResultDimensions(hlo, &dims);
}

// True when `to` is reachable from `from` through operands.
bool DependsOn(const HloInstruction* from, const HloInstruction* to) {
  std::vector<const HloInstruction*> stack = {from};
  absl::flat_hash_set<const HloInstruction*> seen;
  while (!stack.empty()) {
    const HloInstruction* h = stack.back();
    stack.pop_back();
    if (h == to) return true;
    if (!seen.insert(h).second) continue;
    for (const HloInstruction* o : h->operands()) stack.push_back(o);
    for (const HloInstruction* o : h->control_predecessors()) stack.push_back(o);
  }
  return false;
}

// True when the same instructions read both: their results are live
// together anyway, so computing them in one pass lengthens no live range
// (siblings read at different times would hold both results meanwhile).
bool ShareAUser(const HloInstruction* a, const HloInstruction* b) {
  auto users_of = [](const HloInstruction* h) {
    absl::flat_hash_set<const HloInstruction*> users;
    for (const HloInstruction* u : h->users()) {
      if (u->opcode() == HloOpcode::kGetTupleElement) {
        for (const HloInstruction* v : u->users()) users.insert(v);
      } else {
        users.insert(u);
      }
    }
    return users;
  };
  return users_of(a) == users_of(b);
}

// One kernel computing `a`'s results, then `b`'s.
HloInstruction* Merge(HloComputation& parent, HloInstruction* a,
                      HloInstruction* b) {
  HloModule& module = *parent.parent();
  auto fused = std::make_unique<HloComputation>(
      module.NewComputationName(absl::StrCat("fused_", a->name(), "_", b->name())));
  fused->set_execution_thread(parent.execution_thread());
  std::vector<HloInstruction*> operands;
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> parameters;
  std::vector<HloInstruction*> roots;
  for (HloInstruction* kernel : {a, b}) {
    const HloComputation* callee = kernel->fused_computation();
    absl::flat_hash_map<const HloInstruction*, HloInstruction*> copies;
    for (const HloInstruction* h : callee->MakeInstructionPostOrder()) {
      if (h->opcode() == HloOpcode::kParameter) {
        HloInstruction* value = kernel->mutable_operand(h->parameter_number());
        auto [it, inserted] = parameters.try_emplace(value, nullptr);
        if (inserted) {
          auto p = HloInstruction::Create(HloOpcode::kParameter, value->shape());
          p->set_index(static_cast<int64_t>(operands.size()));
          p->set_name(module.NewInstructionName(
              absl::StrCat("param_", operands.size())));
          it->second = fused->AddInstruction(std::move(p));
          operands.push_back(value);
        }
        copies[h] = it->second;
        continue;
      }
      std::vector<HloInstruction*> ops;
      for (const HloInstruction* o : h->operands()) ops.push_back(copies.at(o));
      std::unique_ptr<HloInstruction> copy = h->CloneWithNewOperands(h->shape(), ops);
      copy->set_name(module.NewInstructionName(h->name()));
      copies[h] = fused->AddInstruction(std::move(copy));
    }
    for (const HloInstruction* out : Outputs(kernel)) roots.push_back(copies.at(out));
  }
  std::vector<Shape> leaves;
  for (const HloInstruction* r : roots) leaves.push_back(r->shape());
  const Shape tuple_shape = Shape::Tuple(leaves);
  HloInstruction* root = fused->AddInstruction(
      HloInstruction::Create(HloOpcode::kTuple, tuple_shape, roots));
  root->set_name(module.NewInstructionName("tuple"));
  fused->set_root_instruction(root);
  HloComputation* callee = module.AddComputation(std::move(fused));
  auto fusion = HloInstruction::Create(HloOpcode::kFusion, tuple_shape, operands);
  fusion->mutable_attrs().fusion_kind = a->attrs().fusion_kind;
  fusion->AppendCalledComputation(callee);
  fusion->set_name(module.NewInstructionName("multi_output_fusion"));
  if (a->has_metadata()) fusion->set_metadata(a->metadata());
  fusion->set_location(a->location());
  return parent.AddInstruction(std::move(fusion));
}

// Points the users of `old` (whose leaves start at `first` in `merged`) at
// `merged`.
absl::Status Redirect(HloComputation& parent, HloInstruction* old,
                      HloInstruction* merged, int64_t first) {
  HloModule& module = *parent.parent();
  if (old->shape().IsTuple()) {
    for (HloInstruction* user : std::vector<HloInstruction*>(old->users())) {
      if (user->opcode() != HloOpcode::kGetTupleElement) {
        return absl::InternalError("a multi-output kernel read whole");
      }
      user->set_index(first + user->tuple_index());
      for (int64_t i = 0; i < user->operand_count(); ++i) {
        if (user->operand(i) != old) continue;
        if (absl::Status s = user->ReplaceOperandWithDifferentShape(i, merged);
            !s.ok()) {
          return s;
        }
      }
    }
  } else {
    auto gte = HloInstruction::Create(HloOpcode::kGetTupleElement, old->shape(),
                                      {merged});
    gte->set_index(first);
    gte->set_name(module.NewInstructionName(old->name()));
    if (absl::Status s = old->ReplaceAllUsesWith(parent.AddInstruction(std::move(gte)));
        !s.ok()) {
      return s;
    }
  }
  HloComputation* callee = old->fused_computation();
  if (absl::Status s = parent.RemoveInstruction(old); !s.ok()) return s;
  for (const HloComputation* c : module.computations()) {
    for (const HloInstruction* h : c->instructions()) {
      for (const HloComputation* called : h->called_computations()) {
        if (called == callee) return absl::OkStatus();  // still called
      }
    }
  }
  return module.RemoveComputation(callee);
}

// Merges one pair of siblings in `computation`; false when none is left.
absl::StatusOr<bool> MergeOnePair(HloComputation& computation) {
  for (HloInstruction* shared : computation.MakeInstructionPostOrder()) {
    if (!shared->shape().IsArray() || shared->shape().ElementCount() <= 1) {
      continue;
    }
    std::vector<HloInstruction*> users;
    for (HloInstruction* u : shared->users()) {
      if (IsCandidate(u)) users.push_back(u);
    }
    for (size_t i = 0; i < users.size(); ++i) {
      for (size_t j = i + 1; j < users.size(); ++j) {
        HloInstruction* a = users[i];
        HloInstruction* b = users[j];
        std::vector<int64_t> da, db;
        ResultDimensions(a, &da);
        ResultDimensions(b, &db);
        if (da != db || a->attrs().fusion_kind != b->attrs().fusion_kind ||
            Outputs(a).size() + Outputs(b).size() > kMaxOutputs ||
            a->operand_count() + b->operand_count() > kMaxParameters ||
            !ShareAUser(a, b) || DependsOn(a, b) || DependsOn(b, a)) {
          continue;
        }
        const int64_t a_leaves = static_cast<int64_t>(Outputs(a).size());
        HloInstruction* merged = Merge(computation, a, b);
        if (absl::Status s = Redirect(computation, a, merged, 0); !s.ok()) return s;
        if (absl::Status s = Redirect(computation, b, merged, a_leaves); !s.ok()) {
          return s;
        }
        return true;
      }
    }
  }
  return false;
}

}  // namespace

absl::StatusOr<bool> FuseSiblings(HloModule& module) {
  bool changed = false;
  absl::flat_hash_set<const HloComputation*> fused;
  for (HloComputation* c : module.computations()) {
    for (const HloInstruction* h : c->instructions()) {
      for (const HloComputation* callee : h->called_computations()) {
        if (h->opcode() != HloOpcode::kWhile &&
            h->opcode() != HloOpcode::kConditional &&
            h->opcode() != HloOpcode::kCall) {
          fused.insert(callee);
        }
      }
    }
  }
  for (HloComputation* computation : module.computations()) {
    if (fused.contains(computation)) continue;
    for (;;) {
      absl::StatusOr<bool> merged = MergeOnePair(*computation);
      if (!merged.ok()) return merged.status();
      if (!*merged) break;
      changed = true;
    }
  }
  return changed;
}

}  // namespace xlite::cpu
