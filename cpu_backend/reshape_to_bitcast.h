#ifndef XLITE_CPU_BACKEND_RESHAPE_TO_BITCAST_H_
#define XLITE_CPU_BACKEND_RESHAPE_TO_BITCAST_H_

// Reshapes and transposes that do not move a byte become bitcasts: those
// whose result, read in its physical layout, lists the operand's elements
// in the order the operand's physical layout stores them (size-1
// dimensions aside). Buffer assignment gives a bitcast its operand's
// bytes, so no kernel runs and no buffer is allocated. XLA:CPU's layout-
// sensitive simplifier does the same.

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"

namespace xlite::cpu {

absl::StatusOr<bool> ReshapesToBitcasts(HloModule& module);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_RESHAPE_TO_BITCAST_H_
