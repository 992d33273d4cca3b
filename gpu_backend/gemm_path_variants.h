#ifndef XLITE_GPU_BACKEND_GEMM_PATH_VARIANTS_H_
#define XLITE_GPU_BACKEND_GEMM_PATH_VARIANTS_H_

// Measuring --gemm-backend=auto's choice on a device (hlo-opt
// --gemm-path-variants=DIR): the compiler, which need not run where the
// GPU is, writes each dot region auto decides as executables of each
// path; a script on the device (tests/gpu/gemm_path_tune.py) times them,
// checks each result against the library path's and writes the fastest
// into a GEMM path cache (gpu_backend/gemm_path_cache.h) that later
// compilations read (--gemm-path-cache). Per distinct region:
//   DIR/<fingerprint>/region.hlo     the region module
//   DIR/<fingerprint>/in_<i>.npy     parameter i's input (seeded random;
//                                    not written past 4 MiB in all: the
//                                    script makes them on the device)
//   DIR/<fingerprint>/cublaslt.xlx   the library path (GEMM rewriter)
//   DIR/<fingerprint>/tiled_<i>.xlx  the tiled path with the heuristic's
//                                    i-th proposal (its first 4, then the
//                                    TMA and warp-specialized forms of
//                                    its 3-4-stage warpgroup pipelines
//                                    whose operands take tensor maps;
//                                    those that do not compile are
//                                    listed as comments with the reason)
//   DIR/<fingerprint>/paths.txt      "<file> <path>" per executable, the
//                                    path as the cache names it
// and DIR/gpu.txt holds the spec's name (the cache's gpu field).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gpu_backend/gemm_path_cache.h"
#include "gpu_backend/target_spec.h"
#include "hlo/ir/module.h"

namespace xlite::gpu {

/// The regions with a choice (both paths exist) --gemm-backend=auto
/// decides when `module` compiles for `spec` with `cache` (taken where the
/// pipeline decides them), one per fingerprint. Regions can depend on
/// earlier decisions (FuseTiledGemmsByCost): measure again with the cache
/// a measurement wrote until no new region appears.
absl::StatusOr<std::vector<std::unique_ptr<HloModule>>> CollectGemmRegions(
    const HloModule& module, const GpuTargetSpec& spec,
    const GemmPathCache* cache = nullptr);

/// Writes the variants of every region of `module` under `dir` (created):
/// for a CUDA device (`device`: PTX, and cubins where ptxas is found) or
/// for the emulator. A region whose library path does not compile gets a
/// paths.txt of one comment saying why. Returns the number of regions.
absl::StatusOr<int64_t> WriteGemmPathVariants(
    const HloModule& module, const GpuTargetSpec& spec, const std::string& dir,
    bool device = true, const GemmPathCache* cache = nullptr);

}  // namespace xlite::gpu

#endif  // XLITE_GPU_BACKEND_GEMM_PATH_VARIANTS_H_
