// The evaluator's driver: computations in post order, control flow, tuples,
// async wrappers, and the dispatch of every other opcode to its family.

#include "hlo/evaluator/evaluator.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "hlo/evaluator/device_group.h"
#include "hlo/evaluator/internal.h"

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

namespace {

// A status from an op family, located at `hlo` unless it already is.
absl::Status Located(const HloInstruction& hlo, const absl::Status& status) {
  if (status.ok() || absl::StrContains(status.message(), "error: %")) {
    return status;
  }
  return InstructionError(hlo, status.message());
}

Literal TupleOf(Operands operands) {
  std::vector<Literal> elements;
  elements.reserve(operands.size());
  for (const Literal* o : operands) elements.push_back(*o);
  return Literal::Tuple(std::move(elements));
}

// The shape's zero value (for async contexts and tokens).
Literal Zero(const Shape& shape) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& e : shape.tuple_shapes()) elements.push_back(Zero(e));
    return Literal::Tuple(std::move(elements));
  }
  return Literal(shape);
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

absl::StatusOr<Literal> Evaluator::Visit(const HloInstruction& hlo,
                                         Operands operands) {
  const HloOpcode op = hlo.opcode();
  if (IsElementwiseOpcode(op) && op != HloOpcode::kConvert &&
      op != HloOpcode::kCopy && op != HloOpcode::kBitcastConvert &&
      op != HloOpcode::kReducePrecision &&
      op != HloOpcode::kStochasticConvert) {
    return EvalElementwise(hlo, operands);
  }
  switch (op) {
    case HloOpcode::kConstant: {
      const Literal& literal = *hlo.attrs().literal;
      if (literal.is_unknown()) {
        return InstructionError(hlo,
                                "the constant's value was elided ({...}) "
                                "in the text, so it cannot be evaluated");
      }
      Literal out = literal;
      out.mutable_shape_for_layout() = hlo.shape();
      return out;
    }
    case HloOpcode::kTuple:
      return TupleOf(operands);
    case HloOpcode::kGetTupleElement: {
      const Literal& tuple = *operands[0];
      const int64_t index = hlo.tuple_index();
      if (index < 0 ||
          index >= static_cast<int64_t>(tuple.tuple_elements().size())) {
        return InstructionError(hlo, "tuple index out of range");
      }
      return tuple.tuple_elements()[index];
    }
    case HloOpcode::kAddDependency:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kDomain:
      return *operands[0];
    case HloOpcode::kAfterAll:
      return Literal(Shape::Token());
    case HloOpcode::kConvert:
      return EvalConvert(hlo, *operands[0]);
    case HloOpcode::kBitcastConvert:
      return EvalBitcastConvert(hlo, *operands[0]);
    case HloOpcode::kReducePrecision:
      return EvalReducePrecision(hlo, *operands[0]);
    case HloOpcode::kStochasticConvert:
      return EvalStochasticConvert(hlo, *operands[0], *operands[1]);
    case HloOpcode::kCall:
      return Call(*hlo.called_computations()[0], operands);
    case HloOpcode::kFusion: {
      // XLA lets a fusion carry operands past its parameters; they go unused.
      const HloComputation& fused = *hlo.called_computations()[0];
      ++fusion_depth_;
      absl::StatusOr<Literal> out = Call(
          fused,
          operands.first(std::min<size_t>(operands.size(), fused.num_parameters())));
      --fusion_depth_;
      return out;
    }
    case HloOpcode::kWhile: {
      Literal state = *operands[0];
      for (int64_t iteration = 0;; ++iteration) {
        if (options_.max_loop_iterations > 0 &&
            iteration >= options_.max_loop_iterations) {
          return InstructionError(hlo,
                                  absl::StrCat("the loop ran ", iteration,
                                               " iterations, the limit set"));
        }
        const Literal* args[] = {&state};
        absl::StatusOr<Literal> go = Call(*hlo.while_condition(), args);
        if (!go.ok()) return go.status();
        if (go->GetBits(0) == 0) break;
        absl::StatusOr<Literal> next = Call(*hlo.while_body(), args);
        if (!next.ok()) return next.status();
        state = *std::move(next);
      }
      return state;
    }
    case HloOpcode::kConditional: {
      const auto& branches = hlo.called_computations();
      const Literal& selector = *operands[0];
      int64_t branch;
      if (selector.shape().element_type() == PrimitiveType::kPred) {
        branch = selector.GetBits(0) != 0 ? 0 : 1;
      } else {
        branch = selector.GetAsInt64(0);
        // Out of range runs the last branch.
        if (branch < 0 || branch >= static_cast<int64_t>(branches.size())) {
          branch = branches.size() - 1;
        }
      }
      const Literal* args[] = {operands[branch + 1]};
      return Call(*branches[branch], args);
    }
    case HloOpcode::kAsyncStart: {
      absl::StatusOr<Literal> result =
          Call(*hlo.async_wrapped_computation(), operands);
      if (!result.ok()) return result.status();
      std::vector<Literal> elements;
      elements.push_back(TupleOf(operands));
      elements.push_back(*std::move(result));
      for (int64_t i = 2; i < hlo.shape().tuple_shapes_size(); ++i) {
        elements.push_back(Zero(hlo.shape().tuple_shapes(i)));
      }
      return Literal::Tuple(std::move(elements));
    }
    case HloOpcode::kAsyncUpdate:
      return *operands[0];
    case HloOpcode::kAsyncDone:
      return operands[0]->tuple_elements().at(1);
    case HloOpcode::kCopyStart: {
      std::vector<Literal> elements = {*operands[0], *operands[0],
                                       Zero(hlo.shape().tuple_shapes(2))};
      return Literal::Tuple(std::move(elements));
    }
    case HloOpcode::kCopyDone:
      return operands[0]->tuple_elements().at(0);
    case HloOpcode::kAllReduceDone:
      return *operands[0];
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteDone: {
      const Literal& start = *operands[0];
      // The start holds (operands, result[, contexts]) or just the result;
      // a combined start's result is itself a tuple.
      if (start.shape().IsTuple() && start.tuple_elements().size() >= 2 &&
          (!hlo.shape().IsTuple() ||
           ShapesCompatible(start.tuple_elements()[1].shape(), hlo.shape()))) {
        return start.tuple_elements()[1];
      }
      return start;
    }
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId: {
      Literal out(hlo.shape());
      out.SetFromInt64(
          0, op == HloOpcode::kReplicaId ? replica_id() : partition_id());
      return out;
    }
    case HloOpcode::kRngGetAndUpdateState: {
      Literal out(hlo.shape());
      out.SetFromUint64(0, rng_state_);
      rng_state_ += static_cast<uint64_t>(hlo.attrs().delta);
      return out;
    }
    case HloOpcode::kCopy:
    case HloOpcode::kReshape:
    case HloOpcode::kDynamicReshape:
    case HloOpcode::kSetDimensionSize:
    case HloOpcode::kGetDimensionSize:
    case HloOpcode::kBitcast:
    case HloOpcode::kBroadcast:
    case HloOpcode::kTranspose:
    case HloOpcode::kSlice:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kConcatenate:
    case HloOpcode::kPad:
    case HloOpcode::kReverse:
    case HloOpcode::kIota:
      return EvalDataMovement(hlo, operands);
    case HloOpcode::kGather:
      return EvalGather(hlo, operands);
    case HloOpcode::kScatter:
      return EvalScatter(*this, hlo, operands);
    case HloOpcode::kReduce:
      return EvalReduce(*this, hlo, operands);
    case HloOpcode::kReduceWindow:
      return EvalReduceWindow(*this, hlo, operands);
    case HloOpcode::kSelectAndScatter:
      return EvalSelectAndScatter(*this, hlo, operands);
    case HloOpcode::kMap:
      return EvalMap(*this, hlo, operands);
    case HloOpcode::kScan:
      return EvalScan(*this, hlo, operands);
    case HloOpcode::kSort:
      return EvalSort(*this, hlo, operands);
    case HloOpcode::kTopK:
      return EvalTopK(hlo, *operands[0], hlo.attrs().k, hlo.attrs().largest);
    case HloOpcode::kDot:
      return EvalDot(hlo, operands);
    case HloOpcode::kScaledDot:
      return EvalScaledDot(hlo, operands);
    case HloOpcode::kRaggedDot:
      return EvalRaggedDot(hlo, operands);
    case HloOpcode::kConvolution:
      return EvalConvolution(hlo, operands);
    case HloOpcode::kCholesky:
      return EvalCholesky(hlo, *operands[0]);
    case HloOpcode::kTriangularSolve:
      return EvalTriangularSolve(hlo, operands);
    case HloOpcode::kFft:
      return EvalFft(hlo, *operands[0]);
    case HloOpcode::kBatchNormTraining:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormGrad:
      return EvalBatchNorm(hlo, operands);
    case HloOpcode::kRngBitGenerator:
      return EvalRngBitGenerator(hlo, *operands[0]);
    case HloOpcode::kRng:
      return EvalRng(*this, hlo, operands);
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kCollectiveReduce:
    case HloOpcode::kRaggedAllToAll:
      return EvalCollective(*this, hlo, operands);
    case HloOpcode::kCustomCall:
      return EvalCustomCall(*this, hlo, operands);
    case HloOpcode::kInfeed:
    case HloOpcode::kOutfeed:
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
      return InstructionError(
          hlo, absl::StrCat(HloOpcodeString(op),
                            " talks to the host or another program; the "
                            "evaluator cannot run it"));
    default:
      return InstructionError(hlo,
                              absl::StrCat("the evaluator does not implement ",
                                           HloOpcodeString(op), " yet"));
  }
}

}  // namespace eval

absl::StatusOr<Literal> EvaluateComputation(
    const HloComputation& computation,
    absl::Span<const Literal* const> arguments,
    const EvaluatorOptions& options) {
  eval::Evaluator evaluator(options, nullptr, 0);
  return evaluator.Call(computation, arguments);
}

absl::StatusOr<Literal> EvaluateInstruction(
    const HloInstruction& instruction,
    absl::Span<const Literal* const> operands,
    const EvaluatorOptions& options) {
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
