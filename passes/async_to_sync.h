#ifndef XLITE_PASSES_ASYNC_TO_SYNC_H_
#define XLITE_PASSES_ASYNC_TO_SYNC_H_

// One stream (the CPU backend, and the GPU backend, which has no async
// thunks yet): an async-start / async-update* / async-done
// chain becomes a `call` of the wrapped computation at the done (calls
// start-done pairs such as call-start/call-done are sugar for the same),
// copy-start / copy-done a `copy`, and the async collective pairs
// (all-reduce-, all-gather-, collective-permute-start / -done) the
// synchronous collective at the done, with the start's operands and
// attributes. Their results are what the done returned, so users see no
// difference.

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"

namespace xlite {

absl::StatusOr<bool> ConvertAsyncToSync(HloModule& module);

}  // namespace xlite

#endif  // XLITE_PASSES_ASYNC_TO_SYNC_H_
