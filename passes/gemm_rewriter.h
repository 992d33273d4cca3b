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
//    GELU_AUX when the pre-activation has other users).
//  - f8 (gemm_rewriter_f8.cc, compute capability >= 8.9): a matrix dot
//    whose operands are f8 values, plain or dequantized (convert, times or
//    divided by a broadcast scalar scale, then bitcast / broadcast / copy /
//    reshape / slice / transpose, which move onto the f8 value), becomes
//    __cublas$lt$matmul$f8(a, b, a_scale, b_scale, c_scale=1, d_scale=1)
//    when cuBLASLt takes the types (not e5m2 x e5m2; result bf16, f16, f32,
//    e4m3fn, or e5m2 for mixed inputs). Operands are made K-major by a
//    transpose and padded to multiples of 16 (the result sliced back).
//    Folded afterwards (gemm_f8_output_fusion.cc): a result scale (into
//    a_scale while that is 1), a clamp to the f8 range plus convert to f8
//    (f8 result, d_scale), max |result| beside it (damax_output), and BIAS
//    (bf16/f16 only) / RELU / GELU. An f8 x f8 dot that is not rewritten
//    computes in f16 (bf16 for a bf16 result) through the path above.
//  - Each call returns (d, [aux | amax], s8 workspace), its users reading d
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
