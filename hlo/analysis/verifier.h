#ifndef XLITE_HLO_ANALYSIS_VERIFIER_H_
#define XLITE_HLO_ANALYSIS_VERIFIER_H_

#include "absl/status/status.h"
#include "hlo/ir/module.h"

namespace xlite {

/// Checks the invariants every pass and backend relies on, reporting the
/// first violation as `FILE:LINE:COL: error: %name: message` (the location of
/// the offending instruction as parsed; `FILE: error: ...` for instructions
/// created later):
///  - every instruction's shape equals the one inferred from its operands,
///    attributes and called computations (shape_inference.h), and is valid
///    (layouts are permutations, no negative dimensions);
///  - use/def lists and control dependencies are consistent, operands belong
///    to the same computation, the graph (with control edges) is acyclic;
///  - parameters are numbered 0..n-1, every computation has a root;
///  - called computations belong to the module and the call graph is acyclic;
///  - the entry computation layout and input/output aliasing fit the entry
///    computation; a scheduled module lists definitions before uses.
absl::Status VerifyModule(const HloModule& module);

}  // namespace xlite

#endif  // XLITE_HLO_ANALYSIS_VERIFIER_H_
