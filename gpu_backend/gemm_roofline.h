#ifndef XLITE_GPU_BACKEND_GEMM_ROOFLINE_H_
#define XLITE_GPU_BACKEND_GEMM_ROOFLINE_H_

// The GEMM cost model --gemm-backend=auto compares its paths with
// (gpu_backend/gemm_backend_choice.h): rooflines, launch + max(bytes /
// HBM bandwidth, FLOPs / rate), where a GEMM's rate is its type's
// data-sheet peak times an efficiency, divided over the SMs as its output
// tiles fall on them (the SM given the most tiles decides; one with fewer
// than 8 warps resident runs below its peak). A tiled kernel's tiles are
// its tiling's; cuBLASLt's are the best of four common ones, with K split
// while tiles leave SMs idle. Operands are read once (tile re-reads hit
// the L2) and results written once.

#include "gpu_backend/target_spec.h"
#include "hlo/ir/instruction.h"
#include "hlo/ir/tiled_gemm_config.h"

namespace xlite::gpu {

/// The fraction of the data-sheet tensor (or, without tensor cores, f32)
/// peak each path reaches on `spec` in the model.
double LibraryGemmEfficiency(const GpuTargetSpec& spec);
double TiledGemmEfficiency(const GpuTargetSpec& spec,
                           const TiledGemmConfig& config);

/// Estimated seconds of one run of a tiled GEMM fusion with its tiling.
double TiledGemmSeconds(const HloInstruction& fusion,
                        const GpuTargetSpec& spec);

/// Estimated seconds of one run of a GEMM custom call a thunk runs.
double GemmCallSeconds(const HloInstruction& call, const GpuTargetSpec& spec);

}  // namespace xlite::gpu

#endif  // XLITE_GPU_BACKEND_GEMM_ROOFLINE_H_
