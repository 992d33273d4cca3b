#include "hlo/ir/module.h"

#include <algorithm>
#include <functional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace xlite {

HloModule::HloModule(std::string name) : name_(std::move(name)) {}

HloModule::~HloModule() = default;

HloComputation* HloModule::AddComputation(
    std::unique_ptr<HloComputation> computation) {
  HloComputation* raw = computation.get();
  raw->parent_ = this;
  if (raw->unique_id_ < 0) {
    raw->unique_id_ = next_computation_id_++;
  } else {
    next_computation_id_ = std::max(next_computation_id_, raw->unique_id_ + 1);
  }
  for (auto& instruction : raw->instructions_) {
    if (instruction == nullptr) continue;
    if (instruction->unique_id_ < 0) {
      instruction->unique_id_ = NextInstructionId();
    } else {
      next_instruction_id_ =
          std::max(next_instruction_id_, instruction->unique_id_ + 1);
    }
  }
  computations_.push_back(std::move(computation));
  return raw;
}

HloComputation* HloModule::AddEntryComputation(
    std::unique_ptr<HloComputation> c) {
  entry_ = AddComputation(std::move(c));
  return entry_;
}

absl::Status HloModule::RemoveComputation(HloComputation* computation) {
  for (const auto& c : computations_) {
    for (HloInstruction* instruction : c->instructions()) {
      for (HloComputation* callee : instruction->called_computations()) {
        if (callee == computation) {
          return absl::FailedPreconditionError(
              absl::StrCat("computation ", computation->name(),
                           " is still called by ", instruction->name()));
        }
      }
    }
  }
  auto it = std::find_if(computations_.begin(), computations_.end(),
                         [&](const auto& c) { return c.get() == computation; });
  if (it == computations_.end()) {
    return absl::NotFoundError(
        absl::StrCat("no computation ", computation->name()));
  }
  if (entry_ == computation) entry_ = nullptr;
  computations_.erase(it);
  return absl::OkStatus();
}

std::vector<HloComputation*> HloModule::computations() const {
  std::vector<HloComputation*> out;
  out.reserve(computations_.size());
  for (const auto& c : computations_) out.push_back(c.get());
  return out;
}

HloComputation* HloModule::GetComputationWithName(
    absl::string_view name) const {
  for (const auto& c : computations_) {
    if (c->name() == name) return c.get();
  }
  return nullptr;
}

std::vector<HloComputation*> HloModule::MakeComputationPostOrder() const {
  // As XLA: depth-first from every computation nobody calls (in module
  // order), visiting callees instruction by instruction.
  absl::flat_hash_set<const HloComputation*> called;
  for (const auto& c : computations_) {
    for (HloInstruction* instruction : c->instructions()) {
      for (HloComputation* callee : instruction->called_computations()) {
        called.insert(callee);
      }
    }
  }
  std::vector<HloComputation*> order;
  absl::flat_hash_set<const HloComputation*> visited;
  std::function<void(HloComputation*)> visit = [&](HloComputation* c) {
    if (c == nullptr || !visited.insert(c).second) return;
    for (HloInstruction* instruction : c->instructions()) {
      for (HloComputation* callee : instruction->called_computations()) {
        visit(callee);
      }
    }
    order.push_back(c);
  };
  for (const auto& c : computations_) {
    if (!called.contains(c.get())) visit(c.get());
  }
  for (const auto& c : computations_) visit(c.get());  // call-graph cycles
  return order;
}

int64_t HloModule::instruction_count() const {
  int64_t n = 0;
  for (const auto& c : computations_) n += c->instruction_count();
  return n;
}

std::vector<Shape> HloModule::EntryParameterLayouts() const {
  if (config_.entry_parameter_layouts.has_value()) {
    return *config_.entry_parameter_layouts;
  }
  std::vector<Shape> shapes;
  if (entry_ == nullptr) return shapes;
  for (HloInstruction* p : entry_->parameter_instructions()) {
    Shape s = p != nullptr ? p->shape() : Shape();
    s.FillMissingLayouts();
    shapes.push_back(std::move(s));
  }
  return shapes;
}

Shape HloModule::EntryResultLayout() const {
  if (config_.entry_result_layout.has_value()) {
    return *config_.entry_result_layout;
  }
  if (entry_ == nullptr || entry_->root_instruction() == nullptr) {
    return Shape();
  }
  Shape s = entry_->root_instruction()->shape();
  s.FillMissingLayouts();
  return s;
}

std::unique_ptr<HloModule> HloModule::Clone() const {
  auto clone = std::make_unique<HloModule>(name_);
  clone->config_ = config_;
  clone->source_name_ = source_name_;
  absl::flat_hash_map<const HloComputation*, HloComputation*> computation_map;
  // Create all computations first so called computations can be remapped.
  std::vector<std::unique_ptr<HloComputation>> new_computations;
  for (const auto& c : computations_) {
    auto nc = std::make_unique<HloComputation>(c->name());
    nc->set_execution_thread(c->execution_thread());
    nc->set_sugared_async_wrapper(c->is_sugared_async_wrapper());
    nc->set_location(c->location());
    computation_map[c.get()] = nc.get();
    new_computations.push_back(std::move(nc));
  }
  for (size_t ci = 0; ci < computations_.size(); ++ci) {
    const HloComputation* old = computations_[ci].get();
    HloComputation* nc = new_computations[ci].get();
    // Copies are made operands first (a pass may leave the sequence with a
    // use before its definition) and added in the original sequence (a
    // scheduled module keeps its schedule).
    absl::flat_hash_map<const HloInstruction*, HloInstruction*> map;
    absl::flat_hash_map<const HloInstruction*, std::unique_ptr<HloInstruction>>
        made;
    for (HloInstruction* instruction : old->MakeInstructionPostOrder()) {
      std::vector<HloInstruction*> operands;
      for (HloInstruction* operand : instruction->operands()) {
        operands.push_back(map.at(operand));
      }
      auto copy =
          instruction->CloneWithNewOperands(instruction->shape(), operands);
      for (int64_t i = 0;
           i < static_cast<int64_t>(copy->called_computations().size()); ++i) {
        copy->set_called_computation(
            i, computation_map.at(instruction->called_computations()[i]));
      }
      map[instruction] = copy.get();
      made[instruction] = std::move(copy);
    }
    for (HloInstruction* instruction : old->instructions()) {
      nc->AddInstruction(std::move(made.at(instruction)));
    }
    for (HloInstruction* instruction : old->instructions()) {
      for (HloInstruction* predecessor : instruction->control_predecessors()) {
        (void)map.at(predecessor)->AddControlDependencyTo(map.at(instruction));
      }
    }
    if (old->root_instruction() != nullptr) {
      nc->set_root_instruction(map.at(old->root_instruction()));
    }
  }
  for (size_t ci = 0; ci < computations_.size(); ++ci) {
    const bool is_entry = computations_[ci].get() == entry_;
    HloComputation* added =
        clone->AddComputation(std::move(new_computations[ci]));
    if (is_entry) clone->entry_ = added;
  }
  clone->UniquifyNamesLikeXla();
  return clone;
}

namespace {

bool CanPrintAsSugar(const HloInstruction& start, const HloComputation& wrapper,
                     int64_t callers) {
  if (callers != 1) return false;
  const HloInstruction* root = wrapper.root_instruction();
  if (root == nullptr || root->opcode() == HloOpcode::kParameter ||
      root->opcode() == HloOpcode::kConstant || IsAsyncOpcode(root->opcode()) ||
      // `all-reduce-start` and the like are opcodes of their own.
      StringToHloOpcode(absl::StrCat(HloOpcodeString(root->opcode()), "-start"))
          .has_value() ||
      wrapper.num_parameters() != start.operand_count() ||
      root->operand_count() != wrapper.num_parameters() ||
      wrapper.instruction_count() != wrapper.num_parameters() + 1 ||
      !root->control_predecessors().empty()) {
    return false;
  }
  for (int64_t i = 0; i < root->operand_count(); ++i) {
    if (root->operand(i) != wrapper.parameter_instruction(i)) return false;
  }
  return true;
}

void SetChainSugar(HloInstruction* op, std::optional<HloOpcode> sugar) {
  op->set_async_sugar(sugar);
  if (op->opcode() == HloOpcode::kAsyncDone) return;
  for (HloInstruction* user : op->users()) {
    if (user->opcode() == HloOpcode::kAsyncUpdate ||
        user->opcode() == HloOpcode::kAsyncDone) {
      SetChainSugar(user, sugar);
    }
  }
}

}  // namespace

void HloModule::UniquifyNamesLikeXla() {
  instruction_names_ = NameUniquer();
  computation_names_ = NameUniquer();
  for (const auto& c : computations_) {
    c->set_name(computation_names_.GetUniqueName(c->name()));
    for (HloInstruction* i : c->instructions()) {
      i->set_name(instruction_names_.GetUniqueName(i->name()));
    }
  }
}

bool HloModule::HasDuplicateInstructionNames() const {
  absl::flat_hash_set<absl::string_view> names;
  for (const auto& c : computations_) {
    for (const HloInstruction* i : c->instructions()) {
      if (!names.insert(i->name()).second) return true;
    }
  }
  return false;
}

void HloModule::SugarAsyncOpsLikeXla() {
  absl::flat_hash_map<const HloComputation*, int64_t> callers;
  for (const auto& c : computations_) {
    for (const HloInstruction* i : c->instructions()) {
      for (const HloComputation* callee : i->called_computations()) {
        ++callers[callee];
      }
    }
  }
  for (const auto& c : computations_) {
    for (HloInstruction* i : c->instructions()) {
      if (i->opcode() != HloOpcode::kAsyncStart) continue;
      HloComputation* wrapper = i->async_wrapped_computation();
      if (wrapper == nullptr) continue;
      const bool sugar = CanPrintAsSugar(*i, *wrapper, callers[wrapper]);
      wrapper->set_sugared_async_wrapper(sugar);
      SetChainSugar(i, sugar ? std::optional<HloOpcode>(
                                   wrapper->root_instruction()->opcode())
                             : std::nullopt);
    }
  }
}

}  // namespace xlite
