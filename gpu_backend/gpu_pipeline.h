#ifndef XLITE_GPU_BACKEND_GPU_PIPELINE_H_
#define XLITE_GPU_BACKEND_GPU_PIPELINE_H_

// The GPU's HLO pipeline before buffer assignment.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "gpu_backend/gemm_path_cache.h"
#include "gpu_backend/target_spec.h"
#include "hlo/ir/module.h"
#include "hlo/ir/tiled_gemm_config.h"

namespace xlite::gpu {

/// The generic simplification pipeline of --platform=gpu (block-scaling
/// rewriter gated by the spec's compute capability and cuDNN: expanded
/// below Blackwell), run to a fixed point.
absl::Status RunGpuSimplification(HloModule& module, const GpuTargetSpec& spec);

/// Which path computes a dot (--gemm-backend).
enum class GemmBackend {
  /// Per dot the tiled kernel computes, the path the cost model estimates
  /// faster (gpu_backend/gemm_backend_choice.h): a tiled GEMM fusion with
  /// its producers and epilogue, or the GEMM rewriter's call (cuBLASLt on
  /// a GPU) with separate kernels for what it does not fold; calls no
  /// GEMM thunk runs (SiLU epilogues, s8 GEMMs) become tiled GEMM fusions
  /// too. Paths measured on a device (--gemm-path-cache) come first.
  kAuto,
  /// Every dot the tiled kernel computes becomes a tiled GEMM fusion
  /// (passes/tiled_gemm_fusion.h); the GEMM rewriter sees only the rest.
  kTiled,
  /// The GEMM rewriter's calls (cuBLASLt on a GPU), as before tiled GEMMs.
  kCublasLt,
};

/// "auto", "tiled", "cublaslt".
absl::string_view GemmBackendName(GemmBackend backend);
std::optional<GemmBackend> ParseGemmBackend(absl::string_view name);
/// Abseil flag support, so tools take `--gemm-backend=auto|tiled|cublaslt`.
bool AbslParseFlag(absl::string_view text, GemmBackend* backend,
                   std::string* error);
std::string AbslUnparseFlag(GemmBackend backend);

struct GpuPipelineOptions {
  /// Priority fusion and multi-output fusion.
  bool fuse = true;
  /// Write every GEMM custom call back as a dot and its epilogue, run as
  /// emitted kernels. Off (the default): the calls a GEMM thunk runs stay
  /// (gpu_backend/gemm_thunks.h: cuBLASLt on a GPU, the reference GEMM on
  /// the emulator) and only the others are expanded.
  bool expand_gemm_calls = false;
  /// Which dots become tiled GEMM fusions and which cuBLASLt calls.
  GemmBackend gemm_backend = GemmBackend::kAuto;
  /// The tiling of every tiled GEMM fusion the pipeline makes, instead of
  /// the heuristic's (gpu_backend/tiled_gemm_tiling.h): for tests and
  /// comparisons.
  std::optional<TiledGemmConfig> tiled_gemm_config;
  /// --gemm-path-cache: --gemm-backend=auto's paths measured on a device
  /// (gpu_backend/gemm_path_cache.h), used before the cost model; not
  /// owned.
  const GemmPathCache* gemm_path_cache = nullptr;
  /// When set, --gemm-backend=auto copies each dot's region here as it
  /// decides it (gpu_backend/gemm_backend_choice.h); not owned.
  std::vector<std::unique_ptr<HloModule>>* gemm_regions = nullptr;
  /// Tilings the heuristic must not give a fusion, by the fusion's name
  /// (those ptxas found spilling registers in an earlier compilation).
  std::map<std::string, std::vector<TiledGemmConfig>> tiled_gemm_spilled;
  /// The workspace each __cudnn$blockScaledDot call gets where the
  /// block-scaling rewriter left it empty (u8[0]); 0 leaves it so. cuDNN's
  /// plan is made on the device, which compilation may not have: the
  /// runtime takes the first engine configuration that fits.
  int64_t cudnn_workspace_bytes = 0;
};

/// What runs between simplification and buffer assignment: tiled GEMM
/// fusion and the GEMM rewriter (for the spec's compute capability) as
/// options.gemm_backend says, layout consistency across
/// while/conditional boundaries, priority fusion and multi-output fusion
/// with the spec's figures (FusionTargetFor), the expansion of the GEMM
/// calls no GEMM thunk runs, and the copies buffer assignment needs.
absl::Status PrepareForGpu(HloModule& module, const GpuTargetSpec& spec,
                           const GpuPipelineOptions& options = {});

}  // namespace xlite::gpu

#endif  // XLITE_GPU_BACKEND_GPU_PIPELINE_H_
