#include "runtime/flatten_sequential_calls.h"

#include <deque>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"

namespace xlite::runtime {
namespace {

// The callee slots of `instruction` whose computations run one instruction
// after another (not inside a kernel).
std::vector<int64_t> SequentialSlots(const HloInstruction& instruction) {
  std::vector<int64_t> slots;
  switch (instruction.opcode()) {
    case HloOpcode::kWhile:
    case HloOpcode::kConditional:
    case HloOpcode::kCall:
      for (int64_t i = 0;
           i < static_cast<int64_t>(instruction.called_computations().size());
           ++i) {
        slots.push_back(i);
      }
      break;
    default:
      break;
  }
  return slots;
}

}  // namespace

HloComputation* CloneComputation(HloModule& module,
                                 const HloComputation& computation) {
  auto clone =
      std::make_unique<HloComputation>(module.NewComputationName(
          computation.name()));
  clone->set_execution_thread(computation.execution_thread());
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> map;
  for (const HloInstruction* h : computation.MakeInstructionPostOrder()) {
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* o : h->operands()) operands.push_back(map.at(o));
    std::unique_ptr<HloInstruction> copy =
        h->CloneWithNewOperands(h->shape(), operands);
    copy->set_name(module.NewInstructionName(h->name()));
    map[h] = clone->AddInstruction(std::move(copy));
  }
  for (const HloInstruction* h : computation.instructions()) {
    for (const HloInstruction* s : h->control_successors()) {
      (void)map.at(h)->AddControlDependencyTo(map.at(s));
    }
  }
  clone->set_root_instruction(map.at(computation.root_instruction()));
  return module.AddComputation(std::move(clone));
}

absl::StatusOr<bool> FlattenSequentialCalls(HloModule& module) {
  HloComputation* entry = module.entry_computation();
  if (entry == nullptr) {
    return absl::InvalidArgumentError("module has no entry computation");
  }
  bool changed = false;
  absl::flat_hash_set<const HloComputation*> claimed = {entry};
  std::deque<HloComputation*> work = {entry};
  while (!work.empty()) {
    HloComputation* computation = work.front();
    work.pop_front();
    for (HloInstruction* h : computation->instructions()) {
      for (int64_t slot : SequentialSlots(*h)) {
        HloComputation* callee = h->called_computations()[slot];
        if (callee == nullptr) continue;
        if (claimed.contains(callee)) {
          callee = CloneComputation(module, *callee);
          h->set_called_computation(slot, callee);
          changed = true;
        }
        claimed.insert(callee);
        work.push_back(callee);
      }
    }
  }
  return changed;
}

}  // namespace xlite::runtime
