#ifndef XLITE_CPU_BACKEND_UNFUSE_NON_ELEMENTAL_H_
#define XLITE_CPU_BACKEND_UNFUSE_NON_ELEMENTAL_H_

// A fusion is one elemental kernel: every instruction of its computation
// must have an elemental form (codegen/elemental.h). Fusions from other
// compilers' dumps may hold instructions that have none (a sort, an rng, a
// custom call, a collective...) or return nested tuples; the evaluator runs
// any fused computation. This pass turns such a fusion into a `call` of its
// computation, which the
// CPU backend runs instruction by instruction, each with its own kernel or
// library call. It runs after RewriteReductionsAsTrees, so the reduces of
// the computation keep the sequential order XLA (and the evaluator) give
// reduces inside fusions. A scatter as the fusion's root, which the scatter
// kernel handles, stays fused.

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"

namespace xlite::cpu {

absl::StatusOr<bool> UnfuseNonElementalFusions(HloModule& module);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_UNFUSE_NON_ELEMENTAL_H_
