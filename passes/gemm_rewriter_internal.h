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

/// Folds what may fold into the call at `h` (h uses a call); true if it
/// replaced `h` (which is then gone).
absl::StatusOr<bool> FuseEpilogue(RewriteState& state, HloInstruction* h);

}  // namespace xlite::gemm_rewriter

#endif  // XLITE_PASSES_GEMM_REWRITER_INTERNAL_H_
