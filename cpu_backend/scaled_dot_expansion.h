#ifndef XLITE_CPU_BACKEND_SCALED_DOT_EXPANSION_H_
#define XLITE_CPU_BACKEND_SCALED_DOT_EXPANSION_H_

// `scaled-dot` on the CPU: XLA's expansion (passes/block_scaling.h,
// ExpandScaledDot) into converts, the scales broadcast over their blocks,
// multiplies and a `dot`, all of which the CPU backend compiles. Each
// dequantized side is the evaluator's exactly (one rounding of an exact
// product in the dequantize type); the dot is the CPU backend's.

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"

namespace xlite::cpu {

absl::StatusOr<bool> ExpandScaledDots(HloModule& module);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_SCALED_DOT_EXPANSION_H_
