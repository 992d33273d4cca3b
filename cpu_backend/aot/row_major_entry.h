#ifndef XLITE_CPU_BACKEND_AOT_ROW_MAJOR_ENTRY_H_
#define XLITE_CPU_BACKEND_AOT_ROW_MAJOR_ENTRY_H_

// The rewrite that gives an ahead-of-time library its C interface's layout:
// every array the entry computation takes or returns becomes dense
// row-major, whatever layout the module gave it, as XLA's entry
// computation layout makes its caller's layout hold by copies at the
// boundary.
//
//   %p = f32[4,2]{0,1} parameter(0)  ->  %p = f32[4,2]{1,0} parameter(0)
//                                        %copy = f32[4,2]{0,1} copy(%p)
//                                        (the users of %p read %copy)
//   ROOT %t = (f32[4,2]{0,1}) tuple(%x)  ->  ROOT (f32[4,2]{1,0}) tuple of a
//                                           copy of each such leaf
//
// The entry computation layout in the module's config follows.

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"

namespace xlite::cpu {

/// Rewrites `module` as above; returns whether anything changed. Fails,
/// naming the parameter, on a tuple parameter with a leaf not stored
/// row-major.
absl::StatusOr<bool> MakeEntryRowMajor(HloModule& module);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_AOT_ROW_MAJOR_ENTRY_H_
