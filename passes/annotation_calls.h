#ifndef XLITE_PASSES_ANNOTATION_CALLS_H_
#define XLITE_PASSES_ANNOTATION_CALLS_H_

// Custom calls that compute nothing on one device: the sharding
// annotations (Sharding, SPMDFullToShardShape, SPMDShardToFullShape,
// xla.sdy.*) and the host-placement annotations (MoveToHost, MoveToDevice,
// annotate_device_placement) pass their operands through; AllocateBuffer
// gives an uninitialized buffer, zeros as the evaluator gives. Both
// backends accept exactly these targets (the CPU emits the copies itself,
// the GPU runs RemoveAnnotationCalls first).
//
//   custom-call(x), custom_call_target="Sharding"   -> copy(x)
//   custom-call(a, b) with a tuple result            -> tuple(copy(a), copy(b))
//   custom-call(), custom_call_target="AllocateBuffer" -> zeros
//
// A call whose result is shaped unlike its operands (a full-to-shard
// reshape that needs the SPMD partitioner) stays, and is refused.

#include <string>

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"

namespace xlite {

/// True for the annotation targets above (AllocateBuffer aside).
bool IsPassThroughTarget(const std::string& target);

/// Replaces every annotation call and AllocateBuffer that one device
/// computes by the copies or zeros above.
absl::StatusOr<bool> RemoveAnnotationCalls(HloModule& module);

}  // namespace xlite

#endif  // XLITE_PASSES_ANNOTATION_CALLS_H_
