#ifndef XLITE_GPU_BACKEND_EMULATOR_REFERENCE_BLOCK_SCALED_DOT_H_
#define XLITE_GPU_BACKEND_EMULATOR_REFERENCE_BLOCK_SCALED_DOT_H_

// The emulator's block-scaled dot thunk: what the cuDNN graph computes on
// a GPU (dequantize both sides with their swizzled scales, matmul in f32,
// the global scale, the result type), done on the host by the evaluator's
// numerics for __cudnn$blockScaledDot (hlo/evaluator/block_scaled_call.h).

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "runtime/block_scaled_dot.h"

namespace xlite::gpu::emulator {

/// Reads the operands from `arguments` (one address per operand, then the
/// result's and the workspace's), computes the call and writes the result.
absl::Status RunReferenceBlockScaledDot(
    const runtime::BlockScaledDotDescription& dot,
    const std::vector<uint8_t*>& arguments);

}  // namespace xlite::gpu::emulator

#endif  // XLITE_GPU_BACKEND_EMULATOR_REFERENCE_BLOCK_SCALED_DOT_H_
