// The families that pass whole values around instead of computing
// elements: control flow (called computations), async wrappers and the
// -done halves of async collectives, and tuples and tokens.

#include <algorithm>

#include "hlo/evaluator/internal.h"

namespace xlite::eval {
namespace {

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

absl::StatusOr<Literal> EvalWhile(Evaluator& evaluator,
                                  const HloInstruction& hlo,
                                  const Literal& init) {
  Literal state = init;
  const int64_t limit = evaluator.options().max_loop_iterations;
  for (int64_t iteration = 0;; ++iteration) {
    if (limit > 0 && iteration >= limit) {
      return InstructionError(hlo, absl::StrCat("the loop ran ", iteration,
                                                " iterations, the limit set"));
    }
    const Literal* args[] = {&state};
    absl::StatusOr<Literal> go = evaluator.Call(*hlo.while_condition(), args);
    if (!go.ok()) return go.status();
    if (go->GetBits(0) == 0) break;
    absl::StatusOr<Literal> next = evaluator.Call(*hlo.while_body(), args);
    if (!next.ok()) return next.status();
    state = *std::move(next);
  }
  return state;
}

absl::StatusOr<Literal> EvalConditional(Evaluator& evaluator,
                                        const HloInstruction& hlo,
                                        Operands operands) {
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
  return evaluator.Call(*branches[branch], args);
}

}  // namespace

absl::StatusOr<Literal> EvalControlFlow(Evaluator& evaluator,
                                        const HloInstruction& hlo,
                                        Operands operands) {
  switch (hlo.opcode()) {
    case HloOpcode::kCall:
      return evaluator.Call(*hlo.called_computations()[0], operands);
    case HloOpcode::kFusion: {
      // XLA lets a fusion carry operands past its parameters; they go unused.
      const HloComputation& fused = *hlo.called_computations()[0];
      return evaluator.CallFused(
          fused, operands.first(std::min<size_t>(operands.size(),
                                                 fused.num_parameters())));
    }
    case HloOpcode::kWhile:
      return EvalWhile(evaluator, hlo, *operands[0]);
    case HloOpcode::kConditional:
      return EvalConditional(evaluator, hlo, operands);
    default:
      return NotImplemented(hlo);
  }
}

absl::StatusOr<Literal> EvalAsync(Evaluator& evaluator,
                                  const HloInstruction& hlo,
                                  Operands operands) {
  switch (hlo.opcode()) {
    case HloOpcode::kAsyncStart: {
      // Runs the wrapped computation at once; the -done only unpacks it.
      absl::StatusOr<Literal> result =
          evaluator.Call(*hlo.async_wrapped_computation(), operands);
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
    default:
      return NotImplemented(hlo);
  }
}

absl::StatusOr<Literal> EvalTupleAndToken(const HloInstruction& hlo,
                                          Operands operands) {
  switch (hlo.opcode()) {
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
    default:
      return NotImplemented(hlo);
  }
}

}  // namespace xlite::eval
