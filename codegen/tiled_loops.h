#ifndef XLITE_CODEGEN_TILED_LOOPS_H_
#define XLITE_CODEGEN_TILED_LOOPS_H_

// A loop nest that visits an array's indices in square tiles over two of
// its dimensions: when an operand is read with its memory running along a
// different dimension than the result's (a transpose, a layout-changing
// copy), a whole-row walk touches a new cache line (and soon a new page)
// per element read; a tile keeps both the writes and the reads within
// `tile` lines each.

#include <cstdint>
#include <functional>

#include "absl/status/status.h"
#include "codegen/loops.h"
#include "hlo/ir/shape.h"
#include "llvm/IR/IRBuilder.h"

namespace xlite::codegen {

/// Which two dimensions a tiled nest tiles, and how far.
struct Tiling {
  /// The result's most minor dimension (LaneDimension): the innermost,
  /// unit-stride loop.
  int64_t minor = -1;
  /// The dimension another array's memory runs along.
  int64_t other = -1;
  /// Elements per tile side along `other`.
  int64_t tile = 32;
  /// Elements per tile side along `minor` (0: `tile`).
  int64_t minor_tile = 0;

  int64_t Side(int64_t dim) const {
    return dim == minor && minor_tile > 0 ? minor_tile : tile;
  }
};

/// Called once per tile, before the loops within it, with the tile's
/// first index (the loops' current index in the untiled dimensions) and,
/// in the two tiled dimensions, its end (exclusive; null elsewhere).
using TileHook =
    std::function<absl::Status(const Index& start, const Index& end)>;

/// Runs `body` for every logical index of `shape`: loops over the other
/// dimensions (major to minor in `shape`'s layout), then over tiles of
/// `tiling.other`, tiles of `tiling.minor`, and within a tile over
/// `tiling.other` then `tiling.minor` (the last tiles of each may be
/// narrower). With `range`, only part of it (loops.h, SplitRange); with
/// `on_tile`, that runs at the start of every tile.
absl::Status EmitTiledLoopNest(llvm::IRBuilderBase& b, const Shape& shape,
                               const Tiling& tiling, const IndexBody& body,
                               const SplitRange* range = nullptr,
                               const TileHook* on_tile = nullptr);

/// The iterations of EmitTiledLoopNest(shape, tiling)'s split loop.
int64_t TiledSplitTripCount(const Shape& shape, const Tiling& tiling);

}  // namespace xlite::codegen

#endif  // XLITE_CODEGEN_TILED_LOOPS_H_
