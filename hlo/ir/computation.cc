#include "hlo/ir/computation.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/ir/module.h"

namespace xlite {

HloComputation::HloComputation(std::string name) : name_(std::move(name)) {}

HloComputation::~HloComputation() {
  // Break use/def links first so destruction order does not matter.
  for (auto& instruction : instructions_) {
    if (instruction != nullptr) {
      instruction->operands_.clear();
      instruction->users_.clear();
    }
  }
}

HloInstruction* HloComputation::AddInstruction(
    std::unique_ptr<HloInstruction> instruction) {
  HloInstruction* raw = instruction.get();
  raw->parent_ = this;
  raw->index_in_parent_ = static_cast<int64_t>(instructions_.size());
  if (parent_ != nullptr) {
    if (raw->unique_id_ < 0) {
      raw->unique_id_ = parent_->NextInstructionId();
    } else {
      parent_->NoteInstructionId(raw->unique_id_);
    }
  }
  if (raw->opcode() == HloOpcode::kParameter) {
    const int64_t number = raw->parameter_number();
    if (number >= static_cast<int64_t>(parameters_.size())) {
      parameters_.resize(number + 1, nullptr);
    }
    parameters_[number] = raw;
  }
  instructions_.push_back(std::move(instruction));
  ++live_count_;
  return raw;
}

absl::Status HloComputation::RemoveInstruction(HloInstruction* instruction) {
  if (instruction->parent_ != this) {
    return absl::InvalidArgumentError(
        absl::StrCat(instruction->name(), " is not an instruction of ", name_));
  }
  if (!instruction->users().empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot remove ", instruction->name(), ": it still has users"));
  }
  if (instruction == root_) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot remove the root ", instruction->name()));
  }
  if (instruction->opcode() == HloOpcode::kParameter) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot remove parameter ", instruction->name()));
  }
  instruction->DetachOperands();
  instruction->DropAllControlDeps();
  const int64_t index = instruction->index_in_parent_;
  instructions_[index].reset();
  --live_count_;
  // Compact once half the slots are empty so iteration stays linear.
  if (live_count_ * 2 < static_cast<int64_t>(instructions_.size())) {
    std::vector<std::unique_ptr<HloInstruction>> kept;
    kept.reserve(live_count_);
    for (auto& slot : instructions_) {
      if (slot != nullptr) {
        slot->index_in_parent_ = static_cast<int64_t>(kept.size());
        kept.push_back(std::move(slot));
      }
    }
    instructions_ = std::move(kept);
  }
  return absl::OkStatus();
}

absl::Status HloComputation::RemoveParameter(HloInstruction* parameter) {
  if (parameter->parent_ != this ||
      parameter->opcode() != HloOpcode::kParameter) {
    return absl::InvalidArgumentError(
        absl::StrCat(parameter->name(), " is not a parameter of ", name_));
  }
  if (!parameter->users().empty() || root_ == parameter) {
    return absl::FailedPreconditionError(
        absl::StrCat("parameter ", parameter->name(), " is still used"));
  }
  const int64_t number = parameter->parameter_number();
  parameters_.erase(parameters_.begin() + number);
  for (int64_t i = number; i < static_cast<int64_t>(parameters_.size()); ++i) {
    parameters_[i]->set_index(i);
  }
  parameter->DropAllControlDeps();
  instructions_[parameter->index_in_parent_].reset();
  --live_count_;
  return absl::OkStatus();
}

absl::Status HloComputation::RemoveInstructionAndUnusedOperands(
    HloInstruction* instruction) {
  std::vector<HloInstruction*> worklist = {instruction};
  absl::flat_hash_set<HloInstruction*> removed;
  while (!worklist.empty()) {
    HloInstruction* current = worklist.back();
    worklist.pop_back();
    if (removed.contains(current) || !current->users().empty() ||
        current == root_ || current->opcode() == HloOpcode::kParameter ||
        (current != instruction && current->HasSideEffect()) ||
        !current->control_successors().empty()) {
      continue;
    }
    std::vector<HloInstruction*> operands = current->operands();
    absl::Status status = RemoveInstruction(current);
    if (!status.ok()) return status;
    removed.insert(current);
    for (HloInstruction* operand : operands) worklist.push_back(operand);
  }
  return absl::OkStatus();
}

std::vector<HloInstruction*> HloComputation::instructions() const {
  std::vector<HloInstruction*> out;
  out.reserve(live_count_);
  for (const auto& slot : instructions_) {
    if (slot != nullptr) out.push_back(slot.get());
  }
  return out;
}

std::vector<HloInstruction*> HloComputation::PostOrder(
    bool unused_first) const {
  std::vector<HloInstruction*> order;
  order.reserve(live_count_);
  // Visited marks indexed by slot (every instruction knows its slot).
  std::vector<uint8_t> visited(instructions_.size(), 0);
  auto mark = [&](const HloInstruction* instruction) {
    uint8_t& v = visited[instruction->index_in_parent_];
    if (v) return false;
    v = 1;
    return true;
  };
  // Iterative DFS: (instruction, next child index); operands first, then
  // control predecessors, each in order.
  std::vector<std::pair<HloInstruction*, size_t>> stack;
  auto visit_from = [&](HloInstruction* start) {
    if (!mark(start)) return;
    stack.push_back({start, 0});
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      const size_t num_operands = node->operands().size();
      const size_t total = num_operands + node->control_predecessors().size();
      if (next < total) {
        HloInstruction* child =
            next < num_operands
                ? node->operands()[next]
                : node->control_predecessors()[next - num_operands];
        ++next;
        if (child->parent() == this && mark(child)) stack.push_back({child, 0});
      } else {
        order.push_back(node);
        stack.pop_back();
      }
    }
  };
  if (unused_first) {
    for (const auto& slot : instructions_) {
      if (slot != nullptr && slot->users().empty() &&
          slot->control_successors().empty()) {
        visit_from(slot.get());
      }
    }
  }
  for (const auto& slot : instructions_) {
    if (slot != nullptr) visit_from(slot.get());
  }
  return order;
}

std::vector<HloInstruction*> HloComputation::MakeInstructionPostOrder() const {
  // As XLA does: start from the instructions nothing uses (the root and dead
  // ends), in order, so the print order matches XLA's for XLA's dumps.
  return PostOrder(/*unused_first=*/true);
}

void HloComputation::Resequence() {
  // Starting from every instruction in sequence order keeps instructions
  // already in order where they are.
  const std::vector<HloInstruction*> order = PostOrder(/*unused_first=*/false);
  std::vector<std::unique_ptr<HloInstruction>> sequenced;
  sequenced.reserve(order.size());
  for (HloInstruction* h : order) {
    sequenced.push_back(std::move(instructions_[h->index_in_parent_]));
  }
  for (size_t i = 0; i < sequenced.size(); ++i) {
    sequenced[i]->index_in_parent_ = static_cast<int64_t>(i);
  }
  instructions_ = std::move(sequenced);
}

HloInstruction* HloComputation::GetInstructionWithName(
    absl::string_view name) const {
  for (const auto& slot : instructions_) {
    if (slot != nullptr && slot->name() == name) return slot.get();
  }
  return nullptr;
}

std::vector<Shape> HloComputation::ParameterShapes() const {
  std::vector<Shape> shapes;
  for (HloInstruction* p : parameters_) {
    shapes.push_back(p != nullptr ? p->shape() : Shape());
  }
  return shapes;
}

}  // namespace xlite
