#ifndef XLITE_HLO_IR_TILED_GEMM_CONFIG_H_
#define XLITE_HLO_IR_TILED_GEMM_CONFIG_H_

// The mark of a tiled GEMM fusion, shared by the pass that forms it
// (passes/tiled_gemm_fusion.h) and the GPU kernel emitter that computes it
// (codegen/gpu/tiled_gemm_kernel.cc): a `fusion` of kind kCustom whose
// backend config is
//   {"fusion_backend_config":{"kind":"__xlite_tiled_gemm",
//    "block_m":64,"block_n":64,"block_k":16,"thread_m":4,"thread_n":4}}
// (XLA marks its Triton GEMM fusions the same way, with kind
// "__triton_gemm"), so the decision survives printing and parsing.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "hlo/ir/instruction.h"

namespace xlite {

inline constexpr absl::string_view kTiledGemmFusionKind = "__xlite_tiled_gemm";

/// The tiling of one tiled GEMM kernel: a block computes a block_m x
/// block_n tile of the result, stepping through K block_k at a time; each
/// thread accumulates a thread_m x thread_n register sub-tile, so a block
/// has (block_m / thread_m) * (block_n / thread_n) threads.
struct TiledGemmConfig {
  int64_t block_m = 64;
  int64_t block_n = 64;
  int64_t block_k = 16;
  int64_t thread_m = 4;
  int64_t thread_n = 4;

  int64_t threads() const {
    return (block_m / thread_m) * (block_n / thread_n);
  }
  /// Sizes divide evenly, at least one thread, at most 1024.
  bool IsValid() const;
  bool operator==(const TiledGemmConfig&) const = default;
};

/// The backend config marking a tiled GEMM fusion with `config`.
std::string TiledGemmBackendConfig(const TiledGemmConfig& config);

/// Whether `hlo` is a fusion marked as a tiled GEMM.
bool IsTiledGemmFusion(const HloInstruction& hlo);

/// The tiling a marked fusion asks for (fields it omits keep their
/// defaults); nullopt for an unmarked instruction or an invalid tiling.
std::optional<TiledGemmConfig> TiledGemmConfigOf(const HloInstruction& hlo);

}  // namespace xlite

#endif  // XLITE_HLO_IR_TILED_GEMM_CONFIG_H_
