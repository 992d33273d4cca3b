#ifndef XLITE_CPU_BACKEND_DENSE_ARRAYS_H_
#define XLITE_CPU_BACKEND_DENSE_ARRAYS_H_

// The arrays a contraction library call (xlite_cpu_matmul, xlite_cpu_conv)
// reads and writes: dense, with the logical dimensions in a physical order
// the call asks for, in the type it computes in. An array whose buffer
// already is that passes in place; any other goes through a scratch block
// (xlite_cpu_alloc): an operand is copied (and converted, e.g. f16 to f32)
// into it before the call, a result copied (and rounded) out of it by
// Finish(), which also frees every block. Internal to cpu_backend.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "codegen/ir_array.h"
#include "cpu_backend/emitter_context.h"
#include "llvm/IR/IRBuilder.h"

namespace xlite::cpu {

/// True when `shape` is stored densely with its dimensions in physical
/// order `major_to_minor` (a permutation of its dimensions, most major
/// first); dimensions of size 1 may sit anywhere.
bool IsDenseIn(const Shape& shape, absl::Span<const int64_t> major_to_minor);

/// `shape` with the layout whose physical order is `major_to_minor`.
Shape WithPhysicalOrder(const Shape& shape,
                        absl::Span<const int64_t> major_to_minor);

/// True when the buffer of `hlo`'s (array) result shares a byte with the
/// buffer of any of its array operands.
absl::StatusOr<bool> ResultOverlapsOperands(EmitterContext& ctx,
                                            const HloInstruction* hlo);

class DenseArrays {
 public:
  DenseArrays(EmitterContext& ctx, llvm::IRBuilderBase& b) : ctx_(ctx), b_(b) {}

  /// The address of `array`'s elements as `type`, dense in
  /// `major_to_minor` order.
  absl::StatusOr<llvm::Value*> Input(const codegen::IrArray& array,
                                     absl::Span<const int64_t> major_to_minor,
                                     PrimitiveType type);

  /// The address the call writes `array`'s elements to, as `type`, dense in
  /// `major_to_minor` order; a scratch block whenever `in_place` is false.
  llvm::Value* Output(const codegen::IrArray& array,
                      absl::Span<const int64_t> major_to_minor,
                      PrimitiveType type, bool in_place = true);

  /// Calls the runtime function `name` (int32 status), recording a failure
  /// in the run context.
  void Call(const char* name, const std::vector<llvm::Value*>& arguments);

  /// Copies scratch results into their buffers and frees every scratch.
  absl::Status Finish();

 private:
  codegen::IrArray Scratch(const Shape& shape,
                           absl::Span<const int64_t> major_to_minor,
                           PrimitiveType type);

  EmitterContext& ctx_;
  llvm::IRBuilderBase& b_;
  std::vector<llvm::Value*> blocks_;
  std::vector<std::pair<codegen::IrArray, codegen::IrArray>> copy_out_;
};

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_DENSE_ARRAYS_H_
