#ifndef XLITE_PASSES_MANUAL_SHARDING_H_
#define XLITE_PASSES_MANUAL_SHARDING_H_

// A module over several partitions whose entry only moves values into and
// out of manually partitioned bodies (jax's shard_map and, in jax 0.10,
// pmap) needs no SPMD partitioner: each partition's program is the body.
// This pass gives it per-partition shapes, as the partitioner would:
//
//   p = f32[4,2] parameter(0), sharding={devices=[4,1]<=[4]}
//   l = f32[1,2] custom-call(p), custom_call_target="xla.sdy.GlobalToLocalShape"
//   b = f32[1,2] call(l), to_apply=body
//   g = f32[4,2] custom-call(b), custom_call_target="xla.sdy.LocalToGlobalShape"
//   ROOT r = f32[4,2] custom-call(g), custom_call_target="xla.sdy.FuncResultSharding"
// becomes
//   p = f32[1,2] parameter(0)   (and the entry layout's)
//   b = f32[1,2] call(copy(p)), to_apply=body
//   ROOT r = f32[1,2] custom-call(copy(b)), ...FuncResultSharding
//
// (likewise SPMDFullToShardShape / SPMDShardToFullShape). Values whose
// shape changes may flow only through tuples, get-tuple-element, copies,
// annotation calls and reshapes that kept their shape; anything else that
// reads a global value needs the real partitioner and is refused, naming
// the instruction. A module without manual bodies is left alone;
// CheckNoSplitParameters then says whether it still needs partitioning.

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"

namespace xlite {

absl::StatusOr<bool> LocalizeManualSharding(HloModule& module);

/// An error naming an entry parameter that jax's lowering split across
/// partitions (a Shardy-annotated tiled sharding) and that no manual body
/// took: running the module needs the SPMD partitioner.
absl::Status CheckNoSplitParameters(const HloModule& module);

}  // namespace xlite

#endif  // XLITE_PASSES_MANUAL_SHARDING_H_
