#ifndef XLITE_CPU_BACKEND_INSTRUCTION_FUSION_H_
#define XLITE_CPU_BACKEND_INSTRUCTION_FUSION_H_

// The CPU backend's loop and reduction fusion. In every computation the
// module runs as a sequence (the entry, loop bodies and conditions,
// branches, called computations), producers the elemental emitter computes
// per element (elementwise math, broadcasts, reshapes, transposes, slices,
// pads, concatenates, iotas, gathers, dynamic slices, reductions and
// windows) are fused into the loops of their consumers, so their results
// are never written to memory. The roots of fused kernels are those ops
// plus in-place dynamic-update-slices.
//
// Decided as XLA:CPU decides: a producer fuses when every consumer can
// take it; a cheap producer may be copied into several consumers (and kept
// for the others); an expensive one (IsExpensive) is never copied, and
// never fused where its elements would be read more than once. Existing
// `fusion` instructions (from XLA-optimized modules) are left as they are.
// Values sharing one index inside a kernel are computed once per element
// (the elemental emitter memoizes them); a producer reached at more than
// a few distinct indices stays materialized, which bounds code size.

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"

namespace xlite::cpu {

absl::StatusOr<bool> FuseInstructions(HloModule& module);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_INSTRUCTION_FUSION_H_
