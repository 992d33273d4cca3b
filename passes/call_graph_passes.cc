// call-inliner and flatten-call-graph.

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "passes/hlo_util.h"
#include "passes/passes.h"

namespace xlite {
namespace {

bool Inlineable(const HloInstruction* call) {
  if (call->opcode() != HloOpcode::kCall) return false;
  if (call->has_attrs() && call->attrs().is_composite) return false;
  const FrontendAttributes& fa = call->frontend_attributes();
  auto it = fa.find("inlineable");
  if (it != fa.end() && it->second == "false") return false;
  // Calls to another execution thread stay calls.
  return call->to_apply()->execution_thread() ==
         call->parent()->execution_thread();
}

}  // namespace

absl::StatusOr<bool> RunCallInliner(HloModule& module) {
  bool changed = false;
  // Callees first, so a callee's own calls are inlined before it is copied.
  for (HloComputation* c : module.MakeComputationPostOrder()) {
    for (HloInstruction* h : c->MakeInstructionPostOrder()) {
      if (!Inlineable(h)) continue;
      absl::StatusOr<HloInstruction*> root =
          InlineComputation(c, *h->to_apply(), h->operands());
      if (!root.ok()) return root.status();
      absl::Status s = ReplaceInstruction(h, *root, /*always_remove=*/true);
      if (!s.ok()) return s;
      changed = true;
    }
  }
  if (changed) {
    absl::StatusOr<bool> dce = RunDce(module, true);
    if (!dce.ok()) return dce.status();
  }
  return changed;
}

absl::StatusOr<bool> RunFlattenCallGraph(HloModule& module) {
  if (module.entry_computation() == nullptr) return false;
  bool changed = false;
  absl::flat_hash_set<const HloComputation*> claimed;
  absl::flat_hash_set<const HloComputation*> visited;
  std::vector<HloComputation*> work = {module.entry_computation()};
  claimed.insert(module.entry_computation());
  while (!work.empty()) {
    HloComputation* c = work.back();
    work.pop_back();
    if (!visited.insert(c).second) continue;
    for (HloInstruction* h : c->MakeInstructionPostOrder()) {
      const bool sequential = h->opcode() == HloOpcode::kCall ||
                              h->opcode() == HloOpcode::kWhile ||
                              h->opcode() == HloOpcode::kConditional;
      for (int64_t i = 0;
           i < static_cast<int64_t>(h->called_computations().size()); ++i) {
        HloComputation* f = h->called_computations()[i];
        if (sequential && claimed.contains(f)) {
          HloComputation* copy = CloneComputation(module, *f, f->name());
          h->set_called_computation(i, copy);
          f = copy;
          changed = true;
        }
        if (sequential) claimed.insert(f);
        work.push_back(f);
      }
    }
  }
  return changed;
}

}  // namespace xlite
