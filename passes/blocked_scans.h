#ifndef XLITE_PASSES_BLOCKED_SCANS_H_
#define XLITE_PASSES_BLOCKED_SCANS_H_

// XLA's order for scan-like reduce-windows: its ReduceWindowRewriter at
// the default xla_reduce_window_rewrite_base_length, 16, which XLA:CPU and
// XLA:GPU both run, as both backends here do (the evaluator reproduces
// it: README "Numerics", hlo/evaluator/reduce_window_scan.h). A reduce-window whose one
// non-trivial window dimension is longer than 16 and spans the input with
// stride 1, no dilation and padding n-1 or n on one side (jnp.cumsum,
// reverse and exclusive scans; any reducer, in fusions too) becomes:
//   pad the input with the init value to a multiple of 16, reshape to
//   [blocks, 16], scan each block (a reduce-window of 16), take each
//   block's total, scan the totals exclusively (rewritten again past 16
//   blocks), combine each element's block scan with the total of the
//   blocks before it (after it, reversed) by mapping the reducer, reshape,
//   slice, and pad an exclusive scan's extra element with the init value.
// Narrow floats round at every step, so the order decides the bits.

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"

namespace xlite {

absl::StatusOr<bool> RewriteScansAsBlocks(HloModule& module);

}  // namespace xlite

#endif  // XLITE_PASSES_BLOCKED_SCANS_H_
