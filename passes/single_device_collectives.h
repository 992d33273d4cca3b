#ifndef XLITE_PASSES_SINGLE_DEVICE_COLLECTIVES_H_
#define XLITE_PASSES_SINGLE_DEVICE_COLLECTIVES_H_

// Work done by one participant. On a module with one replica and one
// partition every collective's group is device 0 alone, and XLA defines
// what a group of one computes:
//   all-reduce, collective-reduce, all-gather, reduce-scatter, all-to-all,
//   collective-broadcast            -> copies of their operands (a tuple of
//                                      copies for a tuple result)
//   collective-permute              -> a copy of its operand when a pair
//                                      targets device 0, else zeros
//   replica-id, partition-id        -> the u32 constant 0
// A backend without an exchange between devices (the GPU) runs this so
// that those instructions need no kernel. Instructions a single device
// cannot compute stay as they are (the backend refuses them, with the
// reason OneDeviceRefusal gives): collectives of a module with more
// devices, groups or pairs naming a device other than 0, results whose
// shape differs from their operand's (a gather or scatter over more
// participants than one), the in-place collective-permute, and
// ragged-all-to-all (which moves rows even within one device).

#include <string>

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"

namespace xlite {

/// Why `hlo` (a collective, replica-id or partition-id of `module`) needs
/// more than one device; empty when one device computes it.
std::string OneDeviceRefusal(const HloModule& module,
                             const HloInstruction& hlo);

/// Rewrites every collective and device id one device computes (above).
absl::StatusOr<bool> RewriteSingleDeviceCollectives(HloModule& module);

}  // namespace xlite

#endif  // XLITE_PASSES_SINGLE_DEVICE_COLLECTIVES_H_
