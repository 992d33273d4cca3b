#ifndef XLITE_HLO_EVALUATOR_REDUCE_WINDOW_SCAN_H_
#define XLITE_HLO_EVALUATOR_REDUCE_WINDOW_SCAN_H_

// Reduce-windows that XLA:CPU evaluates as blocked scans (README
// "Numerics"): its ReduceWindowRewriter (base length 16) turns a
// reduce-window whose single non-trivial window dimension spans the whole
// input (a cumulative sum, product, max, ... as jnp.cumsum lowers) into
// scans of 16-element blocks plus a scan of the block totals. In narrow
// floats every step rounds, so the evaluator follows the same order.

#include <vector>

#include "absl/status/statusor.h"
#include "hlo/evaluator/internal.h"

namespace xlite::eval {

/// When `hlo` (with `window`) is a reduce-window that XLA:CPU rewrites into
/// blocked scans, computes every element of `outs` (one per result) in
/// that order and returns true; returns false and leaves `outs` alone
/// otherwise.
absl::StatusOr<bool> EvalBlockedScanWindow(Combiner& combiner,
                                           const HloInstruction& hlo,
                                           const Window& window,
                                           Operands operands,
                                           std::vector<Literal>& outs);

}  // namespace xlite::eval

#endif  // XLITE_HLO_EVALUATOR_REDUCE_WINDOW_SCAN_H_
