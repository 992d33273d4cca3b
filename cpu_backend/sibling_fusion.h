#ifndef XLITE_CPU_BACKEND_SIBLING_FUSION_H_
#define XLITE_CPU_BACKEND_SIBLING_FUSION_H_

// Multi-output fusion of sibling reductions: two reduction kernels of one
// sequential computation that read the same array, write results of the
// same dimensions, are read by the same instructions (so merging them holds
// no result longer) and do not depend on each other become one kernel with
// a tuple of results, so the shared array is read in one pass (mean and
// variance, max and sum). Users read the results through
// get-tuple-element. Loop kernels stay apart: their results are as large
// as their inputs, and one written over its operand in place (buffer
// assignment's elementwise rule) saves more than a shared read; nor does
// XLA:CPU merge them.

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"

namespace xlite::cpu {

absl::StatusOr<bool> FuseSiblings(HloModule& module);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_SIBLING_FUSION_H_
