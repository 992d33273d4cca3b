#ifndef XLITE_CPU_BACKEND_KERNEL_LOOP_PLAN_H_
#define XLITE_CPU_BACKEND_KERNEL_LOOP_PLAN_H_

// How an elemental kernel (elemental_kernel.cc) walks its result, decided
// at compile time from the HLO alone:
//
//  - in tiles (codegen/tiled_loops.h) when a large operand's memory runs
//    along another dimension of the result than the result's own (a
//    transpose, a layout-changing copy): the index maps from each fused
//    parameter to the result are followed through elementwise ops,
//    transposes, broadcasts, copies, slices and shape-preserving
//    reshapes;
//  - split into tasks over the cores when it is large: about 256 KiB of
//    memory traffic or 100 us of work per task (XLA:CPU's rule of thumb),
//    so small kernels stay inline with no dispatch at all.
//
// Neither changes what any result element is computed from, or how: only
// the order in which elements are visited, and by which thread.

#include <cstdint>
#include <optional>
#include <vector>

#include "codegen/tiled_loops.h"
#include "hlo/ir/instruction.h"
#include "hlo/ir/shape.h"

namespace xlite::cpu {

/// Memory traffic (operand and result bytes) per task of a split kernel.
inline constexpr int64_t kBytesPerTask = int64_t{256} << 10;
/// Element operations per task (about 100 us at one per nanosecond).
inline constexpr int64_t kElementOpsPerTask = int64_t{1} << 17;
/// Operands smaller than this are read whole from cache: no tiling.
inline constexpr int64_t kMinTiledOperandBytes = int64_t{64} << 10;
/// Tile side, elements.
inline constexpr int64_t kTileSize = 32;

/// For each dimension of a value, the result dimension its index follows
/// (-1: none, or not known).
using DimensionMap = std::vector<int64_t>;

/// How operand `k` of `h` follows the result, given how `h` does
/// (`to_out`); nullopt when the operand's elements are not read at (a
/// shift of) the result's index: through elementwise ops, transposes,
/// broadcasts, copies, slices, pads, reversals, concatenations and
/// reshapes or bitcasts that add, drop or relabel dimensions.
std::optional<DimensionMap> OperandMap(const HloInstruction* h, int64_t k,
                                       const DimensionMap& to_out);

/// The tiling of the loop nest that writes `values` (results of `kernel`:
/// its fused root, or leaves of a tuple root, or `kernel` itself when it
/// is not a fusion), all of dimensions `out`; none when every large
/// operand is read along `out`'s layout.
std::optional<codegen::Tiling> ChooseTiling(
    const HloInstruction* kernel,
    const std::vector<const HloInstruction*>& values, const Shape& out);

/// The most tasks `kernel` is worth splitting into (1: keep it whole),
/// by its memory traffic and work; 1 for kernels with side effects.
int64_t MaxTasks(const HloInstruction* kernel);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_KERNEL_LOOP_PLAN_H_
