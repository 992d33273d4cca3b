#ifndef XLITE_HLO_EVALUATOR_INTERNAL_H_
#define XLITE_HLO_EVALUATOR_INTERNAL_H_

// Shared by the evaluator's files: the per-device interpreter and the
// functions that evaluate each family of opcodes.

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/ir/instruction.h"
#include "hlo/ir/literal.h"

namespace xlite::eval {

class DeviceGroup;

using Operands = absl::Span<const Literal* const>;

/// Interprets computations on one (simulated) device.
class Evaluator {
 public:
  Evaluator(const EvaluatorOptions& options, DeviceGroup* group,
            int64_t device);

  /// Evaluates `computation` on `arguments` (one per parameter).
  absl::StatusOr<Literal> Call(const HloComputation& computation,
                               Operands arguments);

  /// Call for a fusion's computation: in_fusion() holds while it runs.
  absl::StatusOr<Literal> CallFused(const HloComputation& fused,
                                    Operands arguments);

  /// Evaluates one instruction on its operands' values.
  absl::StatusOr<Literal> EvaluateOne(const HloInstruction& hlo,
                                      Operands operands) {
    return Visit(hlo, operands);
  }

  const EvaluatorOptions& options() const { return options_; }
  const CustomCallRegistry& custom_calls() const;
  DeviceGroup* group() const { return group_; }
  int64_t device() const { return device_; }
  int64_t replica_id() const;
  int64_t partition_id() const;
  std::mt19937_64& rng() { return rng_; }
  uint64_t& rng_state() { return rng_state_; }
  /// How many times this device ran `hlo` before (collectives match the
  /// k-th run on every device).
  int64_t NextRun(const HloInstruction* hlo) { return runs_[hlo]++; }
  /// Whether a fusion's computation is being evaluated (XLA:CPU leaves the
  /// reduces inside fusions in sequential order; see EvalReduce).
  bool in_fusion() const { return fusion_depth_ > 0; }

 private:
  absl::StatusOr<Literal> Visit(const HloInstruction& hlo, Operands operands);

  EvaluatorOptions options_;
  DeviceGroup* group_;  // nullptr: a single device
  int64_t device_;
  std::mt19937_64 rng_;
  uint64_t rng_state_ = 0;
  int depth_ = 0;
  int fusion_depth_ = 0;
  absl::flat_hash_map<const HloInstruction*, int64_t> runs_;
  // Post orders of the computations called so far (loops and reducers call
  // the same ones many times).
  absl::flat_hash_map<const HloComputation*, std::vector<HloInstruction*>>
      orders_;
};

/// "computation X, %name: message" errors, with the instruction's source
/// location when the module was read from text.
absl::Status InstructionError(const HloInstruction& hlo,
                              absl::string_view message);

/// Fails unless `shape`'s data fits in memory (a verified module may still
/// declare absurd shapes).
absl::Status CheckAllocatable(const Shape& shape);

// ---------------------------------------------------------- index helpers

/// Row-major strides (in elements) of `dims`.
std::vector<int64_t> Strides(absl::Span<const int64_t> dims);

/// Calls f(index) for every multi-index of `dims` in row-major order.
template <typename F>
void ForEachIndex(absl::Span<const int64_t> dims, F&& f) {
  for (int64_t d : dims) {
    if (d == 0) return;
  }
  std::vector<int64_t> index(dims.size(), 0);
  while (true) {
    f(absl::Span<const int64_t>(index));
    int64_t i = static_cast<int64_t>(dims.size()) - 1;
    for (; i >= 0; --i) {
      if (++index[i] < dims[i]) break;
      index[i] = 0;
    }
    if (i < 0) return;
  }
}

/// Bytes per element in a literal's storage.
inline int64_t ElementBytes(const Shape& shape) {
  return StorageBytes(shape.element_type());
}

/// Element `i` of an integer index operand (dynamic-slice starts, gather
/// and scatter indices) as int64: a u64 above INT64_MAX saturates there, so
/// it stays out of bounds (clamped to the last start, or skipped) as XLA
/// compares it unsigned, instead of wrapping negative.
int64_t IndexAt(const Literal& literal, int64_t i);

/// IndexAt(literal, 0) of a scalar index operand.
int64_t ScalarIndex(const Literal& literal);

/// Physical (layout) order <-> the logical row-major order Literal uses.
std::vector<uint8_t> ToPhysical(const Literal& literal);
/// The same with the layout of `layout` (the declared shape of the
/// instruction that produced `literal`) when its dimensions match.
std::vector<uint8_t> ToPhysicalAs(const Literal& literal, const Shape& layout);
Literal FromPhysical(const Shape& shape, const std::vector<uint8_t>& bytes);

// ------------------------------------------------------- opcode families

// One function per OpcodeFamily (hlo/ir/opcode.h); Evaluator::Visit picks
// it by the instruction's family. An opcode of the family that a function
// does not handle gets NotImplemented.

/// "the evaluator does not implement <opcode> yet", at `hlo`.
absl::Status NotImplemented(const HloInstruction& hlo);

absl::StatusOr<Literal> EvalElementwise(const HloInstruction& hlo,
                                        Operands operands);
absl::StatusOr<Literal> EvalConversion(const HloInstruction& hlo,
                                       Operands operands);
absl::StatusOr<Literal> EvalGenerator(Evaluator& evaluator,
                                      const HloInstruction& hlo);
absl::StatusOr<Literal> EvalDataMovement(const HloInstruction& hlo,
                                         Operands operands);
absl::StatusOr<Literal> EvalTupleAndToken(const HloInstruction& hlo,
                                          Operands operands);
absl::StatusOr<Literal> EvalGatherScatter(Evaluator& evaluator,
                                          const HloInstruction& hlo,
                                          Operands operands);
absl::StatusOr<Literal> EvalReduction(Evaluator& evaluator,
                                      const HloInstruction& hlo,
                                      Operands operands);
absl::StatusOr<Literal> EvalSort(Evaluator& evaluator,
                                 const HloInstruction& hlo, Operands operands);
absl::StatusOr<Literal> EvalContraction(const HloInstruction& hlo,
                                        Operands operands);
absl::StatusOr<Literal> EvalLinearAlgebra(const HloInstruction& hlo,
                                          Operands operands);
absl::StatusOr<Literal> EvalRandom(Evaluator& evaluator,
                                   const HloInstruction& hlo,
                                   Operands operands);
absl::StatusOr<Literal> EvalCollective(Evaluator& evaluator,
                                       const HloInstruction& hlo,
                                       Operands operands);
absl::StatusOr<Literal> EvalAsync(Evaluator& evaluator,
                                  const HloInstruction& hlo, Operands operands);
absl::StatusOr<Literal> EvalControlFlow(Evaluator& evaluator,
                                        const HloInstruction& hlo,
                                        Operands operands);
absl::StatusOr<Literal> EvalCustomCall(Evaluator& evaluator,
                                       const HloInstruction& hlo,
                                       Operands operands);
absl::StatusOr<Literal> EvalHostTransfer(const HloInstruction& hlo);

// ------------------------------------- shared between the families' files

/// `value` converted to `type` with XLA's rules (used by convert and by
/// mixed-type ops such as dot with a preferred element type).
Literal ConvertLiteral(const Literal& value, PrimitiveType type);
/// reduce (reduce_tree.cc), for the reduction family (reduce.cc).
absl::StatusOr<Literal> EvalReduce(Evaluator& evaluator,
                                   const HloInstruction& hlo,
                                   Operands operands);
/// topk, also behind the TopK custom call.
absl::StatusOr<Literal> EvalTopK(const HloInstruction& hlo,
                                 const Literal& operand, int64_t k,
                                 bool largest);
/// scaled-dot (scaled_dot.cc), for the contraction family (dot_conv.cc).
absl::StatusOr<Literal> EvalScaledDot(const HloInstruction& hlo,
                                      Operands operands);
/// dot of two literals with `d`, operands converted to the result type.
absl::StatusOr<Literal> DotLiterals(const Literal& lhs, const Literal& rhs,
                                    const DotDimensionNumbers& d,
                                    const Shape& shape);
/// Batched Cholesky factor (the other triangle zero); `info`, when given,
/// gets LAPACK's per-matrix status (0, or the first non-PD minor).
Literal Cholesky(const Literal& a, bool lower, const Shape& shape,
                 std::vector<int64_t>* info);
/// Batched solve of op(a) x = b (left) or x op(a) = b.
Literal TriangularSolve(const Literal& a, const Literal& b, bool left,
                        bool lower, bool unit_diagonal,
                        TriangularSolveTranspose transpose, const Shape& shape);

/// The custom calls the global registry starts with.
void RegisterBuiltinCustomCalls(CustomCallRegistry& registry);
/// The block-scaled dot family (block_scaled.cc).
void RegisterBlockScaledCustomCalls(CustomCallRegistry& registry);
/// XLA:GPU's cuBLAS GEMM calls (gemm_calls.cc).
void RegisterGemmCustomCalls(CustomCallRegistry& registry);

/// Applies a reducer computation (add, max, argmax pairs, ...) to scalars:
/// fast native loops for the common single binary op, the interpreter
/// otherwise.
class Combiner {
 public:
  /// `arity` values are combined with `arity` others.
  Combiner(Evaluator& evaluator, const HloComputation& computation, int arity);
  /// accumulators[i] = f(accumulators..., values...) at element `a` of the
  /// accumulators and element `v` of the values.
  absl::Status Combine(absl::Span<Literal* const> accumulators, int64_t a,
                       absl::Span<const Literal* const> values, int64_t v);
  /// When the computation is a single binary elementwise op of its two
  /// parameters: that opcode (fast paths use it).
  std::optional<HloOpcode> binary_op() const { return binary_op_; }

 private:
  Evaluator& evaluator_;
  const HloComputation& computation_;
  int arity_;
  std::optional<HloOpcode> binary_op_;
  std::vector<Literal> scratch_;
};

/// One element of a literal as a scalar literal (and back).
Literal ScalarAt(const Literal& array, int64_t index);
void SetScalarAt(Literal& array, int64_t index, const Literal& scalar);

/// Binary elementwise op on two same-shaped literals (also used by the
/// combiner's fast path and collectives).
absl::StatusOr<Literal> BinaryElementwise(HloOpcode op, const Literal& a,
                                          const Literal& b);

}  // namespace xlite::eval

#endif  // XLITE_HLO_EVALUATOR_INTERNAL_H_
