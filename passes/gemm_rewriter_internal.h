#ifndef XLITE_PASSES_GEMM_REWRITER_INTERNAL_H_
#define XLITE_PASSES_GEMM_REWRITER_INTERNAL_H_

// The GEMM rewriter's stages (gemm_rewriter.cc: dots to calls and the
// final result tuples; gemm_epilogue_fusion.cc: what folds into a call).
// Internal to passes/.

#include "absl/container/flat_hash_map.h"
#include "hlo/ir/gemm_config.h"
#include "hlo/ir/instruction.h"
#include "passes/gemm_rewriter.h"

namespace xlite::gemm_rewriter {

/// The calls made so far, with their configs (serialized at the end).
struct RewriteState {
  const GemmRewriterOptions* options = nullptr;
  absl::flat_hash_map<HloInstruction*, GemmBackendConfig> calls;
  bool IsCall(const HloInstruction* h) const {
    return calls.contains(const_cast<HloInstruction*>(h));
  }
  bool IsLtCall(const HloInstruction* h) const {
    return IsCall(h) && h->attrs().custom_call->target != kCublasGemmTarget;
  }
};

/// A copy of `call` with `operands` and `shape` (target, config and
/// attributes kept), registered in `state` with `config`.
HloInstruction* CloneCall(RewriteState& state, HloInstruction* call,
                          const Shape& shape,
                          const std::vector<HloInstruction*>& operands,
                          const GemmBackendConfig& config);

/// The operand's dimensions from most major to most minor.
std::vector<int64_t> MajorToMinor(const Shape& s);

/// The config of a call computing `dot` with dimension numbers `d`.
GemmBackendConfig ConfigFor(const HloInstruction* dot,
                            const DotDimensionNumbers& d);

/// gemm_rewriter_f8.cc: replaces `dot` by an `__cublas$lt$matmul$f8` call
/// when its operands dequantize f8 values and XLA would; false (nothing
/// changed) otherwise.
absl::StatusOr<bool> RewriteF8Dot(RewriteState& state, HloInstruction* dot);

/// gemm_rewriter_f8.cc: an f8 x f8 dot that did not become an f8 call
/// computes in f16 (bf16 for a bf16 result) instead, as XLA does; returns
/// the dot to rewrite further (`dot` itself unless its result was f8).
/// Tiny dots with an f16/bf16/f32 result stay f8 dots (XLA's emitters).
absl::StatusOr<HloInstruction*> UpcastF8Dot(
    HloInstruction* dot, const GemmRewriterOptions& options);

/// gemm_f8_output_fusion.cc: folds the output scaling, the saturating
/// convert to f8 and the amax at `h` into the f8 call it reads; true if it
/// replaced `h`.
absl::StatusOr<bool> FuseF8Output(RewriteState& state, HloInstruction* h);

/// gemm_f8_output_fusion.cc: the vector bias an f8 call with result type
/// `out` takes for `bias` (cuBLASLt takes no f32 bias beside f8 inputs: an
/// f32 bias converted from bf16/f16 passes its source); nullptr if none.
HloInstruction* F8VectorBias(const GemmBackendConfig& config,
                             HloInstruction* bias, PrimitiveType out);

/// Folds what may fold into the call at `h` (h uses a call); true if it
/// replaced `h` (which is then gone).
absl::StatusOr<bool> FuseEpilogue(RewriteState& state, HloInstruction* h);

}  // namespace xlite::gemm_rewriter

#endif  // XLITE_PASSES_GEMM_REWRITER_INTERNAL_H_
