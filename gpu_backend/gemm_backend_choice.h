#ifndef XLITE_GPU_BACKEND_GEMM_BACKEND_CHOICE_H_
#define XLITE_GPU_BACKEND_GEMM_BACKEND_CHOICE_H_

// --gemm-backend=auto: for each dot the tiled GEMM kernel computes, the
// cost model's choice between its two paths, taken before the GEMM
// rewriter runs.
//   - The dot's region is what tiled GEMM fusion would take with it (its
//     operand producers and elementwise epilogue, PlanTiledGemmFusion),
//     copied into a module of its own whose parameters are the values the
//     region reads.
//   - Library path: the region through the GEMM rewriter (what it folds
//     into the cuBLASLt call is the rewriter's decision, not a copy of it),
//     the expansion of calls no GEMM thunk runs, and priority fusion; the
//     cost is the GEMM call's plus every kernel's left around it (a
//     convert of an operand, an epilogue step cuBLASLt has no epilogue for).
//   - Tiled path: the region's dot split along K where the heuristic asks,
//     fused, tiled by the heuristic; the cost is the tiled kernel's plus
//     the split-K sum's.
// f32 dots on TF32 keep a library call a thunk runs (its numerics are
// cuBLASLt's, as in XLA). The tiled path is taken when it is estimated at
// least 10% faster. Times: gpu_backend/gemm_roofline.h. Efficiencies,
// until measured on a device (--gemm-path-cache replaces the choice
// itself): cuBLASLt 0.75 of the tensor peak on Hopper and newer (wgmma),
// 0.8 before; the tiled kernel's mma.sync 0.35 on Hopper and newer, whose
// data-sheet peak needs wgmma, 0.55 before; CUDA cores 0.5 of the f32
// peak. So a large plain GEMM stays with cuBLASLt, and a dot whose
// epilogue would be a kernel of its own over a result larger than its
// operands (short K) becomes a tiled fusion.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gpu_backend/gemm_path_cache.h"
#include "gpu_backend/gemm_roofline.h"
#include "gpu_backend/target_spec.h"
#include "hlo/ir/instruction.h"
#include "hlo/ir/module.h"
#include "hlo/ir/tiled_gemm_config.h"

namespace xlite::gpu {

/// A module computing `dot`'s region (see above): one parameter per value
/// read from outside it, the region's root as its root.
std::unique_ptr<HloModule> ExtractTiledGemmRegion(HloInstruction* dot);

/// The tiled path must be estimated this much faster to be taken: where
/// the two are about even the library call stays.
inline constexpr double kTiledMargin = 0.9;

struct GemmPathEstimate {
  /// False when the GEMM rewriter leaves the dot (too small for a library
  /// call, as XLA decides): it stays with the emitters as in XLA, whose
  /// numerics for it are those of plain f32 (no TF32), and nothing else is
  /// estimated.
  bool library_call = true;
  /// An f32 dot the tiled kernel would run on TF32 while a thunk runs the
  /// library call: it stays with the call, whose TF32 results are
  /// cuBLASLt's (and XLA's), not the tiled kernel's rounding and order.
  bool tf32_stays = false;
  double tiled_seconds = 0;    // infinite when no tiling fits
  double library_seconds = 0;  // infinite when no path is left
  /// The tiling the heuristic gave the region's fusion.
  std::optional<TiledGemmConfig> tiling;
  bool tiled() const {
    return library_call && !tf32_stays &&
           tiled_seconds < kTiledMargin * library_seconds;
  }
  /// "tiled 12.3us (64x128x32 ...) vs library 20.1us".
  std::string ToString() const;
};

/// Both paths' estimates for the tiled GEMM candidate `dot` on `spec`
/// (`forced`: the tiling every tiled fusion gets).
absl::StatusOr<GemmPathEstimate> EstimateGemmPaths(
    HloInstruction* dot, const GpuTargetSpec& spec,
    const std::optional<TiledGemmConfig>& forced = std::nullopt);

/// Makes `dot` (a tiled GEMM candidate) a tiled GEMM fusion, its K split
/// first where the heuristic asks (the sum over the parts stays outside);
/// returns the fusion.
absl::StatusOr<HloInstruction*> FuseTiledGemmDot(HloInstruction* dot,
                                                 const GpuTargetSpec& spec);

struct GemmPathOptions {
  /// The tiling every tiled fusion gets.
  std::optional<TiledGemmConfig> forced;
  /// Paths measured on a device (gpu_backend/gemm_path_cache.h): a region
  /// the cache names for the spec's name takes that path (and tiling)
  /// instead of the cost model's.
  const GemmPathCache* cache = nullptr;
  /// When set, gets a copy of each region with a choice (both paths
  /// exist) as it is decided: what --gemm-path-variants compiles.
  std::vector<std::unique_ptr<HloModule>>* regions = nullptr;
};

struct GemmPathStats {
  int64_t tiled = 0;        // dots made tiled GEMM fusions
  int64_t cached = 0;       // dots whose path the cache gave
  int64_t unestimated = 0;  // regions the estimate failed on (library kept)
  /// The measured tiling of each fusion the cache made, by fusion name:
  /// AssignTiledGemmConfigs tries it first (`preferred`).
  std::map<std::string, TiledGemmConfig> measured;
};

/// Makes every tiled GEMM candidate of the module's sequential
/// computations whose tiled path is faster a tiled GEMM fusion: by the
/// cache where it names the region and both paths exist (a dot the GEMM
/// rewriter leaves, or whose call no thunk runs, has no choice to
/// measure), else by the estimate. Each dot is decided in post order on
/// the module as the earlier decisions left it, so a region can depend on
/// them (two dots sharing an epilogue step): a cache measured on one
/// decision order may not name every region of another, which then keeps
/// the estimate's path; measuring again with the cache converges.
absl::StatusOr<GemmPathStats> FuseTiledGemmsByCost(
    HloModule& module, const GpuTargetSpec& spec,
    const GemmPathOptions& options = {});

}  // namespace xlite::gpu

#endif  // XLITE_GPU_BACKEND_GEMM_BACKEND_CHOICE_H_
