#ifndef XLITE_PASSES_ALL_REDUCE_CODE_MOTION_SETUP_H_
#define XLITE_PASSES_ALL_REDUCE_CODE_MOTION_SETUP_H_

// The setup rewrites XLA runs before while-loop-all-reduce-code-motion
// (run_setup_passes): they bring a collective next to the add that
// accumulates it, so the main pass can move it.

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"

namespace xlite {

/// In loop bodies: transpose(convert?(reduce-scatter(x))) feeding an add
/// with a loop-state element becomes reduce-scatter(transpose(convert?(x)))
/// with the scatter dimension carried through the permutation.
absl::StatusOr<bool> ReorderReduceScatterTranspose(HloModule& module);

/// In loop bodies: add(convert(all-reduce(x)), get-tuple-element(param))
/// becomes add(all-reduce(convert(x)), ...) with the reduction in the
/// converted type (reduce-scatter too, with `enable_reduce_scatter`).
absl::StatusOr<bool> ReorderConvertCollectiveAdd(HloModule& module,
                                                 bool enable_reduce_scatter);

}  // namespace xlite

#endif  // XLITE_PASSES_ALL_REDUCE_CODE_MOTION_SETUP_H_
