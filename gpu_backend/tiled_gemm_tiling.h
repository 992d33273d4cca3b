#ifndef XLITE_GPU_BACKEND_TILED_GEMM_TILING_H_
#define XLITE_GPU_BACKEND_TILED_GEMM_TILING_H_

// The tiling of each tiled GEMM fusion, chosen before any autotuning: the
// GEMM is classed by its shape and proposals follow, best first, and the
// first that fits the GPU is kept.
//   - Tensor cores (mma.sync) on compute capability 8.0 and up when the
//     dot has a tensor-core input (TensorCoreInputOf: f16, bf16, f8, s8,
//     f32 as tf32); CUDA cores otherwise. On sm_90a large GEMMs try
//     warpgroup tilings (wgmma) first, with 128 bytes of K per tile row
//     (block_k 64 of 16-bit types, 128 for dots of two f8 operands,
//     which wgmma multiplies as they are).
//   - Classes: skinny (M or N at most 16: decode steps, matrix-vector
//     products), small (M or N at most 64), large (M and N at least 128
//     and K at least 64), and medium for the rest. Skinny GEMMs take a
//     16-wide tile on the small side and the long K steps; large ones the
//     128x128 tile of 4 warps of 64x64. Tiles more than twice the GEMM
//     along M or N go last.
//   - Stages, per tiling, most first: where K takes more than one step,
//     double-buffered (stages = 2), then single. Medium and large
//     tensor-core GEMMs whose operand tiles both arrive by cp.async
//     (TiledGemmCopiesTilesAsync: each operand a parameter in the mma's
//     input type, K physically minor in whole 16-byte rows; not f32/TF32,
//     not an N-minor rhs or M-minor lhs) first try 4 and 3 stages, each
//     where K takes at least that many steps. Skinny and small GEMMs keep
//     at most 2 (no measurement yet says deeper pipelines repay them).
//   - Fit: the shared memory of the kernel's tiles, computed by the
//     kernel emitter's own layout (TiledGemmSharedBytes), at most the
//     spec's per-block limit (227 KiB on h100; 48 KiB for a spec without
//     one). Tiles up to 48 KiB are static shared arrays; past it they are
//     dynamic shared memory, which the CUDA launch opts in to
//     (cuFuncSetAttribute). A fusion no proposal fits is
//     RESOURCE_EXHAUSTED naming it and every proposal's bytes.
// Fusions whose backend config already names a tiling (block_m) keep it.
// Registers are only known to ptxas: GpuExecutable::Compile rules out a
// tiling ptxas finds spilling and compiles again.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "codegen/kernel_target.h"
#include "gpu_backend/target_spec.h"
#include "hlo/ir/module.h"
#include "hlo/ir/tiled_gemm_config.h"

namespace xlite::gpu {

/// The static shared memory one block may have without opting in.
inline constexpr int64_t kStaticSharedMemoryLimit =
    codegen::kMaxStaticSharedBytes;

/// The class of a GEMM of M x N x K ("skinny", "small", "medium",
/// "large").
const char* GemmShapeClass(int64_t m, int64_t n, int64_t k);

/// The proposals for `dot` on `spec`, best first.
std::vector<TiledGemmConfig> ProposeTiledGemmConfigs(const HloInstruction& dot,
                                                     const GpuTargetSpec& spec);

/// The number of parts to split `dot`'s K into (passes/tiled_gemm_split_k.h)
/// before it becomes a tiled GEMM fusion: doubled from 1 while the blocks
/// (output tiles of the first proposal times parts) doubled stay within
/// the spec's SM count and each part keeps at least 8 steps of the tile's
/// block_k and 512 of K; at most 16. 1: no split.
int64_t ChooseSplitK(const HloInstruction& dot, const GpuTargetSpec& spec);

/// Whether the kernel emitter runs `c` for `dot` on `spec` as asked: a
/// valid tiling; tensor cores only for a tensor-core input from compute
/// capability 8.0, with block_k a multiple of the mma's K; warpgroups
/// (wgmma) only on sm_90a; more than 2 stages only on tensor cores with
/// both tiles copied by cp.async.
bool TilingSuits(const HloInstruction& dot, const TiledGemmConfig& c,
                 const GpuTargetSpec& spec);

/// Gives every tiled GEMM fusion of `module` without a tiling the first
/// proposal that fits (or `forced`, checked the same way), skipping the
/// tilings `ruled_out` lists for it by name unless it would leave none.
/// A fusion `preferred` names (a tiling measured fastest on a device)
/// tries that tiling first when it suits the dot (TilingSuits), then the
/// proposals: a stale or foreign entry costs nothing but the measurement.
/// A warpgroup tiling (forced, or one a fusion already has) on a GPU
/// other than sm_90a is an error naming the fusion.
absl::Status AssignTiledGemmConfigs(
    HloModule& module, const GpuTargetSpec& spec,
    const std::optional<TiledGemmConfig>& forced = std::nullopt,
    const std::map<std::string, std::vector<TiledGemmConfig>>& ruled_out = {},
    const std::map<std::string, TiledGemmConfig>& preferred = {});

}  // namespace xlite::gpu

#endif  // XLITE_GPU_BACKEND_TILED_GEMM_TILING_H_
