#ifndef XLITE_PASSES_WHILE_LOOP_ALL_REDUCE_CODE_MOTION_H_
#define XLITE_PASSES_WHILE_LOOP_ALL_REDUCE_CODE_MOTION_H_

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"

namespace xlite {

struct AllReduceCodeMotionOptions {
  bool enable_reduce_scatter = false;
  bool run_setup_passes = false;
};

/// while-loop-all-reduce-code-motion (see the .cc and the spec).
absl::StatusOr<bool> RunWhileLoopAllReduceCodeMotion(
    HloModule& module, const AllReduceCodeMotionOptions& options);

}  // namespace xlite

#endif  // XLITE_PASSES_WHILE_LOOP_ALL_REDUCE_CODE_MOTION_H_
