#include "cpu_backend/rng_order.h"

#include "absl/container/flat_hash_set.h"
#include "hlo/ir/opcode.h"

namespace xlite::cpu {

absl::StatusOr<bool> OrderRandomOpsAsEvaluated(HloModule& module) {
  // Callees first, so a caller knows whether its computations draw.
  absl::flat_hash_set<const HloComputation*> draws;
  bool changed = false;
  for (HloComputation* computation : module.MakeComputationPostOrder()) {
    HloInstruction* previous = nullptr;
    for (HloInstruction* hlo : computation->MakeInstructionPostOrder()) {
      bool drawing = hlo->opcode() == HloOpcode::kRng ||
                     hlo->opcode() == HloOpcode::kRngGetAndUpdateState;
      for (const HloComputation* callee : hlo->called_computations()) {
        drawing |= draws.contains(callee);
      }
      if (!drawing) continue;
      draws.insert(computation);
      if (previous != nullptr) {
        // Post order never puts a user before its operand, so the edge
        // cannot close a cycle.
        if (absl::Status s = previous->AddControlDependencyTo(hlo); !s.ok()) {
          return s;
        }
        changed = true;
      }
      previous = hlo;
    }
  }
  return changed;
}

}  // namespace xlite::cpu
