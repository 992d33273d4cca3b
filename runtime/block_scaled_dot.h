#ifndef XLITE_RUNTIME_BLOCK_SCALED_DOT_H_
#define XLITE_RUNTIME_BLOCK_SCALED_DOT_H_

// What a block-scaled dot thunk computes: one __cudnn$blockScaledDot call
// as the block-scaling rewriter emits it (../shared/specs/block-scaling.md)
// — lhs [B?,M,K] and rhs [B?,N,K] of narrow floats, their scales swizzled
// into 128x4 tiles ([B?,rows,K/block] with rows % 128 == 0 and K/block %
// 4 == 0, zero-padded by the rewriter), an optional scalar global scale,
// and the result tuple (out [B?,M,N], u8[workspace]). MXFP8 (f8e4m3fn or
// f8e5m2 data, f8e8m0fnu scales, blocks of 32; e5m2 x e5m2 excluded) or
// NVFP4 (f4e2m1fn data, f8e4m3fn scales, blocks of 16). The cuDNN graph
// (runtime/cuda/cudnn_block_scaled_dot.h) and the emulator's reference
// are built from it. Serialized in a .xlx as the shapes' text and checked
// again on reading.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/ir/shape.h"

namespace xlite::runtime {

struct BlockScaledDotDescription {
  /// lhs, rhs, lhs_scale, rhs_scale[, global_scale], with layouts.
  std::vector<Shape> operands;
  /// (out, u8[workspace]).
  Shape result;

  // Derived from the shapes.
  int64_t batch = 1;
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  /// Elements of K per scale.
  int64_t block_size = 0;
  /// Scale rows per batch (lhs: >= m, rhs: >= n) and scale columns.
  int64_t lhs_scale_rows = 0;
  int64_t rhs_scale_rows = 0;
  int64_t scale_k = 0;
  int64_t workspace_bytes = 0;

  bool has_global_scale() const { return operands.size() == 5; }
  const Shape& out() const { return result.tuple_shapes(0); }
  /// Slices a thunk of this call takes: operands, then out and workspace.
  int64_t ArgumentCount() const {
    return static_cast<int64_t>(operands.size()) + 2;
  }
};

/// Checks the shapes (counts, ranks, types, the pair, sizes, default
/// layouts, padding) and derives the sizes.
absl::StatusOr<BlockScaledDotDescription> DescribeBlockScaledDot(
    std::vector<Shape> operands, Shape result);

/// One line for thunk dumps: "MXFP8 f8e4m3fn[128,96] x f8e4m3fn[128,96]
/// blocks of 32 -> f16[128,128] workspace 0".
std::string BlockScaledDotToString(const BlockScaledDotDescription& dot);

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_BLOCK_SCALED_DOT_H_
