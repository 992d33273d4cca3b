#ifndef XLITE_PASSES_PRIORITY_FUSION_H_
#define XLITE_PASSES_PRIORITY_FUSION_H_

// priority-fusion: the GPU backend's producer-consumer fusion, decided as
// XLA:GPU decides it. In every computation the module runs as a sequence,
// producers wait in a priority queue ordered by the time fusing each into
// all of its users would save (gpu_kernel_model.h: a launch and the
// producer's write and re-reads saved, minus any recomputation the fused
// kernels pay for a producer read more than once per element). The best
// producer is fused into every user (each user becoming, or growing, a
// fusion), the neighbours' priorities are recomputed, and so on until no
// producer saves time. A producer is fused into all its users or none (so
// it disappears), bitcasts first, small constants last into every fusible
// user; the hard limits are gpu_fusion_rules.h's (no reduce into a reduce,
// a reduction keeps its reduction emitter, parameter and shared-memory
// budgets, nothing into or out of dots, custom calls, collectives, control
// flow, sort, or an in-place buffer). Fusions print as XLA prints them:
// kInput for reductions, tiled transposes and scatters, kLoop otherwise.
// Existing loop and input fusions take part; other fusions stay as they
// are.

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"
#include "passes/gpu_fusion_target.h"

namespace xlite {

absl::StatusOr<bool> RunPriorityFusion(HloModule& module,
                                       const GpuFusionTarget& target);

}  // namespace xlite

#endif  // XLITE_PASSES_PRIORITY_FUSION_H_
