#ifndef XLITE_GPU_BACKEND_THUNK_EMITTER_H_
#define XLITE_GPU_BACKEND_THUNK_EMITTER_H_

// From an assigned module to its thunk sequence and the kernels it
// launches: instructions that only forward buffers (parameter, constant,
// tuple, get-tuple-element, bitcast, ...) run nothing; while and
// conditional become thunks over their computations' sequences, calls are
// inlined; everything else becomes one kernel (codegen/gpu) emitted into
// `kernels` with `target`. What no GPU kernel or thunk computes is refused
// with an error naming the instruction.

#include "absl/status/statusor.h"
#include "codegen/kernel_target.h"
#include "hlo/ir/module.h"
#include "llvm/IR/Module.h"
#include "runtime/buffer_assignment.h"
#include "runtime/gpu_thunks.h"

namespace xlite::gpu {

absl::StatusOr<runtime::ThunkSequence> EmitThunks(
    const HloModule& module, const runtime::BufferAssignment& assignment,
    codegen::KernelTarget& target, llvm::Module& kernels);

}  // namespace xlite::gpu

#endif  // XLITE_GPU_BACKEND_THUNK_EMITTER_H_
