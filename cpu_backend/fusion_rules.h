#ifndef XLITE_CPU_BACKEND_FUSION_RULES_H_
#define XLITE_CPU_BACKEND_FUSION_RULES_H_

// The per-instruction facts the CPU fusion pass decides with. They follow
// XLA:CPU's instruction fusion: which ops the elemental emitter fuses well,
// which are expensive enough that a fused copy must never be computed
// twice, and which consumers read an operand element more than once.

#include <cstdint>

#include "hlo/ir/instruction.h"

namespace xlite::cpu {

/// An op whose result element costs far more than a load: transcendental
/// math, division by a non-constant, reductions, gathers, contractions,
/// calls. A fused copy of one is never duplicated, nor fused into a
/// consumer that reads its elements more than once.
bool IsExpensive(const HloInstruction& hlo);

/// True when `hlo` may be fused into a consumer's loop (computed per
/// element of the consumer instead of materialized).
bool CanFuseAsProducer(const HloInstruction& hlo);

/// True when `hlo` may be the root of a fused loop kernel.
bool CanRootFusion(const HloInstruction& hlo);

/// True when computing one element of `consumer` may read an element of
/// its operand `operand_index` that another of its elements reads too
/// (broadcasts, contractions, overlapping windows, index operands).
bool ReusesOperand(const HloInstruction& consumer, int64_t operand_index);

/// True when an element of `consumer` reads operand `operand_index` at the
/// consumer's own index (same dimensions, no permutation): fused values
/// reached through such edges share one computation per element.
bool ReadsAtSameIndex(const HloInstruction& consumer, int64_t operand_index);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_FUSION_RULES_H_
