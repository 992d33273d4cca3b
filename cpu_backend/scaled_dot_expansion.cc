#include "cpu_backend/scaled_dot_expansion.h"

#include "hlo/ir/opcode.h"
#include "passes/block_scaling.h"
#include "passes/hlo_util.h"

namespace xlite::cpu {

absl::StatusOr<bool> ExpandScaledDots(HloModule& module) {
  bool changed = false;
  for (HloComputation* c : module.MakeComputationPostOrder()) {
    for (HloInstruction* h : InstructionsWithOpcode(c, HloOpcode::kScaledDot)) {
      if (absl::Status s = ExpandScaledDot(h); !s.ok()) return s;
      changed = true;
    }
  }
  return changed;
}

}  // namespace xlite::cpu
