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
/// after the loop.
absl::Status EmitForLoop(llvm::IRBuilderBase& b, llvm::Value* start,
                         llvm::Value* end, absl::string_view name,
                         const LoopBody& body);

using IndexBody = std::function<absl::Status(const Index& index)>;

/// Runs `body` for every logical index of `shape` (an array; a scalar runs
/// it once, a zero-element shape not at all), in the physical order of
/// `order_shape`'s layout (default: `shape`'s own).
absl::Status EmitLoopNest(llvm::IRBuilderBase& b, const Shape& shape,
                          const IndexBody& body,
                          const Shape* order_shape = nullptr);

/// A loop nest over the dimension sizes `bounds` (row-major order).
absl::Status EmitLoopNestOverBounds(llvm::IRBuilderBase& b,
                                    absl::Span<const int64_t> bounds,
                                    const IndexBody& body);

using LanesBody =
    std::function<absl::Status(absl::Span<const Index> lanes, int64_t dim)>;

/// The most minor dimension of `shape`'s layout that is longer than 1; -1
/// when there is none.
int64_t LaneDimension(const Shape& shape);

/// Like EmitLoopNest, but dimension LaneDimension(shape) (which must
/// exist) is walked `width` indices at a time: `body` gets `width` lanes,
/// indices equal but in that dimension, `dim`, where lane k is lane 0 plus
/// k; a remainder of n % width indices gets one last, narrower group.
absl::Status EmitLaneLoopNest(llvm::IRBuilderBase& b, const Shape& shape,
                              int64_t width, const LanesBody& body);

}  // namespace xlite::codegen

#endif  // XLITE_CODEGEN_LOOPS_H_
