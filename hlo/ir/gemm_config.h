#ifndef XLITE_HLO_IR_GEMM_CONFIG_H_
#define XLITE_HLO_IR_GEMM_CONFIG_H_

// The GEMM custom calls XLA:GPU emits (`__cublas$gemm`,
// `__cublas$lt$matmul`, `__cublas$lt$matmul$f8`) and their backend config
// (XLA's GpuBackendConfig proto, as JSON): read here once, so the
// evaluator, both backends and the GEMM rewriter agree on what a call
// means.
//
// A call computes, in its compute type (the result type; f32 for f8
// inputs):
//   x   = alpha * dot(a, b) [* a_scale * b_scale]          (f8: scales)
//   x  += beta * c [* c_scale]                              (beta != 0)
//   x  += broadcast(bias) over the leading result dims      (BIAS*)
//   aux = x                                                 (*_AUX)
//   x   = activation(x)        (RELU: max(x,0); GELU: tanh approximation;
//                               SILU: x * sigmoid(x))
//   amax = max |x|                                          (damax_output)
//   d   = convert(x [* d_scale]) to the result type (saturating for f8)
// Operands: a, b, [c when beta != 0], [f8: a_scale, b_scale, c_scale,
// d_scale — older dumps carry two or three], [bias when the epilogue adds
// one]. Result: d alone, or a tuple (d, [aux | amax], [s8 workspace]).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hlo/ir/attributes.h"
#include "hlo/ir/shape.h"

namespace xlite {

/// The three custom-call targets.
enum class GemmTarget { kCublasGemm, kCublasLtMatmul, kCublasLtMatmulF8 };
inline constexpr absl::string_view kCublasGemmTarget = "__cublas$gemm";
inline constexpr absl::string_view kCublasLtMatmulTarget = "__cublas$lt$matmul";
inline constexpr absl::string_view kCublasLtMatmulF8Target =
    "__cublas$lt$matmul$f8";

/// The target a custom-call name denotes; nullopt for any other call.
std::optional<GemmTarget> GemmTargetFromName(absl::string_view target);
absl::string_view GemmTargetName(GemmTarget target);

/// GemmBackendConfig.Epilogue (XLA's proto values; SILU ones are newer).
enum class GemmEpilogue {
  kDefault = 0,
  kBias = 1,
  kRelu = 2,
  kBiasRelu = 3,
  kGelu = 4,
  kGeluAux = 5,
  kBiasGelu = 6,
  kBiasGeluAux = 7,
  kSilu = 8,
  kBiasSilu = 9,
};
enum class GemmActivation { kNone, kRelu, kGelu, kSilu };

absl::string_view GemmEpilogueName(GemmEpilogue epilogue);  // "BIAS_RELU"
std::optional<GemmEpilogue> GemmEpilogueFromName(absl::string_view name);
bool EpilogueAddsBias(GemmEpilogue epilogue);
bool EpilogueHasAux(GemmEpilogue epilogue);
GemmActivation EpilogueActivation(GemmEpilogue epilogue);
/// The epilogue that adds a bias (or not) and applies `activation` (with
/// the pre-activation as an aux output or not); nullopt where cuBLASLt has
/// none (an aux output without GELU).
std::optional<GemmEpilogue> MakeEpilogue(bool bias, GemmActivation activation,
                                         bool aux);

/// GpuBackendConfig.gemm_backend_config, plus the one outer field kept.
/// Missing fields read as proto3 defaults (zero, false, empty).
struct GemmBackendConfig {
  int64_t operation_queue_id = 0;
  std::optional<int64_t> selected_algorithm;
  double alpha_real = 0;
  double alpha_imag = 0;
  double beta = 0;
  DotDimensionNumbers dnums;
  std::vector<std::string> operand_precision;  // "DEFAULT", "HIGHEST", ...
  std::string algorithm;                       // "ALG_UNSET" when empty
  GemmEpilogue epilogue = GemmEpilogue::kDefault;
  std::optional<int64_t> lhs_stride;
  std::optional<int64_t> rhs_stride;
  std::optional<bool> grad_x;
  std::optional<bool> grad_y;
  bool damax_output = false;
  bool is_fp8 = false;
};

/// Reads a backend config (pretty-printed JSON or one line; int64 values as
/// numbers or strings, enums as names or numbers, unknown keys ignored).
/// Errors name the key path, e.g.
/// "gemm_backend_config.dot_dimension_numbers.lhs_batch_dimensions[0]:
/// expected an integer".
absl::StatusOr<GemmBackendConfig> ParseGemmBackendConfig(
    absl::string_view json);

/// The config as XLA prints it (one line, int64 values as strings).
std::string GemmBackendConfigToJson(const GemmBackendConfig& config);

/// Where each part of a call sits: operand numbers (-1: absent) and result
/// tuple indices (-1: absent; `d` is -1 when the result is d itself).
struct GemmCallLayout {
  int64_t c = -1;
  int64_t a_scale = -1;
  int64_t b_scale = -1;
  int64_t c_scale = -1;
  int64_t d_scale = -1;
  int64_t bias = -1;
  int64_t d = -1;
  int64_t aux = -1;
  int64_t amax = -1;
  int64_t workspace = -1;
};

/// Checks a call's operands and result against its config (counts, ranks,
/// the result tuple's structure) and says where each part is.
absl::StatusOr<GemmCallLayout> GemmCallLayoutFor(
    GemmTarget target, const GemmBackendConfig& config,
    absl::Span<const Shape* const> operands, const Shape& result);

/// The shape of d (the result, or its element 0).
const Shape& GemmOutputShape(const Shape& result);

/// XLA's workspace sizes (s8 elements): 32 MiB from Hopper on, 4 MiB
/// before; a legacy `__cublas$gemm` takes at most its operands' bytes.
int64_t GemmWorkspaceBytes(GemmTarget target, int compute_capability_major,
                           int64_t operand_bytes);

}  // namespace xlite

#endif  // XLITE_HLO_IR_GEMM_CONFIG_H_
