#include "cpu_backend/async_to_sync.h"

#include "hlo/ir/opcode.h"

namespace xlite::cpu {

namespace {

// The start of the chain ending at `done`, or nullptr.
HloInstruction* StartOf(HloInstruction* done) {
  HloInstruction* at = done->mutable_operand(0);
  while (at->opcode() == HloOpcode::kAsyncUpdate) at = at->mutable_operand(0);
  return at->opcode() == HloOpcode::kAsyncStart ? at : nullptr;
}

absl::StatusOr<bool> Replace(HloComputation& computation, HloInstruction* done,
                             std::unique_ptr<HloInstruction> sync) {
  sync->set_metadata(done->metadata());
  HloInstruction* added = computation.AddInstruction(std::move(sync));
  added->set_name(done->name());
  // Ordering constraints on the pair now hold on the call.
  const std::vector<HloInstruction*> preds = done->control_predecessors();
  for (HloInstruction* pred : preds) {
    if (pred == added) continue;
    if (absl::Status s = pred->AddControlDependencyTo(added); !s.ok()) {
      return s;
    }
  }
  const std::vector<HloInstruction*> succs = done->control_successors();
  for (HloInstruction* successor : succs) {
    if (absl::Status s = added->AddControlDependencyTo(successor); !s.ok()) {
      return s;
    }
  }
  done->DropAllControlDeps();
  if (absl::Status s = done->ReplaceAllUsesWith(added); !s.ok()) return s;
  if (computation.root_instruction() == done) {
    computation.set_root_instruction(added);
  }
  if (absl::Status s = computation.RemoveInstructionAndUnusedOperands(done);
      !s.ok()) {
    return s;
  }
  return true;
}

}  // namespace

absl::StatusOr<bool> ConvertAsyncToSync(HloModule& module) {
  bool changed = false;
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* hlo : computation->MakeInstructionPostOrder()) {
      std::unique_ptr<HloInstruction> sync;
      if (hlo->opcode() == HloOpcode::kAsyncDone) {
        HloInstruction* start = StartOf(hlo);
        if (start == nullptr || start->async_wrapped_computation() == nullptr) {
          continue;
        }
        sync = HloInstruction::Create(HloOpcode::kCall, hlo->shape(),
                                      start->operands());
        sync->AppendCalledComputation(start->async_wrapped_computation());
        // The start may have had other users (async-update chains): only
        // convert when the done is its only consumer path.
        if (start->user_count() != 1) continue;
        // Ordering constraints on the start move to the done.
        std::vector<HloInstruction*> preds = start->control_predecessors();
        for (HloInstruction* pred : preds) {
          if (absl::Status s = pred->AddControlDependencyTo(hlo); !s.ok()) {
            return s;
          }
        }
        std::vector<HloInstruction*> succs = start->control_successors();
        for (HloInstruction* succ : succs) {
          if (succ == hlo) continue;
          if (absl::Status s = hlo->AddControlDependencyTo(succ); !s.ok()) {
            return s;
          }
        }
        start->DropAllControlDeps();
      } else if (hlo->opcode() == HloOpcode::kCopyDone &&
                 hlo->operand(0)->opcode() == HloOpcode::kCopyStart) {
        sync = HloInstruction::Create(HloOpcode::kCopy, hlo->shape(),
                                      {hlo->mutable_operand(0)->mutable_operand(0)});
      } else {
        continue;
      }
      absl::StatusOr<bool> done = Replace(*computation, hlo, std::move(sync));
      if (!done.ok()) return done.status();
      changed = true;
    }
  }
  return changed;
}

}  // namespace xlite::cpu
