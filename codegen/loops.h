#ifndef XLITE_CODEGEN_LOOPS_H_
#define XLITE_CODEGEN_LOOPS_H_

// Counted loops in LLVM IR: one loop, and a nest over every index of an
// array shape, outermost loop on the most major dimension of the layout so
// writes walk memory in order.

#include <cstdint>
#include <functional>

#include "absl/status/status.h"
#include "codegen/ir_array.h"
#include "llvm/IR/IRBuilder.h"

namespace xlite::codegen {

using LoopBody = std::function<absl::Status(llvm::Value* induction_variable)>;

/// for (i = start; i < end; ++i) body(i), all i64. The builder is left
/// after the loop. With `unroll_fully`, the loop asks LLVM to unroll it
/// completely (llvm.loop.unroll.full; a constant trip count is needed).
absl::Status EmitForLoop(llvm::IRBuilderBase& b, llvm::Value* start,
                         llvm::Value* end, absl::string_view name,
                         const LoopBody& body, bool unroll_fully = false);

using IndexBody = std::function<absl::Status(const Index& index)>;

/// Restricts a nest to part of its work, so that several tasks can share
/// it: the nest's split loop (its outermost loop of more than one
/// iteration) runs iterations [begin, end) (i64 values) instead of all;
/// SplitTripCount-style functions say how many it has. A nest without
/// such a loop ignores the range: split only nests with a split loop.
struct SplitRange {
  llvm::Value* begin;
  llvm::Value* end;
};

/// The iterations of EmitLoopNest(shape)'s split loop (1: none).
int64_t SplitTripCount(const Shape& shape, const Shape* order_shape = nullptr);

/// Runs `body` for every logical index of `shape` (an array; a scalar runs
/// it once, a zero-element shape not at all), in the physical order of
/// `order_shape`'s layout (default: `shape`'s own); with `range`, only
/// the part of it that range selects.
absl::Status EmitLoopNest(llvm::IRBuilderBase& b, const Shape& shape,
                          const IndexBody& body,
                          const Shape* order_shape = nullptr,
                          const SplitRange* range = nullptr);

/// A loop nest over the dimension sizes `bounds` (row-major order).
absl::Status EmitLoopNestOverBounds(llvm::IRBuilderBase& b,
                                    absl::Span<const int64_t> bounds,
                                    const IndexBody& body,
                                    const SplitRange* range = nullptr);

using LanesBody =
    std::function<absl::Status(absl::Span<const Index> lanes, int64_t dim)>;

/// The most minor dimension of `shape`'s layout that is longer than 1; -1
/// when there is none.
int64_t LaneDimension(const Shape& shape);

/// Like EmitLoopNest, but dimension LaneDimension(shape) (which must
/// exist) is walked `width` indices at a time: `body` gets `width` lanes,
/// indices equal but in that dimension, `dim`, where lane k is lane 0 plus
/// k; a remainder of n % width indices gets one last, narrower group.
/// Its split loop is the outermost outer loop of more than one iteration,
/// or else the groups (the narrower one last).
absl::Status EmitLaneLoopNest(llvm::IRBuilderBase& b, const Shape& shape,
                              int64_t width, const LanesBody& body,
                              const SplitRange* range = nullptr);

/// The iterations of EmitLaneLoopNest(shape, width)'s split loop.
int64_t LaneSplitTripCount(const Shape& shape, int64_t width);

/// Emits for (i = 0; i < trip; ++i) body(i), or, when `range` is not null,
/// for i in [range->begin, range->end), and then clears `range`: the loop
/// a nest emits first with more than one iteration is its split loop.
absl::Status EmitSplittableLoop(llvm::IRBuilderBase& b, int64_t trip,
                                const SplitRange*& range,
                                absl::string_view name, const LoopBody& body);

}  // namespace xlite::codegen

#endif  // XLITE_CODEGEN_LOOPS_H_
