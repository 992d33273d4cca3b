#ifndef XLITE_CPU_BACKEND_TREE_REDUCTION_H_
#define XLITE_CPU_BACKEND_TREE_REDUCTION_H_

// XLA:CPU's reduction order (its tree reduction rewriter, which the
// evaluator reproduces): a single-output reduce outside fusions whose
// reduced dimensions are not all <= 32 long becomes a reduce-window with
// windows of min(size, 32) along the reduced dimensions (stride = window,
// SAME padding, the padding skipped) followed by the reduce of that, itself
// rewritten while a reduced dimension stays longer than 32. With reducers
// that round every step (bf16 sums), the order decides the result; with
// reassociable ones (maximum, integer sums from 0: hlo/ir/reducer.h) it does not,
// and those stay one reduce, which the emitters fold in vector strips.

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"

namespace xlite::cpu {

absl::StatusOr<bool> RewriteReductionsAsTrees(HloModule& module);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_TREE_REDUCTION_H_
