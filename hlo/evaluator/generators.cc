// Opcodes whose value comes from no operand: constant, iota, the replica
// and partition ids, and the rng state counter.

#include "hlo/evaluator/internal.h"

namespace xlite::eval {
namespace {

absl::StatusOr<Literal> Constant(const HloInstruction& hlo) {
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

Literal Iota(const HloInstruction& hlo) {
  const Shape& shape = hlo.shape();
  Literal out(shape);
  const int64_t dim = hlo.iota_dimension();
  const std::vector<int64_t> strides = Strides(shape.dimensions());
  const int64_t n = out.element_count();
  const bool is_float = IsFloatingPoint(shape.element_type());
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = (i / strides[dim]) % shape.dimensions(dim);
    if (is_float) {
      out.SetFromDouble(i, static_cast<double>(v));
    } else {
      out.SetFromInt64(i, v);
    }
  }
  return out;
}

}  // namespace

// Parameters are bound by Evaluator::Call and never reach here, except
// through EvaluateInstruction, which has no arguments to bind them to.
absl::StatusOr<Literal> EvalGenerator(Evaluator& evaluator,
                                      const HloInstruction& hlo) {
  switch (hlo.opcode()) {
    case HloOpcode::kConstant:
      return Constant(hlo);
    case HloOpcode::kIota:
      return Iota(hlo);
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId: {
      Literal out(hlo.shape());
      out.SetFromInt64(0, hlo.opcode() == HloOpcode::kReplicaId
                              ? evaluator.replica_id()
                              : evaluator.partition_id());
      return out;
    }
    case HloOpcode::kRngGetAndUpdateState: {
      Literal out(hlo.shape());
      out.SetFromUint64(0, evaluator.rng_state());
      evaluator.rng_state() += static_cast<uint64_t>(hlo.attrs().delta);
      return out;
    }
    default:
      return NotImplemented(hlo);
  }
}

}  // namespace xlite::eval
