#ifndef XLITE_PASSES_FUSION_BUILDER_H_
#define XLITE_PASSES_FUSION_BUILDER_H_

// Backend-neutral construction of `fusion` instructions, for every fusion
// pass (the CPU backend's loop fusion and sibling fusion, the GPU's priority
// and multi-output fusion). A builder copies instructions of one
// computation into a new fused computation: one parameter per value read
// from outside the set (shared when several members read it), members that
// are themselves fusions inlined (their fused bodies copied, their
// parameters bound to what the fusion read). The new fusion instruction is
// added to the parent, not yet used by anything; the originals stay where
// they are: the caller redirects users and removes what became dead, so one
// instruction may be copied into several fusions.

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "hlo/ir/attributes.h"
#include "hlo/ir/computation.h"

namespace xlite {

/// `members` are instructions of `parent`, in an order where operands come
/// before their users; `root` is one of them and every other member is
/// (transitively) an operand of it. Returns the new fusion instruction,
/// added to `parent` (not yet used by anything).
HloInstruction* BuildFusion(HloComputation& parent,
                            absl::Span<HloInstruction* const> members,
                            HloInstruction* root, FusionKind kind);

/// One fusion computing `consumer` with `producer` (one of its operands)
/// computed inside. Either may be a fusion (inlined) or a plain
/// instruction. With `producer_as_output` the fusion is multi-output: a
/// tuple of the consumer's result leaves followed by the producer's result,
/// so other users of the producer can read it (producer-consumer
/// multi-output fusion).
HloInstruction* FuseProducerIntoConsumer(HloComputation& parent,
                                         HloInstruction* producer,
                                         HloInstruction* consumer,
                                         FusionKind kind,
                                         bool producer_as_output = false);

/// One multi-output fusion computing `a`'s result leaves, then `b`'s (a
/// tuple). Neither may depend on the other. Kind: `a`'s when it is a
/// fusion, else `kind`.
HloInstruction* MergeIntoMultiOutput(HloComputation& parent, HloInstruction* a,
                                     HloInstruction* b, FusionKind kind);

/// Number of result leaves of an instruction (1 for an array).
int64_t ResultLeafCount(const HloInstruction& hlo);

/// Points every user of `old` at leaves [first, first + leaves of `old`) of
/// the multi-output `merged`: get-tuple-elements of a tuple-shaped `old`
/// are renumbered, an array `old` is replaced by a new get-tuple-element.
/// Then removes `old` (its fused computation stays; see
/// RemoveUncalledFusionComputations).
absl::Status RedirectToMultiOutput(HloComputation& parent, HloInstruction* old,
                                   HloInstruction* merged, int64_t first);

/// The computations the module runs as instruction sequences, where fusion
/// passes work: the entry and, transitively, what while loops,
/// conditionals and calls run (never fused computations, reducers,
/// comparators or async-wrapped computations).
std::vector<HloComputation*> SequentialComputations(const HloModule& module);

/// Removes, among `candidates`, the computations nothing calls any more.
absl::Status RemoveUncalledComputations(
    HloModule& module, absl::Span<HloComputation* const> candidates);

}  // namespace xlite

#endif  // XLITE_PASSES_FUSION_BUILDER_H_
