#ifndef XLITE_CPU_BACKEND_STREAMING_STORES_H_
#define XLITE_CPU_BACKEND_STREAMING_STORES_H_

// Streaming (non-temporal) stores for large kernel results. A result much
// larger than the caches, written once and not read back by its kernel,
// costs three memory streams with ordinary stores: each line written is
// first read for ownership. Streaming stores skip that read. x86 needs
// them aligned to the vector (LLVM splits an unaligned one into scalar
// stores), so a kernel that streams is emitted twice: one version assumes
// its result starts 64-byte aligned and streams, the other stores as
// usual, and a dispatcher picks by the address at run time (results
// handed in by a caller, the C API's or an ahead-of-time library's, may
// be aligned less).
//
// LLVM's loop vectorizer will not widen a store marked non-temporal that
// is aligned only to its element, so the streaming version's stores are
// emitted plain and the version is marked (`kStreamingAttribute`, never
// inlined); after vectorization MarkStreamingStores turns its aligned
// vector stores to memory that is not on the stack into streaming ones.

#include <cstdint>
#include <optional>

#include "codegen/ir_array.h"
#include "codegen/tiled_loops.h"
#include "hlo/ir/shape.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/PassManager.h"

namespace xlite::cpu {

/// Results at least this large stream: well past the per-core caches, so
/// what the kernel writes is evicted before the next kernel reads it.
inline constexpr int64_t kStreamingResultBytes = int64_t{16} << 20;

/// The alignment the streaming version assumes of its result, in bytes.
inline constexpr int64_t kStreamingAlignment = 64;

/// True when `result` (an array, walked in its layout order, or in tiles
/// of `tiling`) is large enough to stream and every run of consecutive
/// stores starts a multiple of `kStreamingAlignment` bytes after an
/// aligned base: the rows along the innermost loop, and the tiles along
/// it, are multiples of it (or the walk's one loop is split in aligned
/// shares, AlignStreamingRange).
bool StreamsResult(const Shape& result,
                   const std::optional<codegen::Tiling>& tiling);

/// The function attribute of a streaming version.
inline constexpr char kStreamingAttribute[] = "xlite-streaming-stores";

/// Marks `f` a streaming version (its body not yet emitted).
void MarkStreamingVersion(llvm::Function& f);

/// In the streaming version: tells LLVM `out`'s base is aligned (so the
/// vectorized stores are).
void AssumeStreamingAlignment(llvm::IRBuilderBase& b,
                              const codegen::IrArray& out);

/// The streaming version's share of a split loop over `result` walked in
/// layout order: when that loop runs along the minor dimension itself (a
/// rank-1 result, say), each task's bounds move up to the next multiple of
/// `kStreamingAlignment` bytes (the last end stays the loop's), so every
/// task starts aligned; the tasks still cover the loop once.
codegen::SplitRange AlignStreamingRange(
    llvm::IRBuilderBase& b, const codegen::SplitRange& range,
    const Shape& result, const std::optional<codegen::Tiling>& tiling);

/// At the end of the streaming version: orders its stores before those
/// of whatever runs next (streaming stores are weakly ordered).
void EmitStreamingFence(llvm::IRBuilderBase& b);

/// Fills `dispatcher` (empty, with the signature of `streaming` and
/// `plain`) with a call of `streaming` when `result_base` (computed by
/// `base` in the dispatcher's entry) is aligned, else of `plain`.
void EmitAlignmentDispatch(llvm::IRBuilderBase& b, llvm::Function* dispatcher,
                           llvm::Value* result_base, llvm::Function* streaming,
                           llvm::Function* plain);

/// The pass (run after vectorization) that makes the aligned vector stores
/// of streaming versions non-temporal.
class MarkStreamingStores : public llvm::PassInfoMixin<MarkStreamingStores> {
 public:
  llvm::PreservedAnalyses run(llvm::Function& f,
                              llvm::FunctionAnalysisManager&);
};

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_STREAMING_STORES_H_
