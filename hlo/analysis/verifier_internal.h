#ifndef XLITE_HLO_ANALYSIS_VERIFIER_INTERNAL_H_
#define XLITE_HLO_ANALYSIS_VERIFIER_INTERNAL_H_

// Per-family checks of the verifier (verifier_*.cc); not a public API. Each
// returns a message about one instruction without its location: the
// verifier adds `FILE:LINE:COL: error: %name: ` in front.

#include "absl/status/status.h"
#include "hlo/ir/module.h"

namespace xlite {
namespace verifier_internal {

// ---- verifier_collectives.cc
/// Replica groups against the group mode (channel_id,
/// use_global_device_ids) and the module's replica/partition counts;
/// collective-permute pairs and in-place offsets; ragged-all-to-all operands.
absl::Status CheckCollective(const HloInstruction& hlo,
                             const HloModuleConfig& config);

// ---- verifier_ops.cc
/// The attributes that restate part of the shape agree with it: a
/// constant's literal, a parameter's parameter_replication, a custom-call's
/// operand_layout_constraints. Checked before shape inference.
absl::Status CheckAttributesFitShape(const HloInstruction& hlo);
/// The rules below that `hlo`'s opcode family is subject to, in this order:
/// CheckCollective, CheckAsyncPairing, CheckCompareType, CheckRng,
/// CheckCompositeCall, CheckInfeed. Checked after shape inference.
absl::Status CheckFamilyRules(const HloInstruction& hlo,
                              bool in_async_computation,
                              const HloModuleConfig& config);
/// An async start has one done (through updates), a done has its start:
/// async-*, copy-*, all-reduce-*, collective-permute-*, send/recv (which
/// may stand alone as the root of an async computation).
absl::Status CheckAsyncPairing(const HloInstruction& hlo,
                               bool in_async_computation);
/// compare's type= fits its operands' element type.
absl::Status CheckCompareType(const HloInstruction& hlo);
/// rng takes two scalars of the result's element type, which the
/// distribution supports.
absl::Status CheckRng(const HloInstruction& hlo);
/// A composite call names itself in its frontend attributes.
absl::Status CheckCompositeCall(const HloInstruction& hlo);
/// The sharding fits the shape: tuple shardings have one element per leaf,
/// tiled ones as many data dimensions as the array has rank.
absl::Status CheckShardingFitsShape(const HloSharding& sharding,
                                    const Shape& shape);
/// infeed yields (data, token) from a token operand.
absl::Status CheckInfeed(const HloInstruction& hlo);

}  // namespace verifier_internal
}  // namespace xlite

#endif  // XLITE_HLO_ANALYSIS_VERIFIER_INTERNAL_H_
