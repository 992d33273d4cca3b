#ifndef XLITE_CPU_BACKEND_TILE_STAGING_H_
#define XLITE_CPU_BACKEND_TILE_STAGING_H_

// Transposed operands of a tiled kernel, copied tile by tile. In a tiled
// walk (kernel_loop_plan.h) an operand whose memory runs along the tile's
// other dimension is read down its columns: each vector of the result
// gathers one element from each of a tile's rows, and those rows, a
// power-of-two stride apart, share a handful of cache sets, so their lines
// are evicted before the tile's later columns come back to them (a
// 4096x4096 transpose-add ran at 42% of the copy bandwidth). Here each
// tile of such an operand is first copied to a buffer on the stack, row by
// row in its own memory order (whole lines, 8x8 blocks transposed in
// registers), laid out as the result walks it; the kernel's generator then
// reads the copy. The values read are the same; only where they are read
// from changes.

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "codegen/elemental.h"
#include "codegen/ir_array.h"
#include "codegen/tiled_loops.h"
#include "hlo/ir/instruction.h"
#include "llvm/IR/IRBuilder.h"

namespace xlite::cpu {

/// One fused parameter read across the tiles: at an index that is a
/// permutation of the result's (no shifts: no slices, pads, reversals).
struct StagedOperand {
  /// The fused parameter, and the kernel operand it is.
  const HloInstruction* parameter = nullptr;
  int64_t operand = -1;
  /// For each parameter dimension, the result dimension its index is
  /// (-1 only for dimensions of size 1).
  std::vector<int64_t> to_out;
  /// The parameter's dimensions along the tiling's minor and other ones.
  int64_t along_minor = -1;
  int64_t along_other = -1;
};

/// The operands of fusion `kernel` worth staging in `tiling` of result
/// `out`: large parameters read only at permuted indices, physically minor
/// along the tiling's other dimension, with 1-, 2-, 4- or 8-byte elements.
/// `values` are the results the loop nest writes (as for ChooseTiling).
std::vector<StagedOperand> PlanStaging(
    const HloInstruction* kernel,
    const std::vector<const HloInstruction*>& values,
    const codegen::Tiling& tiling, const Shape& out);

/// Tiles for a walk that stages operands: 64 elements along the staged
/// operands' rows (256 contiguous bytes of f32 each), 128 along the
/// result's (a 32 KiB copy of f32); at most the dimensions. A 4096x4096
/// f32 transpose-add: 16 ms with 32x32 tiles, 12 with these.
void WidenForStaging(codegen::Tiling& tiling, const Shape& out);

/// The tile hook that copies each staged operand's tile (read from
/// `sources`, the operands' arrays, in `staged` order) into a stack buffer
/// and binds its parameter in `emitter` to the copy. The caller binds the
/// parameters back to `sources` after the loop nest.
codegen::TileHook StagingHook(llvm::IRBuilderBase& b,
                              codegen::ElementalEmitter& emitter,
                              const std::vector<StagedOperand>& staged,
                              const std::vector<codegen::IrArray>& sources,
                              const codegen::Tiling& tiling);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_TILE_STAGING_H_
