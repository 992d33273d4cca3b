// BufferAssignment::Build: alias analysis, schedules, live ranges, the
// may-alias decisions, allocations and the packing of the arena.

#include "runtime/buffer_assignment.h"
#include "runtime/buffer_assignment_builder.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/alias_analysis.h"
#include "runtime/buffer_sets.h"
#include "runtime/heap_packer.h"
#include "runtime/live_ranges.h"
#include "runtime/sequential_schedule.h"

namespace xlite::runtime {
namespace {

// Whether two arrays hold the same elements at the same bytes: same type,
// dimensions and layout (a missing layout is the default one). An
// in-place write into an operand laid out otherwise would scramble it.
bool SamePhysicalShape(const Shape* a, const Shape* b) {
  if (a == nullptr || b == nullptr || !a->IsArray() || !b->IsArray() ||
      a->element_type() != b->element_type() ||
      a->dimensions() != b->dimensions()) {
    return false;
  }
  const Layout la = a->has_layout() ? a->layout() : DefaultLayout(a->rank());
  const Layout lb = b->has_layout() ? b->layout() : DefaultLayout(b->rank());
  return la == lb;
}

}  // namespace

bool BufferAssignmentBuilder::IsEntryParameter(int v) const {
  const HloValue& value = analysis_->value(v);
  return !value.is_phi && value.instruction->opcode() == HloOpcode::kParameter;
}

bool BufferAssignmentBuilder::InWhileCondition(
    const HloInstruction* instruction) const {
  const HloInstruction* caller = analysis_->Caller(instruction->parent());
  return caller != nullptr && caller->opcode() == HloOpcode::kWhile &&
         caller->while_condition() == instruction->parent();
}

absl::Status BufferAssignmentBuilder::ScheduleAll() {
  for (const HloComputation* c : analysis_->sequential_computations()) {
    std::vector<const HloInstruction*> order =
        ScheduleComputation(*c, *analysis_, keep_module_order_);
    if (static_cast<int64_t>(order.size()) != c->instruction_count()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "computation %", c->name(),
          " cannot be scheduled: its control dependencies form a cycle"));
    }
    result_.schedules_[c] = std::move(order);
  }
  return absl::OkStatus();
}

void BufferAssignmentBuilder::AliasMust() {
  for (const auto& [a, b] : analysis_->must_alias_pairs()) sets_->Union(a, b);
  for (const InPlaceCandidate& c : analysis_->in_place_candidates()) {
    const int x = analysis_->ValueAt(c.instruction->operand(c.operand_number),
                                     c.operand_index);
    const int d = analysis_->ValueAt(c.instruction, c.output_index);
    if (x < 0 || d < 0 || x == d) continue;
    // The operand must be read at that position only: an instruction that
    // also reads it elsewhere cannot overwrite it while reading.
    int reads = 0;
    for (const HloInstruction* operand : c.instruction->operands()) {
      for (const auto& [leaf, v] : analysis_->Leaves(operand)) {
        reads += v == x;
      }
    }
    if (reads == 1) sets_->AllowInPlace(x, d);
  }
}

// input_output_alias: the parameter's bytes hold the result when the
// parameter is dead by the time the result is written.
void BufferAssignmentBuilder::GrantDonations() {
  const HloComputation* entry = module_.entry_computation();
  for (const InputOutputAlias& alias : module_.config().input_output_alias) {
    if (alias.parameter_number >= entry->num_parameters()) continue;
    const int x = analysis_->ValueAt(
        entry->parameter_instruction(alias.parameter_number),
        alias.parameter_index);
    const int o =
        analysis_->ValueAt(entry->root_instruction(), alias.output_index);
    if (x < 0 || o < 0 || sets_->Find(x) == sets_->Find(o)) continue;
    bool fixed = false;  // already a parameter's or a constant's bytes
    for (int m : sets_->Members(o)) {
      fixed |= IsEntryParameter(m) || analysis_->value(m).instruction->opcode() ==
                                          HloOpcode::kConstant;
    }
    if (fixed || sets_->Interference(x, o).has_value()) continue;
    sets_->Union(x, o);
    donated_.insert(x);
  }
}

// Dynamic-update-slice, scatter, in-place fusions and
// output_to_operand_aliasing: one buffer when the operand dies there.
void BufferAssignmentBuilder::GrantInPlace() {
  std::vector<InPlaceCandidate> candidates = analysis_->in_place_candidates();
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](const InPlaceCandidate& a, const InPlaceCandidate& b) {
                     return live_->span(a.instruction).start <
                            live_->span(b.instruction).start;
                   });
  for (const InPlaceCandidate& c : candidates) {
    const int x = analysis_->ValueAt(c.instruction->operand(c.operand_number),
                                     c.operand_index);
    const int d = analysis_->ValueAt(c.instruction, c.output_index);
    if (x < 0 || d < 0 || sets_->Find(x) == sets_->Find(d)) continue;
    // As XLA's CanShareOperandBufferWithUser: same shape and layout.
    if (!SamePhysicalShape(c.instruction->operand(c.operand_number)
                               ->shape()
                               .Subshape(c.operand_index),
                           c.instruction->shape().Subshape(c.output_index))) {
      continue;
    }
    if (live_->range(x).end != live_->span(c.instruction).start) continue;
    if (InWhileCondition(c.instruction)) continue;  // the state lives on
    bool allowed = true;
    for (int m : sets_->Members(x)) {
      const HloValue& member = analysis_->value(m);
      if (member.instruction->opcode() == HloOpcode::kConstant ||
          (IsEntryParameter(m) && !donated_.contains(m))) {
        allowed = false;
      }
    }
    for (int m : sets_->Members(d)) {
      allowed &= !IsEntryParameter(m) &&
                 analysis_->value(m).instruction->opcode() !=
                     HloOpcode::kConstant;
    }
    if (!allowed || sets_->Interference(x, d).has_value()) continue;
    sets_->Union(x, d);
  }
}

std::string BufferAssignmentBuilder::Describe(int writer, int live) const {
  const HloValue& w = analysis_->value(writer);
  const HloValue& u = analysis_->value(live);
  return absl::StrCat(
      "%", w.instruction->name(), " (in %", w.instruction->parent()->name(),
      ") writes ", w.ToString(), " into the buffer of ", u.ToString(),
      " while that is still live (live range [", live_->range(live).start,
      ", ", live_->range(live).end, "], write at ",
      live_->range(writer).start,
      "): a must-alias set interferes; run InsertCopies first");
}

absl::Status BufferAssignmentBuilder::CheckInterference() const {
  for (const HloValue& value : analysis_->values()) {
    if (!sets_->IsBuffer(value.id) || sets_->Members(value.id).size() < 2) {
      continue;
    }
    if (auto c = sets_->Interference(value.id, value.id)) {
      return absl::FailedPreconditionError(Describe(c->first, c->second));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<BufferAssignment> BufferAssignmentBuilder::Build() {
  if (options_.alignment <= 0) {
    return absl::InvalidArgumentError("alignment must be positive");
  }
  absl::StatusOr<AliasAnalysis> analysis = AliasAnalysis::Run(module_);
  if (!analysis.ok()) return analysis.status();
  analysis_.emplace(*std::move(analysis));
  result_.module_ = &module_;
  absl::Status status = ScheduleAll();
  if (!status.ok()) return status;
  live_.emplace(LiveRanges::Compute(*analysis_, result_.schedules_));
  sets_.emplace(*analysis_, *live_);
  AliasMust();
  status = CheckInterference();
  if (!status.ok()) return status;
  GrantDonations();
  GrantInPlace();
  status = CheckInterference();
  if (!status.ok()) return status;
  status = MakeAllocations();
  if (!status.ok()) return status;
  PlaceTempsInOutputs();
  PackArena();
  RecordSlices();
  status = result_.VerifyNoOverlap();
  if (!status.ok()) return status;
  return std::move(result_);
}

// The module's own order (a scheduled module's schedule, or the order its
// instructions are listed in, definitions first) is one candidate; the
// list scheduler's is the other, and the smaller arena wins (the module's
// order on a tie).
absl::StatusOr<BufferAssignment> BufferAssignment::Build(
    const HloModule& module, const BufferAssignmentOptions& options) {
  absl::StatusOr<BufferAssignment> listed =
      BufferAssignmentBuilder(module, options, /*keep_module_order=*/false)
          .Build();
  absl::StatusOr<BufferAssignment> kept =
      BufferAssignmentBuilder(module, options, /*keep_module_order=*/true)
          .Build();
  if (!kept.ok() || (listed.ok() && listed->temp_size() < kept->temp_size())) {
    return listed;
  }
  return kept;
}

}  // namespace xlite::runtime
