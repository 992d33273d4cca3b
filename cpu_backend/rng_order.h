#ifndef XLITE_CPU_BACKEND_RNG_ORDER_H_
#define XLITE_CPU_BACKEND_RNG_ORDER_H_

// The random ops with run state (`rng`, which draws from the run's engine,
// and rng-get-and-update-state, which advances the run's counter) give
// values that depend on the order they run in. The evaluator runs each
// computation in post order; the CPU backend in its memory-aware schedule.
// This pass chains, in every computation, the instructions that draw (those
// ops, and the calls, loops, conditionals and fusions whose computations
// draw) with control dependencies in post order, so that the schedule runs
// them in the evaluator's order and a run gives the evaluator's values.

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"

namespace xlite::cpu {

absl::StatusOr<bool> OrderRandomOpsAsEvaluated(HloModule& module);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_RNG_ORDER_H_
