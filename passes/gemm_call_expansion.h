#ifndef XLITE_PASSES_GEMM_CALL_EXPANSION_H_
#define XLITE_PASSES_GEMM_CALL_EXPANSION_H_

// gemm-call-expander: XLA:GPU's cuBLAS GEMM custom calls (`__cublas$gemm`,
// `__cublas$lt$matmul`, `__cublas$lt$matmul$f8`; hlo/ir/gemm_config.h)
// written back as HLO: a `dot` in the compute type, then one instruction
// per epilogue step (alpha, the scales, + beta*c, + broadcast bias, the
// activation, amax as a max-reduce of abs, d_scale, a saturating convert
// to f8), the workspace a zero broadcast. This is how a backend without
// cuBLAS (the CPU, the GPU emulator) runs a GPU module: its own dot and
// elementwise code then do the work. The steps are the evaluator's, in
// the same order and types, so results agree up to the activation's
// rounding (the evaluator computes GELU/SiLU in double).

#include "absl/status/statusor.h"
#include "hlo/ir/instruction.h"
#include "hlo/ir/module.h"

namespace xlite {

/// Replaces one GEMM call by its expansion. An error (naming the call)
/// when its backend config or shapes are malformed.
absl::Status ExpandGemmCall(HloInstruction* call);

/// Expands every GEMM call of the module; true if any.
absl::StatusOr<bool> RunGemmCallExpansion(HloModule& module);

}  // namespace xlite

#endif  // XLITE_PASSES_GEMM_CALL_EXPANSION_H_
