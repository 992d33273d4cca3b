#include "passes/async_to_sync.h"

#include <optional>

#include "hlo/ir/opcode.h"

namespace xlite {

namespace {

// The start of the chain ending at `done`, or nullptr.
HloInstruction* StartOf(HloInstruction* done) {
  HloInstruction* at = done->mutable_operand(0);
  while (at->opcode() == HloOpcode::kAsyncUpdate) at = at->mutable_operand(0);
  return at->opcode() == HloOpcode::kAsyncStart ? at : nullptr;
}

// Replaces `done` by `sync`. With `start`, the start goes too (even one with
// side effects, which removing the done alone would keep).
absl::StatusOr<bool> Replace(HloComputation& computation, HloInstruction* done,
                             std::unique_ptr<HloInstruction> sync,
                             HloInstruction* start = nullptr) {
  sync->set_metadata(done->metadata());
  // Errors about the op point at the text that wrote it: the start, or the
  // done of a sugared pair whose start is implicit.
  sync->set_location(start != nullptr && start->location().line > 0
                         ? start->location()
                         : done->location());
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
  if (start != nullptr) {
    if (absl::Status s = computation.RemoveInstruction(done); !s.ok()) {
      return s;
    }
    done = start;
  }
  if (absl::Status s = computation.RemoveInstructionAndUnusedOperands(done);
      !s.ok()) {
    return s;
  }
  return true;
}

// The synchronous collective a `-done` of an async collective pair stands
// for, when its operand is the matching `-start`.
std::optional<HloOpcode> SyncCollective(const HloInstruction* done) {
  if (done->operand_count() != 1) return std::nullopt;
  const HloOpcode start = done->operand(0)->opcode();
  switch (done->opcode()) {
    case HloOpcode::kAllReduceDone:
      if (start == HloOpcode::kAllReduceStart) return HloOpcode::kAllReduce;
      break;
    case HloOpcode::kAllGatherDone:
      if (start == HloOpcode::kAllGatherStart) return HloOpcode::kAllGather;
      break;
    case HloOpcode::kCollectivePermuteDone:
      if (start == HloOpcode::kCollectivePermuteStart) {
        return HloOpcode::kCollectivePermute;
      }
      break;
    default:
      break;
  }
  return std::nullopt;
}

// The synchronous form of `done`'s start: its operands, attributes and
// reduction computation, with the done's (result) shape. The start's other
// tuple elements (its operands, the permute's context) are not results.
std::unique_ptr<HloInstruction> SyncFromStart(HloOpcode op,
                                              const HloInstruction* done) {
  const HloInstruction* start = done->operand(0);
  std::unique_ptr<HloInstruction> sync =
      HloInstruction::Create(op, done->shape(), start->operands());
  if (start->has_attrs()) sync->mutable_attrs() = start->attrs();
  *sync->mutable_dimensions() = start->dimensions();
  sync->set_has_dimensions(start->has_dimensions());
  for (HloComputation* c : start->called_computations()) {
    sync->AppendCalledComputation(c);
  }
  sync->set_backend_config(start->backend_config());
  sync->set_location(start->location());
  return sync;
}

// Moves the control dependencies of `start` onto `done` (which replaces the
// pair).
absl::Status MoveControlDeps(HloInstruction* start, HloInstruction* done) {
  const std::vector<HloInstruction*> preds = start->control_predecessors();
  for (HloInstruction* pred : preds) {
    if (absl::Status s = pred->AddControlDependencyTo(done); !s.ok()) return s;
  }
  const std::vector<HloInstruction*> succs = start->control_successors();
  for (HloInstruction* succ : succs) {
    if (succ == done) continue;
    if (absl::Status s = done->AddControlDependencyTo(succ); !s.ok()) return s;
  }
  start->DropAllControlDeps();
  return absl::OkStatus();
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
        // A sugared start ("all-to-all-start") wrote the wrapped op: errors
        // about it point there.
        for (HloInstruction* wrapped :
             start->async_wrapped_computation()->instructions()) {
          if (wrapped->location().line == 0) {
            wrapped->set_location(start->location());
          }
        }
        // The start may have had other users (async-update chains): only
        // convert when the done is its only consumer path.
        if (start->user_count() != 1) continue;
        if (absl::Status s = MoveControlDeps(start, hlo); !s.ok()) return s;
      } else if (hlo->opcode() == HloOpcode::kCopyDone &&
                 hlo->operand(0)->opcode() == HloOpcode::kCopyStart) {
        sync = HloInstruction::Create(HloOpcode::kCopy, hlo->shape(),
                                      {hlo->mutable_operand(0)->mutable_operand(0)});
      } else if (std::optional<HloOpcode> op = SyncCollective(hlo);
                 op.has_value() && hlo->operand(0)->user_count() == 1) {
        HloInstruction* start = hlo->mutable_operand(0);
        if (absl::Status s = MoveControlDeps(start, hlo); !s.ok()) return s;
        absl::StatusOr<bool> done =
            Replace(*computation, hlo, SyncFromStart(*op, hlo), start);
        if (!done.ok()) return done.status();
        changed = true;
        continue;
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

}  // namespace xlite
