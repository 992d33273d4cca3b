#ifndef XLITE_HLO_IR_TILED_GEMM_CONFIG_H_
#define XLITE_HLO_IR_TILED_GEMM_CONFIG_H_

// The mark of a tiled GEMM fusion, shared by the pass that forms it
// (passes/tiled_gemm_fusion.h) and the GPU kernel emitter that computes it
// (codegen/gpu/tiled_gemm_kernel.cc): a `fusion` of kind kCustom whose
// backend config is
//   {"fusion_backend_config":{"kind":"__xlite_tiled_gemm",
//    "block_m":64,"block_n":64,"block_k":16,"thread_m":4,"thread_n":4}}
// (plus "warps_m" and "warps_n" when the kernel uses tensor cores,
// "wgmma":1 when those are warpgroups, and "stages" when it is more than 1)
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
/// block_n tile of the result, stepping through K block_k at a time.
///  - On CUDA cores (warps_m == 0): each thread accumulates a thread_m x
///    thread_n register sub-tile, so a block has
///    (block_m / thread_m) * (block_n / thread_n) threads.
///  - On tensor cores (warps_m > 0): the block's warps_m x warps_n warps
///    each compute a (block_m / warps_m) x (block_n / warps_n) tile with
///    16x8 warp-wide multiply-accumulates (mma.sync); thread_m and
///    thread_n are unused.
///  - On Hopper's warpgroup tensor cores (wgmma == 1, sm_90a): warps_m x
///    warps_n are warpgroups of 4 warps (128 threads), each computing a
///    64 x (block_n / warps_n) tile (so block_m = 64 * warps_m) with
///    wgmma.mma_async, both operands read from shared memory.
/// With stages = 2 the tiles are double-buffered: the block computes the
/// next K step's tile elements into registers before it multiplies the
/// current one, stores them into the other buffer after, and meets one
/// barrier per step instead of two. With stages = 3 or 4 (tensor cores
/// with both operand tiles copied by cp.async; others run the two-stage
/// loop in their first two buffers) the copies run stages - 1 K steps
/// ahead of the multiply, one commit group per step.
struct TiledGemmConfig {
  int64_t block_m = 64;
  int64_t block_n = 64;
  int64_t block_k = 16;
  int64_t thread_m = 4;
  int64_t thread_n = 4;
  int64_t warps_m = 0;
  int64_t warps_n = 0;
  int64_t stages = 1;
  int64_t wgmma = 0;
  /// 1: the warpgroup pipeline's tiles arrive by TMA (cp.async.bulk.tensor
  /// from tensor maps, 128-byte swizzled, completing on mbarriers) where
  /// both operands allow it, else by cp.async; warpgroup tilings of 3 or 4
  /// stages only ("tma":1, " tma" after the stages).
  int64_t tma = 0;
  /// 1: warp-specialized TMA pipeline ("ws":1, " ws" after " tma"; TMA
  /// tilings only): one more warp, the producer, issues every K step's
  /// copies as soon as the consumers' "empty" mbarrier frees its stage,
  /// while the warpgroups (the consumers) only wait for "full" mbarriers
  /// and multiply, with no block barrier in the loop. The producer warp
  /// exists only when the kernel takes tensor maps (launch_threads).
  int64_t ws = 0;
  /// 1: Blackwell's tensor cores (tcgen05.mma, sm_100a; "tcgen05":1 with
  /// "wgmma":1, text "tcgen05 groups 1x1"): the warpgroup loop's tiles
  /// (core matrices, cp.async or TMA) multiplied 128 rows at a time by
  /// one thread's tcgen05.mma into tensor memory, which the block's one
  /// warpgroup reads out for the epilogue (tcgen05.ld). block_m = 128,
  /// one warpgroup (warps 1x1), block_n 16 to 256 in steps of 16; no ws.
  int64_t tcgen05 = 0;

  bool tensor_cores() const { return warps_m > 0; }
  bool warpgroups() const { return tensor_cores() && wgmma == 1; }
  /// Warpgroup tiles multiplied by tcgen05.mma (see tcgen05).
  bool blackwell_mma() const { return warpgroups() && tcgen05 == 1; }
  int64_t threads() const {
    if (!tensor_cores()) return (block_m / thread_m) * (block_n / thread_n);
    return warps_m * warps_n * (warpgroups() ? 128 : 32);
  }
  /// The block's threads with a producer warp (ws), when there is one.
  int64_t launch_threads(bool producer) const {
    return threads() + (producer && ws == 1 ? 32 : 0);
  }
  /// Sizes divide evenly (warp tiles into 16x8 pieces and block_k into
  /// 32, the largest K of an mma; warpgroup tiles into 64 rows and 8 to
  /// 256 columns, in steps of 8 up to 32 and of 16 past, the N every wgmma
  /// type allows), at least one thread, at most 1024, 1 to 4 stages.
  bool IsValid() const;
  /// "128x128x32 mma warps 2x2 stages 2", "64x64x16 simt threads 4x4",
  /// "128x128x64 wgmma groups 2x1 stages 4", "... stages 4 tma",
  /// "... stages 4 tma ws", "128x256x64 tcgen05 groups 1x1 stages 4 tma".
  std::string ToString() const;
  bool operator==(const TiledGemmConfig&) const = default;
};

/// The tiling ToString printed; nullopt for any other text or an invalid
/// tiling.
std::optional<TiledGemmConfig> ParseTiledGemmConfig(absl::string_view text);

/// What a dot's operands become on tensor cores (PTX mma.sync
/// m16n8kK.row.col): f16 or bf16 (K = 16; f8 operands convert exactly to
/// the other side's 16-bit type, or f16), tf32 (K = 8; f32 dots that allow
/// it, as XLA decides: algorithm unset or dot_tf32_tf32_f32 and every
/// operand precision DEFAULT), s8 (K = 32, s32 accumulators).
enum class TensorCoreInput { kF16, kBF16, kTF32, kS8 };

/// The tensor-core input of `dot`; nullopt when its types have none
/// (f64, complex, integers other than s8 x s8 -> s32, f16 x bf16, f32 at
/// HIGH or HIGHEST precision, ...).
std::optional<TensorCoreInput> TensorCoreInputOf(const HloInstruction& dot);

/// The K of one mma of `input`: 16, 16, 8, 32.
int64_t TensorCoreK(TensorCoreInput input);

/// The backend config marking a tiled GEMM fusion with `config`.
std::string TiledGemmBackendConfig(const TiledGemmConfig& config);

/// The backend config marking a tiled GEMM fusion whose tiling is still to
/// be chosen (by the GPU backend's heuristic; read as the defaults until
/// then).
std::string UntiledGemmBackendConfig();

/// Whether `hlo` is a fusion marked as a tiled GEMM.
bool IsTiledGemmFusion(const HloInstruction& hlo);

/// The tiling a marked fusion asks for (fields it omits keep their
/// defaults); nullopt for an unmarked instruction or an invalid tiling.
std::optional<TiledGemmConfig> TiledGemmConfigOf(const HloInstruction& hlo);

}  // namespace xlite

#endif  // XLITE_HLO_IR_TILED_GEMM_CONFIG_H_
