#ifndef XLITE_RUNTIME_GEMM_DESCRIPTION_H_
#define XLITE_RUNTIME_GEMM_DESCRIPTION_H_

// What a GEMM thunk computes: one XLA:GPU cuBLAS custom call
// (hlo/ir/gemm_config.h) taken out of the HLO — its target, its parsed
// backend config (alpha, beta, dot dimensions, epilogue, precision, amax),
// its operand and result shapes with their layouts, and where each part
// sits (GemmCallLayout). A thunk's arguments are one slice per operand in
// operand order, then one per result leaf: d, then the tuple's other
// elements (aux or amax, the workspace). Serialized in a .xlx as the
// target name, the config's JSON and the shapes' text, and re-checked on
// reading, so a runtime never trusts an unchecked description.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/ir/gemm_config.h"
#include "hlo/ir/shape.h"

namespace xlite::runtime {

struct GemmDescription {
  GemmTarget target = GemmTarget::kCublasLtMatmul;
  GemmBackendConfig config;
  /// a, b, then what the config adds (c, scales, bias), with layouts.
  std::vector<Shape> operands;
  /// d alone, or the tuple (d, [aux | amax], [workspace]).
  Shape result;
  GemmCallLayout layout;

  /// The result's array leaves in argument order (d first).
  std::vector<Shape> ResultLeaves() const;
  /// Slices a thunk of this GEMM takes: operands, then result leaves.
  int64_t ArgumentCount() const;
};

/// Parses `backend_config` and checks the shapes against it (operand
/// count, ranks, sizes, result tuple). Every shape must be an array (or the
/// result tuple of arrays) with a layout.
absl::StatusOr<GemmDescription> DescribeGemm(absl::string_view target,
                                             absl::string_view backend_config,
                                             std::vector<Shape> operands,
                                             Shape result);

/// Whether an f32 GEMM of `config` may run on TF32 tensor cores (XLA's
/// rule): when its algorithm asks for TF32, or is unset and no operand asks
/// for more than DEFAULT precision.
bool GemmAllowsTf32(const GemmBackendConfig& config);

/// One line for thunk dumps: "lt$matmul f32[2,3]{1,0} x f32[3,2]{1,0} ->
/// f32[2,2]{1,0} alpha=2 beta=1 epilogue=BIAS_RELU".
std::string GemmDescriptionToString(const GemmDescription& gemm);

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_GEMM_DESCRIPTION_H_
