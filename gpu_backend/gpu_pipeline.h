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
absl::Status RunGpuSimplification(HloModule& module, const GpuTargetSpec& spec);

struct GpuPipelineOptions {
  /// Priority fusion and multi-output fusion.
  bool fuse = true;
  /// Write every GEMM custom call back as a dot and its epilogue, run as
  /// emitted kernels. Off (the default): the calls a GEMM thunk runs stay
  /// (gpu_backend/gemm_thunks.h: cuBLASLt on a GPU, the reference GEMM on
  /// the emulator) and only the others are expanded.
  bool expand_gemm_calls = false;
  /// The workspace each __cudnn$blockScaledDot call gets where the
  /// block-scaling rewriter left it empty (u8[0]); 0 leaves it so. cuDNN's
  /// plan is made on the device, which compilation may not have: the
  /// runtime takes the first engine configuration that fits.
  int64_t cudnn_workspace_bytes = 0;
};

/// What runs between simplification and buffer assignment: the GEMM
/// rewriter (for the spec's compute capability), layout consistency across
/// while/conditional boundaries, priority fusion and multi-output fusion
/// with the spec's figures (FusionTargetFor), the expansion of the GEMM
/// calls no GEMM thunk runs, and the copies buffer assignment needs.
absl::Status PrepareForGpu(HloModule& module, const GpuTargetSpec& spec,
                           const GpuPipelineOptions& options = {});

}  // namespace xlite::gpu

#endif  // XLITE_GPU_BACKEND_GPU_PIPELINE_H_
