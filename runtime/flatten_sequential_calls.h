#ifndef XLITE_RUNTIME_FLATTEN_SEQUENTIAL_CALLS_H_
#define XLITE_RUNTIME_FLATTEN_SEQUENTIAL_CALLS_H_

// Gives every sequential computation (while body and condition,
// conditional branch, call callee) exactly one call site, cloning those
// that several whiles, conditionals or calls run, so each one's
// instructions get slices of their own.

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"

namespace xlite::runtime {

/// Returns whether anything was cloned. Computations reached from the
/// entry only; applied computations (fusion bodies, reducers) may stay
/// shared.
absl::StatusOr<bool> FlattenSequentialCalls(HloModule& module);

/// A deep copy of `computation` added to `module` under a fresh name
/// (instructions in the same order, control dependencies kept; called
/// computations shared).
HloComputation* CloneComputation(HloModule& module,
                                 const HloComputation& computation);

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_FLATTEN_SEQUENTIAL_CALLS_H_
