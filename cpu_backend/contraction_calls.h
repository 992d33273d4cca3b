#ifndef XLITE_CPU_BACKEND_CONTRACTION_CALLS_H_
#define XLITE_CPU_BACKEND_CONTRACTION_CALLS_H_

// Dots and convolutions as runtime library calls, for the instructions
// contraction_strategy.h sends there (the emitter asks DotUsesLibrary /
// ConvolutionUsesLibrary first). Internal to cpu_backend.

#include "absl/status/status.h"
#include "cpu_backend/emitter_context.h"
#include "llvm/IR/IRBuilder.h"

namespace xlite::cpu {

/// A dot (or a fusion that wraps one) as one xlite_cpu_matmul call over
/// [batch, m, k] x [batch, k, n] views of its operands.
absl::Status EmitDotLibraryCall(EmitterContext& ctx, llvm::IRBuilderBase& b,
                                const HloInstruction* hlo);

/// A convolution as one xlite_cpu_conv call over its operands in
/// [batch, spatial..., feature] / [spatial..., in, out] order.
absl::Status EmitConvolutionLibraryCall(EmitterContext& ctx,
                                        llvm::IRBuilderBase& b,
                                        const HloInstruction* hlo);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_CONTRACTION_CALLS_H_
