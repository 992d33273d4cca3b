#ifndef XLITE_PASSES_GEMM_REWRITER_H_
#define XLITE_PASSES_GEMM_REWRITER_H_

// gemm-rewriter: dots become XLA:GPU's cuBLAS custom calls
// (hlo/ir/gemm_config.h), with the epilogue fusion XLA's GemmRewriter
// does. Guarantees:
//  - A dot becomes a call when XLA would rewrite it: one contracting
//    dimension, each side a (batch, rows, cols) matrix or a vector (not
//    both), no empty operand, a type pair cuBLAS supports (f16/bf16 -> same
//    or f32, f32, f64, c64, c128, s8 -> s32; f8 -> __cublas$lt$matmul$f8 on
//    compute capability >= 8.9), and not so small that XLA leaves it to its
//    emitters ((rows + cols) * k < 100). Every other dot stays a dot.
//  - Operands whose batch dimensions are not their most-major ones get a
//    transpose in front (cuBLAS reads each operand as batch x matrix).
//  - Folded into the call (cuBLASLt only, one user each, as XLA requires):
//    a scalar-constant multiply (alpha), an add of a vector broadcast over
//    the result's major dimensions (BIAS), an add of a full matrix (beta = 1
//    and operand c, aliased to the result when it may be overwritten), a
//    max with zero (RELU), the tanh GELU that jax.nn.gelu emits (GELU, or
//    GELU_AUX when the pre-activation has other users), and for f8 the
//    per-tensor scales convert(x) * broadcast(scale) (or / scale).
//  - Each call returns (d, [aux], s8 workspace), its users reading d
//    through get-tuple-element.

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"

namespace xlite {

struct GemmRewriterOptions {
  int compute_capability_major = 9;
  int compute_capability_minor = 0;
  /// XLA's --xla_gpu_enable_cublaslt: without it, plain __cublas$gemm
  /// calls and no epilogues but beta.
  bool cublaslt = true;
  /// XLA's --xla_gpu_gemm_rewrite_size_threshold.
  int64_t size_threshold = 100;
};

absl::StatusOr<bool> RunGemmRewriter(HloModule& module,
                                     const GemmRewriterOptions& options);

}  // namespace xlite

#endif  // XLITE_PASSES_GEMM_REWRITER_H_
