#ifndef XLITE_CODEGEN_IR_ARRAY_H_
#define XLITE_CODEGEN_IR_ARRAY_H_

// An array in memory as generated code sees it: a base address and an HLO
// array shape whose layout says where each logical index lives. Every
// kernel reads and writes through this, so physical layouts such as {0,1}
// are indexed correctly everywhere.

#include <cstdint>

#include "hlo/ir/shape.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"

namespace xlite::codegen {

/// A logical multi-dimensional index: one i64 per dimension.
using Index = llvm::SmallVector<llvm::Value*, 6>;

/// The dimensions from most major to most minor in `shape`'s layout
/// (row-major when the shape has no layout).
llvm::SmallVector<int64_t, 6> MajorToMinor(const Shape& shape);

/// Strides in elements per logical dimension for `shape`'s layout.
llvm::SmallVector<int64_t, 6> PhysicalStrides(const Shape& shape);

class IrArray {
 public:
  IrArray(llvm::Value* base, const Shape& shape) : base_(base), shape_(shape) {}

  /// A view of `shape`'s elements laid out otherwise than its layout says
  /// (a copy of part of it, say): element `index` lives at `base` plus
  /// sum over d of (index[d] - origin[d]) * strides[d] elements. Only the
  /// indices the copy holds may be read.
  static IrArray View(llvm::Value* base, const Shape& shape,
                      llvm::SmallVector<int64_t, 6> strides, Index origin);

  llvm::Value* base() const { return base_; }
  const Shape& shape() const { return shape_; }

  /// The physical element offset (i64) of `index`.
  llvm::Value* EmitLinearOffset(llvm::IRBuilderBase& b,
                                const Index& index) const;
  llvm::Value* EmitAddress(llvm::IRBuilderBase& b, const Index& index) const;
  llvm::Value* EmitRead(llvm::IRBuilderBase& b, const Index& index) const;
  void EmitWrite(llvm::IRBuilderBase& b, const Index& index,
                 llvm::Value* value) const;

 private:
  llvm::Value* base_;
  Shape shape_;
  // A view's strides and origin (View); empty for the layout's strides.
  llvm::SmallVector<int64_t, 6> strides_;
  Index origin_;
};

/// The logical index of `shape` whose row-major (logical) linear number is
/// `linear` (an i64).
Index DelinearizeRowMajor(llvm::IRBuilderBase& b, llvm::Value* linear,
                          const Shape& shape);
/// The row-major (logical) linear number of `index` in `shape`.
llvm::Value* LinearizeRowMajor(llvm::IRBuilderBase& b, const Index& index,
                               const Shape& shape);

/// An integer scalar of `type` (an index operand) as i64: signed types
/// sign-extend, unsigned ones zero-extend, a u64 above INT64_MAX saturates
/// to INT64_MAX (out of bounds, as XLA's unsigned comparison has it).
llvm::Value* IndexToInt64(llvm::IRBuilderBase& b, PrimitiveType type,
                          llvm::Value* value);

/// `value` (i64) clamped to [lo, hi].
llvm::Value* ClampIndex(llvm::IRBuilderBase& b, llvm::Value* value, int64_t lo,
                        int64_t hi);

/// A stack slot in the current function's entry block, so that loops do
/// not grow the stack.
llvm::AllocaInst* EntryAlloca(llvm::IRBuilderBase& b, llvm::Type* type);

}  // namespace xlite::codegen

#endif  // XLITE_CODEGEN_IR_ARRAY_H_
