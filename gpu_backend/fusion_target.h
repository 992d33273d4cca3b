#ifndef XLITE_GPU_BACKEND_FUSION_TARGET_H_
#define XLITE_GPU_BACKEND_FUSION_TARGET_H_

// The figures the GPU fusion passes (passes/priority_fusion.h,
// passes/multi_output_fusion.h) read, taken from a target spec: what the
// GPU pipeline hands them.

#include "gpu_backend/target_spec.h"
#include "passes/gpu_fusion_target.h"

namespace xlite::gpu {

/// HBM bandwidth, SM count, shared memory per block and f32 peak from
/// `spec`; launch overhead and XLA's fusion limits keep their defaults.
/// Figures the spec lacks (0) keep the H100 defaults.
GpuFusionTarget FusionTargetFor(const GpuTargetSpec& spec);

}  // namespace xlite::gpu

#endif  // XLITE_GPU_BACKEND_FUSION_TARGET_H_
