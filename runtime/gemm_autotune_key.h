#ifndef XLITE_RUNTIME_GEMM_AUTOTUNE_KEY_H_
#define XLITE_RUNTIME_GEMM_AUTOTUNE_KEY_H_

// What an autotuning result is valid for: the device, the cuBLASLt and
// cuDNN builds on it, and the GEMM in a canonical spelling. Two GEMM
// calls that ask cuBLASLt the same question — same target, operand and
// result types, dimensions and layouts (so the same transposes and
// leading dimensions), dot dimensions, alpha, beta, epilogue, precision,
// amax and workspace size — spell the same, whatever their instruction
// names or the module they come from; anything that may change which
// algorithms work or how fast they run is part of the spelling.

#include <compare>
#include <string>

#include "runtime/gemm_description.h"

namespace xlite::runtime {

struct GemmAutotuneKey {
  /// The device: "NVIDIA H100 80GB HBM3 (sm_90)".
  std::string device;
  /// cublasLtGetVersion(), e.g. "130100".
  std::string cublaslt;
  /// cudnnGetVersion(), e.g. "91900"; "none" without cuDNN.
  std::string cudnn;
  /// CanonicalGemm() of the call.
  std::string gemm;

  auto operator<=>(const GemmAutotuneKey&) const = default;
};

/// The GEMM's canonical spelling (one line, no quotes):
/// "__cublas$lt$matmul f32[16,32]{1,0} x f32[32,8]{1,0} ->
/// (f32[16,8]{1,0}, s8[1024]{0}) contracting={1}x{0} batch={}x{}
/// alpha=1 beta=0 epilogue=BIAS_RELU precision={} algorithm=ALG_UNSET".
/// Doubles are printed exactly (17 significant digits), so two calls
/// share a spelling only when they compute the same thing.
std::string CanonicalGemm(const GemmDescription& gemm);

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_GEMM_AUTOTUNE_KEY_H_
