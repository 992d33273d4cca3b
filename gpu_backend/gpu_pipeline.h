#ifndef XLITE_GPU_BACKEND_GPU_PIPELINE_H_
#define XLITE_GPU_BACKEND_GPU_PIPELINE_H_

// The GPU's HLO pipeline before buffer assignment.

#include "absl/status/status.h"
#include "gpu_backend/target_spec.h"
#include "hlo/ir/module.h"

namespace xlite::gpu {

/// The generic simplification pipeline of --platform=gpu (block-scaling
/// rewriter gated by the spec's compute capability and cuDNN: expanded
/// below Blackwell), run to a fixed point.
absl::Status RunGpuSimplification(HloModule& module,
                                  const GpuTargetSpec& spec);

/// What runs between simplification and buffer assignment: the GEMM
/// rewriter (a hook, run once it is registered), then with `fuse` priority
/// fusion and multi-output fusion with the spec's figures
/// (FusionTargetFor), layout consistency across while/conditional
/// boundaries, and the copies buffer assignment needs.
absl::Status PrepareForGpu(HloModule& module, const GpuTargetSpec& spec,
                           bool fuse = true);

}  // namespace xlite::gpu

#endif  // XLITE_GPU_BACKEND_GPU_PIPELINE_H_
