#include "codegen/tiled_loops.h"

#include <string>
#include <vector>

#include "codegen/ir_array.h"

namespace xlite::codegen {
namespace {

// One loop of a tiled nest: over every index of `dim`, over the tiles of
// `dim`, or over the indices of `dim` in the current tile.
struct Loop {
  enum Kind { kWhole, kTiles, kInTile };
  Kind kind;
  int64_t dim;
};

int64_t Tiles(int64_t n, int64_t tile) { return (n + tile - 1) / tile; }

std::vector<Loop> Loops(const Shape& shape, const Tiling& tiling) {
  std::vector<Loop> loops;
  for (int64_t d : MajorToMinor(shape)) {
    if (d != tiling.minor && d != tiling.other) {
      loops.push_back({Loop::kWhole, d});
    }
  }
  loops.push_back({Loop::kTiles, tiling.other});
  loops.push_back({Loop::kTiles, tiling.minor});
  loops.push_back({Loop::kInTile, tiling.other});
  loops.push_back({Loop::kInTile, tiling.minor});
  return loops;
}

class TiledNest {
 public:
  TiledNest(llvm::IRBuilderBase& b, const Shape& shape, const Tiling& tiling,
            const IndexBody& body, const TileHook* on_tile)
      : b_(b),
        shape_(shape),
        tiling_(tiling),
        body_(body),
        on_tile_(on_tile),
        loops_(Loops(shape, tiling)),
        index_(shape.rank(), nullptr),
        tile_start_(shape.rank(), nullptr) {}

  absl::Status Emit(size_t depth, const SplitRange*& range) {
    if (depth == loops_.size()) return body_(index_);
    const Loop& loop = loops_[depth];
    const int64_t n = shape_.dimensions(loop.dim);
    const std::string name = "d" + std::to_string(loop.dim);
    auto next = [&] { return Emit(depth + 1, range); };
    switch (loop.kind) {
      case Loop::kWhole:
        if (n == 1) {
          index_[loop.dim] = b_.getInt64(0);
          return next();
        }
        return EmitSplittableLoop(b_, n, range, name, [&](llvm::Value* iv) {
          index_[loop.dim] = iv;
          return next();
        });
      case Loop::kTiles:
        if (Tiles(n, tiling_.Side(loop.dim)) == 1) {
          tile_start_[loop.dim] = b_.getInt64(0);
          return next();
        }
        return EmitSplittableLoop(b_, Tiles(n, tiling_.Side(loop.dim)), range,
                                  name + ".tiles", [&](llvm::Value* iv) {
                                    tile_start_[loop.dim] = b_.CreateMul(
                                        iv, b_.getInt64(tiling_.Side(loop.dim)),
                                        "", true, true);
                                    return next();
                                  });
      case Loop::kInTile:
        if (on_tile_ != nullptr && loop.dim == tiling_.other) {
          absl::Status status = CallHook();
          if (!status.ok()) return status;
        }
        return EmitForLoop(b_, tile_start_[loop.dim], TileEnd(loop.dim), name,
                           [&](llvm::Value* iv) {
                             index_[loop.dim] = iv;
                             return next();
                           });
    }
    return absl::OkStatus();
  }

 private:
  // The tile hook, given the tile's start and end.
  absl::Status CallHook() {
    Index start = index_;
    Index end(shape_.rank(), nullptr);
    for (int64_t d : {tiling_.other, tiling_.minor}) {
      start[d] = tile_start_[d];
      end[d] = TileEnd(d);
    }
    return (*on_tile_)(start, end);
  }

  // The end of the current tile of `dim`: its start plus the tile, or the
  // dimension's end in a narrower last tile.
  llvm::Value* TileEnd(int64_t dim) {
    const int64_t n = shape_.dimensions(dim);
    const int64_t side = tiling_.Side(dim);
    if (n <= side) return b_.getInt64(n);
    llvm::Value* end =
        b_.CreateAdd(tile_start_[dim], b_.getInt64(side), "", true, true);
    if (n % side == 0) return end;
    return b_.CreateSelect(b_.CreateICmpSLT(end, b_.getInt64(n)), end,
                           b_.getInt64(n));
  }

  llvm::IRBuilderBase& b_;
  const Shape& shape_;
  const Tiling& tiling_;
  const IndexBody& body_;
  const TileHook* on_tile_;
  std::vector<Loop> loops_;
  Index index_;
  Index tile_start_;
};

}  // namespace

absl::Status EmitTiledLoopNest(llvm::IRBuilderBase& b, const Shape& shape,
                               const Tiling& tiling, const IndexBody& body,
                               const SplitRange* range,
                               const TileHook* on_tile) {
  if (shape.ElementCount() == 0) return absl::OkStatus();
  TiledNest nest(b, shape, tiling, body, on_tile);
  return nest.Emit(0, range);
}

int64_t TiledSplitTripCount(const Shape& shape, const Tiling& tiling) {
  if (shape.ElementCount() == 0) return 1;
  for (const Loop& loop : Loops(shape, tiling)) {
    const int64_t n = shape.dimensions(loop.dim);
    if (loop.kind == Loop::kWhole && n > 1) return n;
    if (loop.kind == Loop::kTiles && Tiles(n, tiling.Side(loop.dim)) > 1) {
      return Tiles(n, tiling.Side(loop.dim));
    }
  }
  return 1;
}

}  // namespace xlite::codegen
