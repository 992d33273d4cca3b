#include "runtime/alias_analysis.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace xlite::runtime {
namespace {

void CollectLeaves(const Shape& shape, ShapeIndex& prefix,
                   std::vector<ShapeIndex>& out) {
  if (!shape.IsTuple()) {
    out.push_back(prefix);
    return;
  }
  for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
    prefix.push_back(i);
    CollectLeaves(shape.tuple_shapes(i), prefix, out);
    prefix.pop_back();
  }
}

bool HasPrefix(const ShapeIndex& index, const ShapeIndex& prefix) {
  if (index.size() < prefix.size()) return false;
  return std::equal(prefix.begin(), prefix.end(), index.begin());
}

}  // namespace

bool DoneSource(const HloInstruction* done, ShapeIndex* prefix) {
  switch (done->opcode()) {
    case HloOpcode::kAsyncDone:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteDone:
      *prefix = {1};
      break;
    case HloOpcode::kCopyDone:
      *prefix = {0};
      break;
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kAsyncUpdate:
      *prefix = {};
      break;
    default:
      return false;
  }
  // Start ops whose shape is the result itself (all-reduce-start, a
  // one-element all-gather-start) hold it at the top.
  if (done->operand_count() == 1 &&
      ShapesCompatible(done->operand(0)->shape(), done->shape())) {
    *prefix = {};
  }
  return true;
}

std::string HloValue::ToString() const {
  return absl::StrCat("%", instruction->name(), ShapeIndexToString(index));
}

std::vector<ShapeIndex> LeafIndices(const Shape& shape) {
  std::vector<ShapeIndex> out;
  ShapeIndex prefix;
  CollectLeaves(shape, prefix, out);
  return out;
}

int64_t LeafBytes(const Shape& shape) {
  if (shape.IsArray()) return shape.ByteSizeOfElements();
  if (shape.IsOpaque()) return 8;  // a pointer, as XLA counts it
  return 0;                        // token
}

absl::StatusOr<AliasAnalysis> AliasAnalysis::Run(const HloModule& module) {
  AliasAnalysis analysis;
  analysis.module_ = &module;
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) {
    return absl::InvalidArgumentError("module has no entry computation");
  }
  analysis.caller_[entry] = nullptr;
  analysis.sequential_.push_back(entry);
  absl::Status status = analysis.AnalyzeComputation(entry);
  if (!status.ok()) return status;
  return analysis;
}

const std::vector<std::pair<ShapeIndex, int>>& AliasAnalysis::Leaves(
    const HloInstruction* instruction) const {
  static const auto* const kNone =
      new std::vector<std::pair<ShapeIndex, int>>();
  auto it = leaves_.find(instruction);
  return it == leaves_.end() ? *kNone : it->second;
}

int AliasAnalysis::ValueAt(const HloInstruction* instruction,
                           const ShapeIndex& index) const {
  for (const auto& [leaf, value] : Leaves(instruction)) {
    if (leaf == index) return value;
  }
  return -1;
}

const HloInstruction* AliasAnalysis::Caller(
    const HloComputation* computation) const {
  auto it = caller_.find(computation);
  return it == caller_.end() ? nullptr : it->second;
}

bool AliasAnalysis::IsForwarding(const HloInstruction* instruction) {
  switch (instruction->opcode()) {
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kBitcast:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kAddDependency:
    case HloOpcode::kDomain:
      return true;
    default: {
      ShapeIndex prefix;
      return DoneSource(instruction, &prefix);
    }
  }
}

std::vector<int> AliasAnalysis::ValuesRead(
    const HloInstruction* instruction) const {
  std::vector<int> read;
  if (IsForwarding(instruction)) return read;
  absl::flat_hash_set<int> seen;
  for (const HloInstruction* operand : instruction->operands()) {
    for (const auto& [leaf, value] : Leaves(operand)) {
      if (seen.insert(value).second) read.push_back(value);
    }
  }
  return read;
}

int AliasAnalysis::NewValue(const HloInstruction* instruction,
                            const ShapeIndex& index, bool is_phi) {
  HloValue value;
  value.id = static_cast<int>(values_.size());
  value.instruction = instruction;
  value.index = index;
  value.is_phi = is_phi;
  const Shape* leaf = instruction->shape().Subshape(index);
  value.size = leaf == nullptr ? 0 : LeafBytes(*leaf);
  values_.push_back(std::move(value));
  return values_.back().id;
}

void AliasAnalysis::SetLeaf(const HloInstruction* instruction,
                            const ShapeIndex& index, int value) {
  leaves_[instruction].emplace_back(index, value);
}

void AliasAnalysis::DefineAll(const HloInstruction* instruction,
                              bool is_phi) {
  std::vector<std::pair<ShapeIndex, int>>& leaves = leaves_[instruction];
  leaves.clear();
  for (const ShapeIndex& index : LeafIndices(instruction->shape())) {
    int id = NewValue(instruction, index, is_phi);
    leaves.emplace_back(index, id);
  }
}

void AliasAnalysis::Forward(const HloInstruction* instruction,
                            const ShapeIndex& prefix,
                            const HloInstruction* source,
                            const ShapeIndex& source_prefix) {
  for (const auto& [leaf, value] : Leaves(source)) {
    if (!HasPrefix(leaf, source_prefix)) continue;
    ShapeIndex index = prefix;
    index.insert(index.end(), leaf.begin() + source_prefix.size(), leaf.end());
    SetLeaf(instruction, index, value);
  }
}

void AliasAnalysis::AliasLeaves(const HloInstruction* a,
                                const HloInstruction* b) {
  for (const auto& [leaf, value] : Leaves(a)) {
    int other = ValueAt(b, leaf);
    if (other >= 0 && other != value) {
      must_alias_pairs_.emplace_back(value, other);
    }
  }
}

absl::Status AliasAnalysis::ClaimCallee(const HloComputation* callee,
                                        const HloInstruction* caller) {
  if (callee == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", caller->name(), " has a missing callee"));
  }
  auto [it, inserted] = caller_.emplace(callee, caller);
  if (!inserted) {
    return absl::InvalidArgumentError(absl::StrCat(
        "computation %", callee->name(), " runs from both %",
        it->second == nullptr ? "<entry>" : it->second->name(), " and %",
        caller->name(), "; flatten the call graph (InsertCopies) first"));
  }
  sequential_.push_back(callee);
  return absl::OkStatus();
}

absl::Status AliasAnalysis::AnalyzeComputation(
    const HloComputation* computation) {
  for (const HloInstruction* instruction :
       computation->MakeInstructionPostOrder()) {
    absl::Status status = AnalyzeInstruction(instruction);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace xlite::runtime
