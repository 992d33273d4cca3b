#ifndef XLITE_PASSES_TILED_GEMM_SPLIT_K_H_
#define XLITE_PASSES_TILED_GEMM_SPLIT_K_H_

// Split-K for tiled GEMMs, as an HLO rewrite (XLA's Triton split-K does
// the same): a dot whose output has too few tiles to fill the GPU but a
// long K becomes
//   partial = dot(reshape(pad(lhs)), reshape(pad(rhs)))   [S, batch.., M..,
//   N..] result  = convert(reduce(partial, 0, add), dot type)
// where the one contracting dimension of each side, padded with zeros to
// a multiple of S, is split into (S, K / S) and S is a new leading batch
// dimension. The partial sums are in the contraction's accumulation type
// (f32 for floats, s32 for s8), so the result differs from the unsplit
// dot only in the order of the f32 sums. The tiled GEMM fusion then
// computes the partial dot (its pad and reshapes fused as producers) and
// the reduction with the old dot's epilogue becomes an ordinary reduction
// fusion.

#include <cstdint>

#include "absl/status/statusor.h"
#include "hlo/ir/instruction.h"

namespace xlite {

/// Whether `dot` can be split: one contracting dimension on each side,
/// no control edges, an accumulation type of f32 or s32.
bool CanSplitK(const HloInstruction& dot);

/// Rewrites `dot` (CanSplitK) with `splits` >= 2 parts; returns the
/// partial dot. `dot` is gone afterwards.
absl::StatusOr<HloInstruction*> SplitK(HloInstruction* dot, int64_t splits);

}  // namespace xlite

#endif  // XLITE_PASSES_TILED_GEMM_SPLIT_K_H_
