#include "cpu_backend/sibling_fusion.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "hlo/ir/opcode.h"
#include "passes/fusion_builder.h"

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
        HloInstruction* merged =
            MergeIntoMultiOutput(computation, a, b, a->attrs().fusion_kind);
        HloComputation* a_body = a->fused_computation();
        HloComputation* b_body = b->fused_computation();
        if (absl::Status s = RedirectToMultiOutput(computation, a, merged, 0);
            !s.ok()) {
          return s;
        }
        if (absl::Status s =
                RedirectToMultiOutput(computation, b, merged, a_leaves);
            !s.ok()) {
          return s;
        }
        if (absl::Status s = RemoveUncalledComputations(
                *computation.parent(), {a_body, b_body});
            !s.ok()) {
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
