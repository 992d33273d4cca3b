#ifndef XLITE_GPU_BACKEND_THUNK_COST_H_
#define XLITE_GPU_BACKEND_THUNK_COST_H_

// What one execution of a kernel or GEMM thunk costs, computed where the
// HLO is known (thunk emission) and carried by the thunk, so that a
// profile of a serialized executable needs no HLO. The model:
//   kernel  the cost model's bytes and FLOPs of its instruction
//           (hlo/analysis/cost_model.h: every operand and result array
//           once, slices and in-place updates only where they touch; one
//           FLOP per element-wise op per element, 2*M*N*K*batch per dot).
//           An instruction launched as several kernels (a scatter's,
//           select-and-scatter's or in-place dynamic-update-slice's
//           "<name>_init", then the kernel proper) charges the init launch
//           what it copies (read and written) or fills (written) and no
//           FLOPs, and the last launch the instruction's in-place cost.
//   GEMM    2*M*N*K*batch FLOPs (a complex multiply-add counts as one
//           pair, as the cost model's dots do); bytes: every operand and
//           every result leaf but the cuBLASLt workspace.
// The peak the FLOPs compare against (the key of GpuTargetSpec::peak_tflops):
// a GEMM thunk's operand type on tensor cores ("tf32" for f32 when the
// call's precision allows TF32); an emitted kernel runs on CUDA cores, so
// "f64" when it computes in f64 (or c128) and "f32" otherwise, except that
// a kernel holding a dot or convolution of narrow floats compares with
// that type's rate.

#include <cstdint>
#include <string>

#include "hlo/ir/instruction.h"
#include "runtime/block_scaled_dot.h"
#include "runtime/gemm_description.h"
#include "runtime/gpu_thunks.h"

namespace xlite::gpu {

/// The cost of the kernel computing `hlo` when it is its only (or last)
/// launch; `updates_in_place`: an earlier launch made the result a copy of
/// the operand it updates, so this one writes only the updates.
runtime::ThunkCost KernelThunkCost(const HloInstruction& hlo,
                                   bool updates_in_place);

/// The cost of a launch of `hlo` before its last: `bytes` copied or filled.
runtime::ThunkCost InitLaunchCost(const HloInstruction& hlo, int64_t bytes);

/// The cost of a GEMM thunk running `gemm`.
runtime::ThunkCost GemmThunkCost(const runtime::GemmDescription& gemm);

/// The cost of a block-scaled dot thunk: its operands and result read or
/// written once, 2 M N K per batch at the data type's tensor rate ("f8"
/// for MXFP8, "f4" for NVFP4).
runtime::ThunkCost BlockScaledDotThunkCost(
    const runtime::BlockScaledDotDescription& dot);

/// "fusion:kLoop:add" for a fusion, else the opcode ("reduce").
std::string KernelLabel(const HloInstruction& hlo);

}  // namespace xlite::gpu

#endif  // XLITE_GPU_BACKEND_THUNK_COST_H_
