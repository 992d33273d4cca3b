#ifndef XLITE_CPU_BACKEND_FUSION_BUILDER_H_
#define XLITE_CPU_BACKEND_FUSION_BUILDER_H_

// Turns a set of instructions of one computation into a `fusion`
// instruction: a new fused computation holding copies of the members, one
// parameter per value the members read from outside the set, and a fusion
// instruction in the parent that computes what the root computed. The
// originals are left in place (the caller redirects the root's users and
// removes what became dead), so one instruction may be copied into several
// fusions.

#include "absl/types/span.h"
#include "hlo/ir/attributes.h"
#include "hlo/ir/computation.h"

namespace xlite::cpu {

/// `members` are instructions of `parent`, in an order where operands come
/// before their users; `root` is one of them and every other member is
/// (transitively) an operand of it. Returns the new fusion instruction,
/// added to `parent` (not yet used by anything).
HloInstruction* BuildFusion(HloComputation& parent,
                            absl::Span<HloInstruction* const> members,
                            HloInstruction* root, FusionKind kind);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_FUSION_BUILDER_H_
