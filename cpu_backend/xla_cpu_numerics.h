#ifndef XLITE_CPU_BACKEND_XLA_CPU_NUMERICS_H_
#define XLITE_CPU_BACKEND_XLA_CPU_NUMERICS_H_

// The rewrites that decide where XLA:CPU rounds, in XLA:CPU's order, run
// before anything else rewrites the module:
//
//   1. dots and convolutions compute in the higher of their operand and
//      result types (passes/contraction_type_caster.h);
//   2. a convert to the type XLA:CPU computes a narrow type in reads the
//      value before its rounding (widening_converts.h: its float
//      normalization);
//   3. logistic in f16 and the types XLA:CPU computes in f16 becomes
//      1 / (1 + exp(-x)) in f16, each step rounded (logistic_expansion.h).
//
// XLA runs 1 before its float normalization and expands logistic after
// it: a dot(f32, f32) -> bf16 converted to f32 stays rounded, and an f8
// logistic converted to f16 is the f16 quotient. 2 must run once, so this
// must too: Compile, ahead-of-time libraries and hlo-opt --platform=cpu
// run it before the pipeline, and the differential fuzzing's interpreter
// reference runs it, so that it rounds where the backend does. The
// interpreter itself rounds every op as written.

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"

namespace xlite::cpu {

/// Applies 1, 2 and 3 (above) to the non-fusion computations; true if any
/// changed the module.
absl::StatusOr<bool> RewriteForXlaCpuNumerics(HloModule& module);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_XLA_CPU_NUMERICS_H_
