#ifndef XLITE_CPU_BACKEND_SIBLING_FUSION_H_
#define XLITE_CPU_BACKEND_SIBLING_FUSION_H_

// Multi-output fusion of siblings: two loop (or two reduction) kernels of
// one sequential computation that read the same array, write results of
// the same dimensions, are read together by some instruction (so merging
// them holds no result longer) and do not depend on each other become one
// kernel with a tuple of results, so the shared array is read in one pass. Users
// read the results through get-tuple-element. Kernels that update a buffer
// in place (dynamic-update-slice, scatter roots) stay alone.

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"

namespace xlite::cpu {

absl::StatusOr<bool> FuseSiblings(HloModule& module);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_SIBLING_FUSION_H_
