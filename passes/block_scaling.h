#ifndef XLITE_PASSES_BLOCK_SCALING_H_
#define XLITE_PASSES_BLOCK_SCALING_H_

// block-scaling-rewriter and block-scaled-dot-global-scale-fusion
// (../shared/specs/block-scaling.md).

#include "absl/status/statusor.h"
#include "gpu_backend/target_spec.h"
#include "hlo/ir/module.h"

namespace xlite {

struct BlockScalingTarget {
  gpu::CudnnVersion cudnn;  // 0.0.0: no cuDNN
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
};

/// Rewrites __op$block_scaled_dot into a call of its expansion (dequantize,
/// dot, global-scale multiply) or, where cuDNN >= 9.10 on Blackwell and the
/// types allow, into __cudnn$blockScaledDot with padded, swizzled scales;
/// expands __op$dequantize and __op$quantize.
absl::StatusOr<bool> RunBlockScalingRewriter(HloModule& module,
                                             const BlockScalingTarget& target);

/// Expands one scaled-dot instruction as XLA's scaled-dot rewriter does
/// (each side convert(data) * blocked scale, the dot, the NVFP4 division by
/// the weight global scale): the rewriter's path without cuDNN, for
/// backends that compute the dot themselves.
absl::Status ExpandScaledDot(HloInstruction* scaled_dot);

/// Folds multiply(block_scaled_dot, broadcast(scalar)) into the call's
/// global-scale (5th) operand.
absl::StatusOr<bool> RunBlockScaledDotGlobalScaleFusion(HloModule& module);

}  // namespace xlite

#endif  // XLITE_PASSES_BLOCK_SCALING_H_
