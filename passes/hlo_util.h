#ifndef XLITE_PASSES_HLO_UTIL_H_
#define XLITE_PASSES_HLO_UTIL_H_

// Small building blocks the rewrites share: making instructions with fresh
// names and layouts like their neighbours', replacing an instruction and
// dropping what died, recognizing constants.

#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/instruction.h"
#include "hlo/ir/literal.h"
#include "hlo/ir/module.h"

namespace xlite {

/// The evaluator's options for what a pass computes at compile time
/// (constant folding, a loop's trip): IEEE gradual underflow, as XLA
/// compiles, though the CPU code flushes denormals at run time (so XLA
/// folds 1e-20f * 1e-20f to a subnormal that its CPU code computes as 0).
inline EvaluatorOptions CompileTimeEvaluation() {
  EvaluatorOptions options;
  options.denormals = DenormalMode::kIeee;
  return options;
}

/// `shape` with a default layout if `like` carries layouts, else none.
Shape LayoutLike(Shape shape, const HloInstruction* like);

/// The array `shape` holding `type`, its layout kept but for a sub-byte
/// element size, which belonged to the old type.
Shape WithElementType(const Shape& shape, PrimitiveType type);

/// Adds a new instruction to `c` named after its opcode (module-unique).
HloInstruction* AddNew(HloComputation* c, HloOpcode opcode, const Shape& shape,
                       absl::Span<HloInstruction* const> operands);

/// A constant holding `literal` (its shape is the instruction's).
HloInstruction* AddConstant(HloComputation* c, Literal literal);
/// A scalar constant of `type` with `value` broadcast to `shape` (a bare
/// scalar constant when `shape` is a scalar).
HloInstruction* AddFilledLike(HloComputation* c, const Shape& shape,
                              double value, const HloInstruction* like);
/// `uniform`'s one value (UniformValue holds) broadcast to `shape`, bit
/// for bit: no trip through a double, which rounds 64-bit integers.
HloInstruction* AddFilledFrom(HloComputation* c, const Shape& shape,
                              const HloInstruction* uniform);
HloInstruction* AddBroadcast(HloComputation* c, HloInstruction* operand,
                             const Shape& shape,
                             std::vector<int64_t> dimensions);
HloInstruction* AddReshape(HloComputation* c, HloInstruction* operand,
                           const Shape& shape);

/// Makes every use of `old` (and the root, if it is) use `replacement`;
/// then removes `old` and any operands that died with it, unless they have
/// side effects. Shapes must be compatible.
/// With `always_remove`, `old` goes even if it has side effects (its work
/// now happens elsewhere, e.g. an inlined call). `old` may be freed: do not
/// touch it afterwards.
absl::Status ReplaceInstruction(HloInstruction* old,
                                HloInstruction* replacement,
                                bool always_remove = false);

/// Copies `replacement`'s result to `old`'s exact shape (layout included)
/// and replaces, so rewrites never change an instruction's printed type.
absl::Status ReplaceKeepingShape(HloInstruction* old,
                                 HloInstruction* replacement);

/// The value every element of `hlo` holds if it is a constant (or a
/// broadcast / reshape of one, or an iota of one element) whose elements
/// are all equal; real part only.
std::optional<double> UniformValue(const HloInstruction* hlo);
bool IsUniform(const HloInstruction* hlo, double value);

/// True if `hlo` is a constant (possibly under broadcast).
bool IsConstantLike(const HloInstruction* hlo);

/// Whether the instruction orders against others through control edges
/// (rewrites leave those alone: moving the edges could form cycles).
inline bool HasControlDeps(const HloInstruction* hlo) {
  return !hlo->control_predecessors().empty() ||
         !hlo->control_successors().empty();
}

/// Whether the instruction may be removed when nothing uses it.
bool IsRemovableWhenDead(const HloInstruction* hlo);

/// The instructions of `c` with `opcode`, in post order, collected before
/// a rewrite starts (rewrites may free other instructions of the order).
std::vector<HloInstruction*> InstructionsWithOpcode(const HloComputation* c,
                                                    HloOpcode opcode);

/// Every computation reachable from the entry, callers before callees.
std::vector<HloComputation*> ReachableComputations(const HloModule& module);

/// Computations called by fusion instructions (passes that XLA runs on
/// "non-fusion computations" skip these).
absl::flat_hash_set<const HloComputation*> FusionComputations(
    const HloModule& module);

/// Whether `hlo` or anything it calls has a side effect.
bool HasSideEffectDeep(const HloInstruction* hlo);

/// Whether two computations compute the same thing instruction by
/// instruction (names and metadata aside; called computations compared the
/// same way).
bool ComputationsEquivalent(const HloComputation& a, const HloComputation& b);

/// IdenticalIgnoringOperands plus equivalent called computations.
bool SameInstructionIgnoringOperands(const HloInstruction& a,
                                     const HloInstruction& b);

/// How many instructions call each computation.
absl::flat_hash_map<const HloComputation*, int64_t> CallerCounts(
    const HloModule& module);

/// Copies `callee`'s instructions into `into`, parameter i bound to
/// `args[i]` (control edges copied too); returns the copy of the root.
absl::StatusOr<HloInstruction*> InlineComputation(
    HloComputation* into, const HloComputation& callee,
    absl::Span<HloInstruction* const> args);

/// Copies `computation` into the module under a new name; `param_map`
/// (callees shared, not copied).
HloComputation* CloneComputation(HloModule& module,
                                 const HloComputation& computation,
                                 absl::string_view name);

}  // namespace xlite

#endif  // XLITE_PASSES_HLO_UTIL_H_
