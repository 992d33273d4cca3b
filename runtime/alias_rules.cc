// AliasAnalysis's rules per opcode: which positions define values, which
// forward them, which must alias and which may be written in place.

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/alias_analysis.h"

namespace xlite::runtime {
namespace {

bool IsInPlaceOp(const HloInstruction* instruction) {
  return instruction->opcode() == HloOpcode::kDynamicUpdateSlice ||
         (instruction->opcode() == HloOpcode::kScatter &&
          instruction->operand_count() == 3);
}

bool SameBytesAndLayout(const Shape& a, const Shape& b) {
  if (!a.IsArray() || !b.IsArray() || a.dimensions() != b.dimensions() ||
      a.ByteSizeOfElements() != b.ByteSizeOfElements()) {
    return false;
  }
  if (a.has_layout() != b.has_layout()) return a.rank() <= 1;
  return !a.has_layout() ||
         a.layout().minor_to_major() == b.layout().minor_to_major();
}

// True when `user` reads operand `i` only at the index it writes.
bool ReadsAtOwnIndex(const HloInstruction* user, int64_t i) {
  return IsElementwiseOpcode(user->opcode()) &&
         user->opcode() != HloOpcode::kCopy &&
         user->operand(i)->shape().dimensions() == user->shape().dimensions();
}

// True when every element of `value` (inside a fused computation) is read
// only while computing the root's element at the same index.
bool ReadOnlyAtRootIndex(
    const HloInstruction* value,
    absl::flat_hash_map<const HloInstruction*, bool>& known) {
  if (value->IsRoot()) return true;
  if (auto it = known.find(value); it != known.end()) return it->second;
  bool result = true;
  for (const HloInstruction* user : value->users()) {
    for (int64_t i = 0; i < user->operand_count() && result; ++i) {
      if (user->operand(i) == value &&
          (!ReadsAtOwnIndex(user, i) || !ReadOnlyAtRootIndex(user, known))) {
        result = false;
      }
    }
  }
  known[value] = result;
  return result;
}

// An elementwise kernel may write its result over operand `i` when it
// reads that operand only at the index it writes, with the same bytes per
// element in the same layout: each element is read before it is
// overwritten. Only an optimization: the operand must die there.
bool MayOverwriteOperand(const HloInstruction* instruction, int64_t i) {
  const HloInstruction* operand = instruction->operand(i);
  if (!SameBytesAndLayout(operand->shape(), instruction->shape())) {
    return false;
  }
  if (instruction->opcode() == HloOpcode::kFusion) {
    const HloComputation* fused = instruction->fused_computation();
    if (i >= fused->num_parameters()) return false;
    const HloOpcode root = fused->root_instruction()->opcode();
    if (root == HloOpcode::kTuple || root == HloOpcode::kDynamicUpdateSlice ||
        root == HloOpcode::kScatter) {
      return false;
    }
    absl::flat_hash_map<const HloInstruction*, bool> known;
    return ReadOnlyAtRootIndex(fused->parameter_instruction(i), known);
  }
  return ReadsAtOwnIndex(instruction, i);
}

}  // namespace

absl::Status AliasAnalysis::AnalyzeInstruction(
    const HloInstruction* instruction) {
  const HloComputation* computation = instruction->parent();
  switch (instruction->opcode()) {
    case HloOpcode::kParameter: {
      const HloInstruction* caller = Caller(computation);
      if (caller == nullptr || caller->opcode() == HloOpcode::kWhile) {
        // Entry parameters are the caller's arrays; a loop's parameters
        // name the loop state (a phi of init and body root).
        DefineAll(instruction, /*is_phi=*/caller != nullptr);
        return absl::OkStatus();
      }
      // Branch and callee parameters read the caller's operand in place.
      int64_t operand = instruction->parameter_number();
      if (caller->opcode() == HloOpcode::kConditional) {
        const auto& branches = caller->called_computations();
        operand = 1 + (std::find(branches.begin(), branches.end(),
                                 computation) -
                       branches.begin());
      }
      if (operand >= caller->operand_count()) {
        return absl::InvalidArgumentError(
            absl::StrCat("%", instruction->name(), " of %",
                         computation->name(), " has no operand of %",
                         caller->name(), " to read"));
      }
      Forward(instruction, {}, caller->operand(operand), {});
      return absl::OkStatus();
    }
    case HloOpcode::kTuple:
      for (int64_t i = 0; i < instruction->operand_count(); ++i) {
        Forward(instruction, {i}, instruction->operand(i), {});
      }
      leaves_[instruction];  // an empty tuple holds nothing
      return absl::OkStatus();
    case HloOpcode::kGetTupleElement:
      Forward(instruction, {}, instruction->operand(0),
              {instruction->tuple_index()});
      return absl::OkStatus();
    case HloOpcode::kBitcast:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kAddDependency:
    case HloOpcode::kDomain:
      Forward(instruction, {}, instruction->operand(0), {});
      return absl::OkStatus();
    case HloOpcode::kWhile: {
      DefineAll(instruction, /*is_phi=*/true);
      for (const HloComputation* callee : instruction->called_computations()) {
        absl::Status status = ClaimCallee(callee, instruction);
        if (!status.ok()) return status;
      }
      for (const HloComputation* callee : {instruction->while_condition(),
                                           instruction->while_body()}) {
        absl::Status status = AnalyzeComputation(callee);
        if (!status.ok()) return status;
        if (callee->num_parameters() != 1) {
          return absl::InvalidArgumentError(
              absl::StrCat("%", callee->name(), " of %", instruction->name(),
                           " must have one parameter"));
        }
        AliasLeaves(instruction, callee->parameter_instruction(0));
      }
      AliasLeaves(instruction, instruction->operand(0));
      AliasLeaves(instruction, instruction->while_body()->root_instruction());
      return absl::OkStatus();
    }
    case HloOpcode::kConditional:
    case HloOpcode::kCall: {
      DefineAll(instruction, /*is_phi=*/true);
      for (const HloComputation* callee : instruction->called_computations()) {
        absl::Status status = ClaimCallee(callee, instruction);
        if (!status.ok()) return status;
        status = AnalyzeComputation(callee);
        if (!status.ok()) return status;
        AliasLeaves(instruction, callee->root_instruction());
      }
      return absl::OkStatus();
    }
    default:
      break;
  }
  ShapeIndex source_prefix;
  if (DoneSource(instruction, &source_prefix)) {
    // The "done" half of an asynchronous pair holds the start's result.
    Forward(instruction, {}, instruction->operand(0), source_prefix);
    if (Leaves(instruction).size() ==
        LeafIndices(instruction->shape()).size()) {
      return absl::OkStatus();
    }
    leaves_.erase(instruction);  // shapes disagree: a value of its own
  }
  DefineAll(instruction, /*is_phi=*/false);
  AddInPlaceCandidates(instruction);
  return absl::OkStatus();
}

void AliasAnalysis::AddInPlaceCandidates(const HloInstruction* instruction) {
  const HloOpcode opcode = instruction->opcode();
  if (IsInPlaceOp(instruction)) {
    in_place_.push_back({instruction, {}, 0, {}});
  } else if (instruction->shape().IsArray() &&
             (IsElementwiseOpcode(opcode) || opcode == HloOpcode::kFusion)) {
    for (int64_t i = 0; i < instruction->operand_count(); ++i) {
      if (MayOverwriteOperand(instruction, i)) {
        in_place_.push_back({instruction, {}, i, {}, /*optional=*/true});
      }
    }
  }
  if (opcode == HloOpcode::kSort) {
    // A sort copies each operand into its result, then permutes that in
    // place: the copy may be over the operand itself.
    for (int64_t i = 0; i < instruction->operand_count(); ++i) {
      const bool tuple = instruction->shape().IsTuple();
      const Shape& leaf =
          tuple ? instruction->shape().tuple_shapes(i) : instruction->shape();
      if (SameBytesAndLayout(instruction->operand(i)->shape(), leaf)) {
        in_place_.push_back({instruction, tuple ? ShapeIndex{i} : ShapeIndex{},
                             i, {}, /*optional=*/true});
      }
    }
  }
  if (opcode == HloOpcode::kScatter && !IsInPlaceOp(instruction)) {
    // Variadic scatter: N inputs, N updates, one index array; result i
    // updates input i.
    const int64_t n = (instruction->operand_count() - 1) / 2;
    for (int64_t i = 0; i < n; ++i) in_place_.push_back({instruction, {i}, i, {}});
  }
  if (opcode == HloOpcode::kFusion &&
      !instruction->called_computations().empty()) {
    const HloInstruction* root =
        instruction->fused_computation()->root_instruction();
    std::vector<std::pair<ShapeIndex, const HloInstruction*>> outputs;
    if (root->opcode() == HloOpcode::kTuple) {
      for (int64_t i = 0; i < root->operand_count(); ++i) {
        outputs.push_back({{i}, root->operand(i)});
      }
    } else {
      outputs.push_back({{}, root});
    }
    for (const auto& [index, output] : outputs) {
      // The buffer's parameter must be read by the update alone.
      if (IsInPlaceOp(output) &&
          output->operand(0)->opcode() == HloOpcode::kParameter &&
          output->operand(0)->user_count() == 1 &&
          output->operand(0)->parameter_number() <
              instruction->operand_count()) {
        in_place_.push_back(
            {instruction, index, output->operand(0)->parameter_number(), {}});
      }
    }
  }
  if ((opcode == HloOpcode::kFusion || opcode == HloOpcode::kCustomCall) &&
      instruction->has_attrs()) {
    for (const OutputOperandAlias& alias :
         instruction->attrs().output_to_operand_aliasing) {
      if (alias.operand_number < instruction->operand_count()) {
        in_place_.push_back({instruction, alias.output_index,
                             alias.operand_number, alias.operand_index});
      }
    }
  }
}

}  // namespace xlite::runtime
