#ifndef XLITE_GPU_BACKEND_GEMM_THUNKS_H_
#define XLITE_GPU_BACKEND_GEMM_THUNKS_H_

// Which GEMM custom calls the GPU backend runs as GEMM thunks (cuBLASLt on
// a GPU, the reference GEMM on the emulator) and which it expands into a
// dot and its epilogue computed by emitted kernels: a call runs as a thunk
// when runtime::CheckGemmThunkSupport accepts its description.

#include "absl/status/statusor.h"
#include "hlo/ir/instruction.h"
#include "hlo/ir/module.h"
#include "runtime/gemm_description.h"

namespace xlite::gpu {

/// True for a cuBLAS / cuBLASLt GEMM custom call (by its target).
bool IsGemmCall(const HloInstruction& h);

/// The description of a GEMM custom call (shapes without a layout get the
/// default one, as kernels read them).
absl::StatusOr<runtime::GemmDescription> DescribeGemmCall(
    const HloInstruction& call);

/// True for a GEMM custom call a GEMM thunk runs.
bool RunsAsGemmThunk(const HloInstruction& call);

/// Expands (passes/gemm_call_expansion.h) every GEMM call no GEMM thunk
/// runs, each alone; the rest stay calls. True if any was expanded.
absl::StatusOr<bool> ExpandGemmCallsWithoutThunks(HloModule& module);

}  // namespace xlite::gpu

#endif  // XLITE_GPU_BACKEND_GEMM_THUNKS_H_
