// The last steps of BufferAssignment::Build: one allocation per entry
// parameter leaf, constant and computed result leaf, the arena packed with
// every other buffer, and the slice of every value.

#include <algorithm>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/buffer_assignment_builder.h"
#include "runtime/heap_packer.h"

namespace xlite::runtime {
namespace {

int64_t BufferBytes(const AliasAnalysis& analysis,
                    const std::vector<int>& members) {
  int64_t size = 0;
  for (int m : members) size = std::max(size, analysis.value(m).size);
  return size;
}

}  // namespace

absl::Status BufferAssignmentBuilder::MakeAllocations() {
  const HloComputation* entry = module_.entry_computation();
  std::vector<Allocation>& allocations = result_.allocations_;
  absl::flat_hash_map<int, std::vector<ShapeIndex>> outputs;
  for (const auto& [leaf, v] : analysis_->Leaves(entry->root_instruction())) {
    outputs[sets_->Find(v)].push_back(leaf);
  }
  for (const HloInstruction* p : entry->parameter_instructions()) {
    for (const auto& [leaf, v] : analysis_->Leaves(p)) {
      const int b = sets_->Find(v);
      Allocation a;
      a.kind = Allocation::Kind::kParameter;
      a.size = analysis_->value(v).size;
      a.parameter_number = p->parameter_number();
      a.parameter_index = leaf;
      if (!placement_.contains(b)) a.output_indices = outputs[b];
      placement_.emplace(b, std::make_pair(static_cast<int>(allocations.size()), int64_t{0}));
      allocations.push_back(std::move(a));
    }
  }
  for (const HloValue& value : analysis_->values()) {
    const int b = value.id;
    if (!sets_->IsBuffer(b)) continue;
    const HloInstruction* constant = nullptr;
    for (int m : sets_->Members(b)) {
      const HloInstruction* h = analysis_->value(m).instruction;
      // A constant of no bytes has no data to own a buffer for (copy
      // insertion copies no zero-sized values, so two may meet).
      if (h->opcode() != HloOpcode::kConstant || analysis_->value(m).size == 0) {
        continue;
      }
      if (placement_.contains(b) || (constant != nullptr && constant != h)) {
        return absl::FailedPreconditionError(absl::StrCat(
            "constant %", h->name(),
            " shares its buffer with an entry parameter or another constant "
            "(must-alias set without copies); run InsertCopies first"));
      }
      constant = h;
    }
    if (constant == nullptr) continue;
    Allocation a;
    a.kind = Allocation::Kind::kConstant;
    a.size = BufferBytes(*analysis_, sets_->Members(b));
    a.constant = constant;
    a.output_indices = outputs[b];
    placement_[b] = {static_cast<int>(allocations.size()), 0};
    allocations.push_back(std::move(a));
  }
  for (const auto& [leaf, v] : analysis_->Leaves(entry->root_instruction())) {
    const int b = sets_->Find(v);
    if (placement_.contains(b)) continue;
    Allocation a;
    a.kind = Allocation::Kind::kOutput;
    a.size = BufferBytes(*analysis_, sets_->Members(b));
    a.output_indices = outputs[b];
    placement_[b] = {static_cast<int>(allocations.size()), 0};
    allocations.push_back(std::move(a));
  }
  return absl::OkStatus();
}

void BufferAssignmentBuilder::PackArena() {
  std::vector<int> buffers;
  std::vector<PackRequest> requests;
  bool any_bytes = false;
  for (const HloValue& value : analysis_->values()) {
    if (!sets_->IsBuffer(value.id) || placement_.contains(value.id)) continue;
    PackRequest r;
    r.size = BufferBytes(*analysis_, sets_->Members(value.id));
    r.start = live_->range(value.id).start;
    r.end = live_->range(value.id).end;
    for (int m : sets_->Members(value.id)) {
      r.start = std::min(r.start, live_->range(m).start);
      r.end = std::max(r.end, live_->range(m).end);
    }
    any_bytes |= r.size > 0;
    buffers.push_back(value.id);
    requests.push_back(r);
  }
  if (!any_bytes) {
    for (int b : buffers) placement_[b] = {-1, 0};
    return;
  }
  PackResult packed = PackBuffers(requests, options_.alignment);
  result_.peak_live_temp_bytes_ = PeakLiveBytes(requests);
  result_.temp_allocation_ = static_cast<int>(result_.allocations_.size());
  Allocation arena;
  arena.kind = Allocation::Kind::kTemp;
  arena.size = packed.arena_size;
  result_.allocations_.push_back(std::move(arena));
  for (size_t i = 0; i < buffers.size(); ++i) {
    placement_[buffers[i]] = {result_.temp_allocation_, packed.offsets[i]};
  }
}

void BufferAssignmentBuilder::RecordSlices() {
  for (const HloValue& value : analysis_->values()) {
    const int b = sets_->Find(value.id);
    const auto [allocation, offset] = placement_.at(b);
    BufferAssignment::ValueInfo info;
    info.instruction = value.instruction;
    info.index = value.index;
    info.slice = {allocation, value.size == 0 ? 0 : offset, value.size};
    info.start = live_->range(value.id).start;
    info.end = live_->range(value.id).end;
    info.buffer = b;
    info.is_phi = value.is_phi;
    result_.values_.push_back(std::move(info));
  }
  for (const HloComputation* c : analysis_->sequential_computations()) {
    for (const HloInstruction* h : result_.schedules_.at(c)) {
      for (const auto& [leaf, v] : analysis_->Leaves(h)) {
        result_.slices_[{h, leaf}] = result_.values_[v].slice;
      }
    }
  }
}

}  // namespace xlite::runtime
