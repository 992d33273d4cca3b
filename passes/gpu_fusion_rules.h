#ifndef XLITE_PASSES_GPU_FUSION_RULES_H_
#define XLITE_PASSES_GPU_FUSION_RULES_H_

// Which GPU fusions are allowed at all, whatever the cost model says; XLA's
// hard limits (gpu_fusible, priority fusion's CanFuse) in xlite's words.
// A decision is a string: empty means yes, otherwise the reason for no.

#include <string>

#include "hlo/ir/instruction.h"
#include "passes/gpu_fusion_target.h"
#include "passes/gpu_kernel_model.h"

namespace xlite {

/// May be computed inside a GPU fusion: elementwise math, data movement
/// (broadcast, reshape, transpose, slice, pad, concatenate, gather,
/// dynamic-slice, iota, reverse), reductions, small constants, and
/// in-place roots (dynamic-update-slice, scatter); loop and input fusions.
/// Never: dots, convolutions, custom calls, collectives, control flow,
/// sort, rng, FFT, parameters, tuples, side effects, control dependencies.
bool IsGpuFusible(const HloInstruction& hlo);

/// True for what may be fused into its users: fusible, an array, not an
/// in-place root (dynamic-update-slice, scatter) and not the computation's
/// root. Constants only when they hold at most one element.
bool IsGpuFusibleProducer(const HloInstruction& hlo);

/// The limits one kernel must meet: operands plus results, shared memory,
/// fused instruction count.
std::string FitsGpuBudget(const KernelAnalysis& kernel,
                          const GpuFusionTarget& target);

/// Whether `producer` may be fused into its user `consumer`: both fusible;
/// the consumer is no lone bitcast; the producer feeds no in-place operand
/// of a dynamic-update-slice or scatter; not both hold a significant
/// reduce (no reduce into a reduce); a reduction stays a reduction (its
/// epilogue only takes intermediate ops); the fused kernel fits the
/// budget. `fused` receives the fused kernel's analysis when allowed.
std::string CanFuseOnGpu(const HloInstruction& producer,
                         const HloInstruction& consumer,
                         const GpuFusionTarget& target,
                         KernelAnalysis* fused = nullptr);

}  // namespace xlite

#endif  // XLITE_PASSES_GPU_FUSION_RULES_H_
