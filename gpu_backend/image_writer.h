#ifndef XLITE_GPU_BACKEND_IMAGE_WRITER_H_
#define XLITE_GPU_BACKEND_IMAGE_WRITER_H_

// From an HLO module to a serialized GPU executable (runtime/gpu_image.h):
// compiled for NVPTX (PTX, and cubins when ptxas is found) and, unless
// told not to, for the emulator too so that the image carries the
// kernels' host LLVM IR. Both compilations must yield the same thunks.

#include "absl/status/statusor.h"
#include "gpu_backend/executable.h"
#include "gpu_backend/target_spec.h"
#include "hlo/ir/module.h"
#include "runtime/gpu_image.h"

namespace xlite::gpu {

struct GpuImageOptions {
  GpuTargetSpec spec;
  bool run_passes = true;
  /// Tiled GEMM fusions or cuBLASLt calls (GpuPipelineOptions).
  GemmBackend gemm_backend = GemmBackend::kAuto;
  /// Forces the tiling of tiled GEMM fusions (GpuPipelineOptions).
  std::optional<TiledGemmConfig> tiled_gemm_config;
  /// Paths measured on a device for --gemm-backend=auto; not owned.
  const GemmPathCache* gemm_path_cache = nullptr;
  /// NVPTX code (PTX, cubins); without it the image runs on the emulator
  /// only.
  bool nvptx = true;
  /// Assemble cubins with ptxas when it is found.
  bool cubins = true;
  /// Carry the emulator's LLVM IR.
  bool emulator_ir = true;
};

absl::StatusOr<runtime::GpuImage> CompileGpuImage(
    const HloModule& module, const GpuImageOptions& options);

/// The same from two copies of the module (one per compilation), for
/// callers that cannot Clone theirs; `for_emulator` may be null when the
/// options ask for no emulator IR.
absl::StatusOr<runtime::GpuImage> CompileGpuImage(
    std::unique_ptr<HloModule> for_nvptx,
    std::unique_ptr<HloModule> for_emulator, const GpuImageOptions& options);

/// The image parts of a compiled executable (shapes, allocations, result
/// slices, thunks, PTX/cubin, or the emulator IR for an emulator build).
absl::StatusOr<runtime::GpuImage> ImageFromExecutable(
    const GpuExecutable& executable, const GpuTargetSpec& spec);

}  // namespace xlite::gpu

#endif  // XLITE_GPU_BACKEND_IMAGE_WRITER_H_
