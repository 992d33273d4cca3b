#ifndef XLITE_PASSES_PASSES_H_
#define XLITE_PASSES_PASSES_H_

// Entry points of the module passes (XLA's names in comments). The table in
// pass_table.cc wraps each in an HloPass; tests may call them directly.

#include <cstdint>

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"

namespace xlite {

/// dce: removes unused instructions without side effects (in every
/// computation) and, optionally, computations nothing calls.
absl::StatusOr<bool> RunDce(HloModule& module, bool remove_computations = true);

/// Removes the unused, side-effect-free instructions of one computation.
absl::StatusOr<bool> RemoveDeadInstructions(HloComputation* computation);

/// cse: merges identical instructions (commutative operands in either
/// order); never side-effecting ones or ones with control dependencies.
absl::StatusOr<bool> RunCse(HloModule& module, bool only_scalar_constants);

/// constant-folding: evaluates instructions whose operands are all
/// constants, up to `max_elements` result elements; never rng, side
/// effects, broadcasts/iotas (they would only grow), or while loops.
absl::StatusOr<bool> RunConstantFolding(HloModule& module,
                                        int64_t max_elements);

/// tuple-simplifier: gte(tuple(...), i) -> operand i;
/// tuple(gte(x,0),...,gte(x,n-1)) -> x.
absl::StatusOr<bool> RunTupleSimplifier(HloModule& module);

/// zero-sized-hlo-elimination: side-effect-free array instructions with no
/// elements become empty constants.
absl::StatusOr<bool> RunZeroSizedHloElimination(HloModule& module);

/// opt-barrier-expander: opt-barrier(x) -> x.
absl::StatusOr<bool> RunOptBarrierExpander(HloModule& module);

/// sort-simplifier: drops operands of a variadic sort whose results nobody
/// uses and whose values the comparator does not read.
absl::StatusOr<bool> RunSortSimplifier(HloModule& module);

/// call-inliner: inlines `call`s (not composite ones, nor ones marked
/// inlineable="false" in their frontend attributes).
absl::StatusOr<bool> RunCallInliner(HloModule& module);

/// flatten-call-graph: gives every call site of a computation (call,
/// while, conditional) its own copy, so each computation has one caller.
absl::StatusOr<bool> RunFlattenCallGraph(HloModule& module);

/// while-loop-simplifier: removes zero-trip loops, inlines one-trip loops
/// (trip count known from constant state), turns loop-invariant constant
/// elements into constants and removes dead tuple elements.
absl::StatusOr<bool> RunWhileLoopSimplifier(HloModule& module);

/// reshape-mover: moves equivalent reshapes/transposes on every
/// non-constant operand of an elementwise op past it.
absl::StatusOr<bool> RunReshapeMover(HloModule& module);

/// dot-decomposer: rewrites dots with several contracting or
/// non-contracting dimensions (or batch dimensions not leading) into
/// transposes and reshapes around a canonical [B.., M, K] x [B.., K, N] dot.
absl::StatusOr<bool> RunDotDecomposer(HloModule& module);

/// algsimp: the table-driven algebraic simplifier (algsimp_rules.cc).
absl::StatusOr<bool> RunAlgebraicSimplifier(HloModule& module);

}  // namespace xlite

#endif  // XLITE_PASSES_PASSES_H_
