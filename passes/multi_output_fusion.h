#ifndef XLITE_PASSES_MULTI_OUTPUT_FUSION_H_
#define XLITE_PASSES_MULTI_OUTPUT_FUSION_H_

// multi_output_fusion: the GPU backend's multi-output fusion, run after
// priority-fusion, as XLA:GPU's GpuMultiOutputFusion does it.
//
// Producer-consumer: a loop producer that priority fusion left alone
// because it has other users too (a result of the program, say) is fused
// into a consumer with the same iteration space (a reduction over the
// producer's shape, or a loop of its shape) and becomes an extra result of
// that kernel; its other users read it from there.
//
// Siblings: two kernels that read the same array (not a scalar or a
// broadcast of one) and iterate over compatible spaces (two reductions of
// the same input shape and dimensions, loops of the same shape, a loop of a
// reduction's input shape) become one kernel with a tuple of results, so
// the shared array is read once.
//
// Never where one kernel reaches the other through other instructions (a
// cycle), past the operand/result limit or the shared-memory budget, nor
// for in-place roots (dynamic-update-slice, scatter) or lone bitcasts, nor
// where the cost model says the merged kernel is slower. Users read results
// through get-tuple-element.

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"
#include "passes/gpu_fusion_target.h"

namespace xlite {

absl::StatusOr<bool> RunGpuMultiOutputFusion(HloModule& module,
                                             const GpuFusionTarget& target);

}  // namespace xlite

#endif  // XLITE_PASSES_MULTI_OUTPUT_FUSION_H_
