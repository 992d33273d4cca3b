#ifndef XLITE_CPU_BACKEND_LIBRARY_CALLS_H_
#define XLITE_CPU_BACKEND_LIBRARY_CALLS_H_

// The parts of EmitLibraryCall (library_calls.cc): dense views of the
// arrays a runtime library function reads and writes, and one emitter per
// family of instructions. Internal to cpu_backend.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "cpu_backend/emitter_context.h"
#include "llvm/IR/IRBuilder.h"

namespace xlite::cpu {

/// The dense order a runtime library function expects an array in.
enum class DenseOrder {
  kRowMajor,           // the default layout {r-1, ..., 0}
  kColumnMajorMatrix,  // each trailing matrix column-major: {r-2, r-1, r-3, ..., 0}
};

/// True when `shape`'s physical layout is `order`.
bool HasDenseOrder(const Shape& shape, DenseOrder order);

/// The addresses one library call passes for its operands and results, in
/// the current function. An array whose buffer is already in the requested
/// order is passed as it is; any other goes through a scratch block
/// (xlite_cpu_alloc): operands are copied into it before the call, results
/// copied out of it by Finish(), which also frees every block.
class LibraryCallArrays {
 public:
  LibraryCallArrays(EmitterContext& ctx, llvm::IRBuilderBase& b)
      : ctx_(ctx), b_(b) {}

  /// The address of leaf `index` of `hlo`, to read, in `order`.
  absl::StatusOr<llvm::Value*> Input(const HloInstruction* hlo,
                                     const ShapeIndex& index = {},
                                     DenseOrder order = DenseOrder::kRowMajor);

  /// The address the call writes leaf `index` of `hlo` to, in `order`.
  absl::StatusOr<llvm::Value*> Output(const HloInstruction* hlo,
                                      const ShapeIndex& index = {},
                                      DenseOrder order = DenseOrder::kRowMajor);

  /// Leaf `index` of `hlo` converted element by element to `type` (as
  /// convert does; exact where `type` holds every value, e.g. f64 for any
  /// real float), in a row-major scratch block.
  absl::StatusOr<llvm::Value*> InputAs(const HloInstruction* hlo,
                                       const ShapeIndex& index,
                                       PrimitiveType type);

  /// A row-major scratch block of `type` elements that Finish() converts
  /// (as convert does) into leaf `index` of `hlo`.
  absl::StatusOr<llvm::Value*> OutputAs(const HloInstruction* hlo,
                                        const ShapeIndex& index,
                                        PrimitiveType type);

  /// Calls the runtime function `name` (returning an int32 status; its
  /// parameter types are the arguments' types) and records a non-zero
  /// status in the run context, so that the run fails (the first failure
  /// is kept).
  void Call(const char* name, const std::vector<llvm::Value*>& arguments);

  /// Copies scratch results into their buffers and frees every scratch.
  absl::Status Finish();

 private:
  // A scratch block holding `shape` in `order`.
  codegen::IrArray Scratch(const Shape& shape, DenseOrder order);

  EmitterContext& ctx_;
  llvm::IRBuilderBase& b_;
  std::vector<llvm::Value*> blocks_;
  // (from, to) pairs Finish() copies, converting the element type.
  std::vector<std::pair<codegen::IrArray, codegen::IrArray>> copy_out_;
};

/// An i64 array of `values` on the current function's stack.
llvm::Value* EmitInt64Array(llvm::IRBuilderBase& b,
                            const std::vector<int64_t>& values);

/// The product of `shape`'s dimensions [from, to).
int64_t DimensionProduct(const Shape& shape, int64_t from, int64_t to);

// Families (one file each).
absl::Status EmitLinalgCall(EmitterContext& ctx, llvm::IRBuilderBase& b,
                            const HloInstruction* hlo);
absl::Status EmitFftCall(EmitterContext& ctx, llvm::IRBuilderBase& b,
                         const HloInstruction* hlo);
absl::Status EmitTopKCall(EmitterContext& ctx, llvm::IRBuilderBase& b,
                          const HloInstruction* hlo);
absl::Status EmitRngBitGeneratorCall(EmitterContext& ctx,
                                     llvm::IRBuilderBase& b,
                                     const HloInstruction* hlo);
/// __op$block_scaled_dot and __cudnn$blockScaledDot; __op$dequantize and
/// __op$quantize (block_scaled_calls.cc).
absl::Status EmitBlockScaledDotCall(EmitterContext& ctx, llvm::IRBuilderBase& b,
                                    const HloInstruction* hlo);
absl::Status EmitDequantizeCall(EmitterContext& ctx, llvm::IRBuilderBase& b,
                                const HloInstruction* hlo);
absl::Status EmitQuantizeCall(EmitterContext& ctx, llvm::IRBuilderBase& b,
                              const HloInstruction* hlo);
absl::Status EmitBatchNormCall(EmitterContext& ctx, llvm::IRBuilderBase& b,
                               const HloInstruction* hlo);
absl::Status EmitSelectAndScatterKernel(EmitterContext& ctx,
                                        llvm::IRBuilderBase& b,
                                        const HloInstruction* hlo);
/// Identity custom calls (sharding annotations, ...), AllocateBuffer, and
/// collectives of a one-device module: copies of their operands.
absl::Status EmitPassThrough(EmitterContext& ctx, llvm::IRBuilderBase& b,
                             const HloInstruction* hlo);

/// True for a linear-algebra custom-call target EmitLinalgCall handles.
bool IsLinalgTarget(const std::string& target);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_LIBRARY_CALLS_H_
