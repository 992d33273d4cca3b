#include "codegen/ir_array.h"

#include <limits>

#include "codegen/scalar_ops.h"
#include "llvm/IR/Function.h"

namespace xlite::codegen {

llvm::SmallVector<int64_t, 6> MajorToMinor(const Shape& shape) {
  llvm::SmallVector<int64_t, 6> order;
  if (shape.has_layout() &&
      static_cast<int64_t>(shape.layout().minor_to_major().size()) ==
          shape.rank()) {
    const auto& m2m = shape.layout().minor_to_major();
    for (auto it = m2m.rbegin(); it != m2m.rend(); ++it) order.push_back(*it);
  } else {
    for (int64_t d = 0; d < shape.rank(); ++d) order.push_back(d);
  }
  return order;
}

llvm::SmallVector<int64_t, 6> PhysicalStrides(const Shape& shape) {
  llvm::SmallVector<int64_t, 6> strides(shape.rank(), 1);
  int64_t stride = 1;
  const auto order = MajorToMinor(shape);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    strides[*it] = stride;
    stride *= shape.dimensions(*it);
  }
  return strides;
}

IrArray IrArray::View(llvm::Value* base, const Shape& shape,
                      llvm::SmallVector<int64_t, 6> strides, Index origin) {
  IrArray view(base, shape);
  view.strides_ = std::move(strides);
  view.origin_ = std::move(origin);
  return view;
}

llvm::Value* IrArray::EmitLinearOffset(llvm::IRBuilderBase& b,
                                       const Index& index) const {
  const bool view = !strides_.empty();
  const auto strides = view ? strides_ : PhysicalStrides(shape_);
  llvm::Value* offset = b.getInt64(0);
  for (int64_t d = 0; d < shape_.rank(); ++d) {
    if (shape_.dimensions(d) == 1 || strides[d] == 0) continue;
    llvm::Value* at = index[d];
    if (view && origin_[d] != nullptr) {
      at = b.CreateSub(at, origin_[d], "", /*HasNUW=*/true, /*HasNSW=*/true);
    }
    llvm::Value* term = strides[d] == 1
                            ? at
                            : b.CreateMul(at, b.getInt64(strides[d]), "",
                                          /*HasNUW=*/true, /*HasNSW=*/true);
    offset = b.CreateAdd(offset, term, "", true, true);
  }
  return offset;
}

llvm::Value* IrArray::EmitAddress(llvm::IRBuilderBase& b,
                                  const Index& index) const {
  const int64_t bytes = StorageBytes(shape_.element_type());
  return b.CreateInBoundsGEP(b.getInt8Ty(), base_,
                             b.CreateMul(EmitLinearOffset(b, index),
                                         b.getInt64(bytes), "", true, true));
}

llvm::Value* IrArray::EmitRead(llvm::IRBuilderBase& b,
                               const Index& index) const {
  return EmitLoadElement(b, shape_.element_type(), EmitAddress(b, index));
}

void IrArray::EmitWrite(llvm::IRBuilderBase& b, const Index& index,
                        llvm::Value* value) const {
  EmitStoreElement(b, shape_.element_type(), value, EmitAddress(b, index));
}

Index DelinearizeRowMajor(llvm::IRBuilderBase& b, llvm::Value* linear,
                          const Shape& shape) {
  Index index(shape.rank(), nullptr);
  for (int64_t d = shape.rank() - 1; d >= 0; --d) {
    const int64_t size = shape.dimensions(d);
    if (size == 1) {
      index[d] = b.getInt64(0);
      continue;
    }
    if (d == 0) {
      index[d] = linear;
      break;
    }
    index[d] = b.CreateURem(linear, b.getInt64(size));
    linear = b.CreateUDiv(linear, b.getInt64(size));
  }
  return index;
}

llvm::Value* LinearizeRowMajor(llvm::IRBuilderBase& b, const Index& index,
                               const Shape& shape) {
  llvm::Value* linear = b.getInt64(0);
  for (int64_t d = 0; d < shape.rank(); ++d) {
    linear = b.CreateAdd(
        b.CreateMul(linear, b.getInt64(shape.dimensions(d)), "", true, true),
        index[d], "", true, true);
  }
  return linear;
}

llvm::Value* IndexToInt64(llvm::IRBuilderBase& b, PrimitiveType type,
                          llvm::Value* value) {
  if (value->getType()->getIntegerBitWidth() == 64) {
    if (type != PrimitiveType::kU64) return value;
    // A u64 above INT64_MAX saturates: XLA compares it unsigned, so it is
    // past every bound (clamped to the last start, or a skipped window).
    return b.CreateSelect(b.CreateICmpSLT(value, b.getInt64(0)),
                          b.getInt64(std::numeric_limits<int64_t>::max()),
                          value);
  }
  return IsSignedInteger(type) ? b.CreateSExt(value, b.getInt64Ty())
                               : b.CreateZExt(value, b.getInt64Ty());
}

llvm::Value* ClampIndex(llvm::IRBuilderBase& b, llvm::Value* value, int64_t lo,
                        int64_t hi) {
  value = b.CreateSelect(b.CreateICmpSLT(value, b.getInt64(lo)), b.getInt64(lo),
                         value);
  return b.CreateSelect(b.CreateICmpSGT(value, b.getInt64(hi)), b.getInt64(hi),
                        value);
}

llvm::AllocaInst* EntryAlloca(llvm::IRBuilderBase& b, llvm::Type* type) {
  llvm::Function* f = b.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&f->getEntryBlock(),
                          f->getEntryBlock().getFirstInsertionPt());
  return entry.CreateAlloca(type);
}

}  // namespace xlite::codegen
