// The evaluator's driver: computations in post order, and the dispatch of
// each instruction to the function of its opcode's family.

#include "hlo/evaluator/evaluator.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "hlo/evaluator/device_group.h"
#include "hlo/evaluator/internal.h"
#include "hlo/ir/denormal_mode.h"

namespace xlite {

CustomCallRegistry& CustomCallRegistry::Global() {
  static CustomCallRegistry* const registry = [] {
    auto* r = new CustomCallRegistry();
    eval::RegisterBuiltinCustomCalls(*r);
    return r;
  }();
  return *registry;
}

void CustomCallRegistry::Register(const std::string& target, CustomCallFn fn) {
  fns_[target] = std::move(fn);
}

const CustomCallFn* CustomCallRegistry::Find(const std::string& target) const {
  auto it = fns_.find(target);
  return it == fns_.end() ? nullptr : &it->second;
}

std::vector<std::string> CustomCallRegistry::Targets() const {
  std::vector<std::string> out;
  for (const auto& [name, fn] : fns_) out.push_back(name);
  std::sort(out.begin(), out.end());
  return out;
}

namespace eval {

absl::Status InstructionError(const HloInstruction& hlo,
                              absl::string_view message) {
  std::string where;
  const HloComputation* c = hlo.parent();
  const HloModule* m = c != nullptr ? c->parent() : nullptr;
  const std::string source = m != nullptr ? m->source_name() : "";
  if (!source.empty() && hlo.location().line > 0) {
    where = absl::StrCat(source, ":", hlo.location().line, ":",
                         hlo.location().column, ": ");
  } else if (!source.empty()) {
    where = absl::StrCat(source, ": ");
  }
  return absl::InvalidArgumentError(
      absl::StrCat(where, "error: %", hlo.name(), ": ", message));
}

absl::Status NotImplemented(const HloInstruction& hlo) {
  return InstructionError(hlo,
                          absl::StrCat("the evaluator does not implement ",
                                       HloOpcodeString(hlo.opcode()), " yet"));
}

// Not NotImplemented: their values come from outside the module, so no
// evaluator could produce them.
absl::StatusOr<Literal> EvalHostTransfer(const HloInstruction& hlo) {
  return InstructionError(
      hlo, absl::StrCat(HloOpcodeString(hlo.opcode()),
                        " talks to the host or another program; the "
                        "evaluator cannot run it"));
}

namespace {

// A status from an op family, located at `hlo` unless it already is.
absl::Status Located(const HloInstruction& hlo, const absl::Status& status) {
  if (status.ok() || absl::StrContains(status.message(), "error: %")) {
    return status;
  }
  return InstructionError(hlo, status.message());
}

}  // namespace

Evaluator::Evaluator(const EvaluatorOptions& options, DeviceGroup* group,
                     int64_t device)
    : options_(options),
      group_(group),
      device_(device),
      rng_(options.rng_seed + static_cast<uint64_t>(device)) {}

const CustomCallRegistry& Evaluator::custom_calls() const {
  return options_.custom_calls != nullptr ? *options_.custom_calls
                                          : CustomCallRegistry::Global();
}

int64_t Evaluator::replica_id() const {
  return group_ == nullptr ? 0 : device_ / group_->partitions();
}

int64_t Evaluator::partition_id() const {
  return group_ == nullptr ? 0 : device_ % group_->partitions();
}

absl::StatusOr<Literal> Evaluator::Call(const HloComputation& computation,
                                        Operands arguments) {
  constexpr int kMaxDepth = 200;
  if (depth_ >= kMaxDepth) {
    return absl::InvalidArgumentError(
        absl::StrCat("computation ", computation.name(),
                     ": calls nest deeper than ", kMaxDepth));
  }
  ++depth_;
  struct Leave {
    int* depth;
    ~Leave() { --*depth; }
  } leave{&depth_};
  if (static_cast<int64_t>(arguments.size()) != computation.num_parameters()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "computation ", computation.name(), " takes ",
        computation.num_parameters(), " arguments, got ", arguments.size()));
  }
  auto cached = orders_.find(&computation);
  if (cached == orders_.end()) {
    cached =
        orders_.emplace(&computation, computation.MakeInstructionPostOrder())
            .first;
  }
  const std::vector<HloInstruction*>& order = cached->second;
  absl::flat_hash_map<const HloInstruction*, Literal> values;
  values.reserve(order.size());
  std::vector<const Literal*> operands;
  for (const HloInstruction* hlo : order) {
    if (hlo->opcode() == HloOpcode::kParameter) {
      const Literal& argument = *arguments[hlo->parameter_number()];
      if (!ShapesCompatible(argument.shape(), hlo->shape())) {
        return InstructionError(
            *hlo, absl::StrCat(
                      "argument has shape ", argument.shape().ToString(false),
                      ", the parameter ", hlo->shape().ToString(false)));
      }
      Literal value = argument;
      value.mutable_shape_for_layout() = hlo->shape();
      values.emplace(hlo, std::move(value));
      continue;
    }
    operands.clear();
    for (const HloInstruction* operand : hlo->operands()) {
      operands.push_back(&values.at(operand));
    }
    absl::Status allocatable = CheckAllocatable(hlo->shape());
    if (!allocatable.ok()) return InstructionError(*hlo, allocatable.message());
    absl::StatusOr<Literal> value = Visit(*hlo, operands);
    if (!value.ok()) return Located(*hlo, value.status());
    values.emplace(hlo, *std::move(value));
  }
  return std::move(values.at(computation.root_instruction()));
}

absl::StatusOr<Literal> Evaluator::CallFused(const HloComputation& fused,
                                             Operands arguments) {
  ++fusion_depth_;
  absl::StatusOr<Literal> out = Call(fused, arguments);
  --fusion_depth_;
  return out;
}

absl::StatusOr<Literal> Evaluator::Visit(const HloInstruction& hlo,
                                         Operands operands) {
  switch (HloOpcodeFamily(hlo.opcode())) {
    case OpcodeFamily::kElementwise:
      return EvalElementwise(hlo, operands);
    case OpcodeFamily::kConversion:
      return EvalConversion(hlo, operands);
    case OpcodeFamily::kGenerator:
      return EvalGenerator(*this, hlo);
    case OpcodeFamily::kDataMovement:
      return EvalDataMovement(hlo, operands);
    case OpcodeFamily::kTupleAndToken:
      return EvalTupleAndToken(hlo, operands);
    case OpcodeFamily::kGatherScatter:
      return EvalGatherScatter(*this, hlo, operands);
    case OpcodeFamily::kReduction:
      return EvalReduction(*this, hlo, operands);
    case OpcodeFamily::kSort:
      return EvalSort(*this, hlo, operands);
    case OpcodeFamily::kContraction:
      return EvalContraction(hlo, operands);
    case OpcodeFamily::kLinearAlgebra:
      return EvalLinearAlgebra(hlo, operands);
    case OpcodeFamily::kRandom:
      return EvalRandom(*this, hlo, operands);
    case OpcodeFamily::kCollective:
      return EvalCollective(*this, hlo, operands);
    case OpcodeFamily::kAsync:
      return EvalAsync(*this, hlo, operands);
    case OpcodeFamily::kControlFlow:
      return EvalControlFlow(*this, hlo, operands);
    case OpcodeFamily::kCustomCall:
      return EvalCustomCall(*this, hlo, operands);
    case OpcodeFamily::kHostTransfer:
      return EvalHostTransfer(hlo);
  }
  return NotImplemented(hlo);
}

}  // namespace eval

absl::StatusOr<Literal> EvaluateComputation(
    const HloComputation& computation,
    absl::Span<const Literal* const> arguments,
    const EvaluatorOptions& options) {
  ScopedDenormalMode mode(options.denormals);
  eval::Evaluator evaluator(options, nullptr, 0);
  return evaluator.Call(computation, arguments);
}

absl::StatusOr<Literal> EvaluateInstruction(
    const HloInstruction& instruction,
    absl::Span<const Literal* const> operands,
    const EvaluatorOptions& options) {
  ScopedDenormalMode mode(options.denormals);
  eval::Evaluator evaluator(options, nullptr, 0);
  return evaluator.EvaluateOne(instruction, operands);
}

absl::StatusOr<Literal> EvaluateModule(const HloModule& module,
                                       absl::Span<const Literal> arguments,
                                       const EvaluatorOptions& options) {
  if (module.entry_computation() == nullptr) {
    return absl::InvalidArgumentError("the module has no entry computation");
  }
  std::vector<const Literal*> args;
  for (const Literal& a : arguments) args.push_back(&a);
  return EvaluateComputation(*module.entry_computation(), args, options);
}

absl::StatusOr<std::vector<Literal>> EvaluateOnDevices(
    const HloModule& module, int64_t replicas, int64_t partitions,
    const std::vector<std::vector<Literal>>& arguments,
    const EvaluatorOptions& options) {
  return eval::RunOnDevices(module, replicas, partitions, arguments, options);
}

}  // namespace xlite
