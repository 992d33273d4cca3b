// LibraryCallArrays: runtime library functions take dense row-major (or
// per-matrix column-major) arrays; buffers may have any layout. An array
// already in the wanted order is passed in place, any other through a
// scratch block copied with the layout-aware loop nest.

#include <cstddef>

#include "codegen/ir_array.h"
#include "codegen/loops.h"
#include "codegen/scalar_ops.h"
#include "cpu_backend/library_calls.h"
#include "cpu_backend/module_emitter.h"

namespace xlite::cpu {

using codegen::IrArray;

namespace {

// `shape` (an array) with the layout of `order`.
Shape WithOrder(const Shape& shape, DenseOrder order) {
  const int64_t rank = shape.rank();
  std::vector<int64_t> minor_to_major;
  for (int64_t d = rank - 1; d >= 0; --d) minor_to_major.push_back(d);
  if (order == DenseOrder::kColumnMajorMatrix && rank >= 2) {
    std::swap(minor_to_major[0], minor_to_major[1]);
  }
  Shape out(shape.element_type(), shape.dimensions());
  out.set_layout(Layout(minor_to_major));
  return out;
}

}  // namespace

bool HasDenseOrder(const Shape& shape, DenseOrder order) {
  // Dimensions of size 1 have no stride that matters.
  const auto have = codegen::PhysicalStrides(shape);
  const auto want = codegen::PhysicalStrides(WithOrder(shape, order));
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (shape.dimensions(d) > 1 && have[d] != want[d]) return false;
  }
  return true;
}

llvm::Value* EmitInt64Array(llvm::IRBuilderBase& b,
                            const std::vector<int64_t>& values) {
  llvm::Function* f = b.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&f->getEntryBlock(),
                          f->getEntryBlock().getFirstInsertionPt());
  llvm::Value* array = entry.CreateAlloca(
      b.getInt64Ty(), b.getInt64(std::max<size_t>(values.size(), 1)));
  for (size_t i = 0; i < values.size(); ++i) {
    b.CreateStore(b.getInt64(values[i]),
                  b.CreateConstInBoundsGEP1_64(b.getInt64Ty(), array, i));
  }
  return array;
}

int64_t DimensionProduct(const Shape& shape, int64_t from, int64_t to) {
  int64_t product = 1;
  for (int64_t d = from; d < to; ++d) product *= shape.dimensions(d);
  return product;
}

IrArray LibraryCallArrays::Scratch(const Shape& shape, DenseOrder order) {
  const int64_t bytes =
      shape.ElementCount() * StorageBytes(shape.element_type());
  auto* type = llvm::FunctionType::get(b_.getPtrTy(), {b_.getInt64Ty()}, false);
  llvm::Value* block =
      b_.CreateCall(ctx_.Runtime("xlite_cpu_alloc", type), {b_.getInt64(bytes)});
  blocks_.push_back(block);
  return IrArray(block, WithOrder(shape, order));
}

absl::StatusOr<llvm::Value*> LibraryCallArrays::Input(const HloInstruction* hlo,
                                                      const ShapeIndex& index,
                                                      DenseOrder order) {
  absl::StatusOr<IrArray> array = ctx_.ArrayFor(b_, hlo, index);
  if (!array.ok()) return array.status();
  if (HasDenseOrder(array->shape(), order)) return array->base();
  IrArray scratch = Scratch(array->shape(), order);
  if (absl::Status s = EmitArrayCopy(b_, *array, scratch); !s.ok()) return s;
  return scratch.base();
}

absl::StatusOr<llvm::Value*> LibraryCallArrays::Output(
    const HloInstruction* hlo, const ShapeIndex& index, DenseOrder order) {
  absl::StatusOr<IrArray> array = ctx_.ArrayFor(b_, hlo, index);
  if (!array.ok()) return array.status();
  if (HasDenseOrder(array->shape(), order)) return array->base();
  IrArray scratch = Scratch(array->shape(), order);
  copy_out_.push_back({scratch, *array});
  return scratch.base();
}

namespace {

// Copies `from` into `to` (same dimensions, any layouts), converting the
// element type as convert does.
absl::Status EmitConvertingCopy(llvm::IRBuilderBase& b, const IrArray& from,
                                const IrArray& to) {
  const PrimitiveType in = from.shape().element_type();
  const PrimitiveType out = to.shape().element_type();
  if (in == out) return EmitArrayCopy(b, from, to);
  return codegen::EmitLoopNest(
      b, to.shape(), [&](const codegen::Index& index) -> absl::Status {
        absl::StatusOr<llvm::Value*> v =
            codegen::EmitConvert(b, in, out, from.EmitRead(b, index));
        if (!v.ok()) return v.status();
        to.EmitWrite(b, index, *v);
        return absl::OkStatus();
      });
}

Shape WithType(const Shape& shape, PrimitiveType type) {
  return Shape(type, shape.dimensions());
}

}  // namespace

absl::StatusOr<llvm::Value*> LibraryCallArrays::InputAs(
    const HloInstruction* hlo, const ShapeIndex& index, PrimitiveType type) {
  absl::StatusOr<IrArray> array = ctx_.ArrayFor(b_, hlo, index);
  if (!array.ok()) return array.status();
  if (array->shape().element_type() == type) return Input(hlo, index);
  IrArray scratch =
      Scratch(WithType(array->shape(), type), DenseOrder::kRowMajor);
  if (absl::Status s = EmitConvertingCopy(b_, *array, scratch); !s.ok()) {
    return s;
  }
  return scratch.base();
}

absl::StatusOr<llvm::Value*> LibraryCallArrays::OutputAs(
    const HloInstruction* hlo, const ShapeIndex& index, PrimitiveType type) {
  absl::StatusOr<IrArray> array = ctx_.ArrayFor(b_, hlo, index);
  if (!array.ok()) return array.status();
  if (array->shape().element_type() == type) return Output(hlo, index);
  IrArray scratch =
      Scratch(WithType(array->shape(), type), DenseOrder::kRowMajor);
  copy_out_.push_back({scratch, *array});
  return scratch.base();
}

void LibraryCallArrays::Call(const char* name,
                             const std::vector<llvm::Value*>& arguments) {
  std::vector<llvm::Type*> types;
  for (llvm::Value* a : arguments) types.push_back(a->getType());
  auto* type = llvm::FunctionType::get(b_.getInt32Ty(), types, false);
  llvm::Value* status = b_.CreateCall(ctx_.Runtime(name, type), arguments);
  llvm::Function* f = b_.GetInsertBlock()->getParent();
  llvm::Value* field = b_.CreateConstInBoundsGEP1_64(
      b_.getInt8Ty(), f->getArg(1), offsetof(RunContext, status));
  llvm::Value* old = b_.CreateLoad(b_.getInt32Ty(), field);
  llvm::Value* keep = b_.CreateICmpNE(old, b_.getInt32(0));
  b_.CreateStore(b_.CreateSelect(keep, old, status), field);
}

absl::Status LibraryCallArrays::Finish() {
  for (const auto& [from, to] : copy_out_) {
    if (absl::Status s = EmitConvertingCopy(b_, from, to); !s.ok()) return s;
  }
  auto* type = llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy()}, false);
  for (llvm::Value* block : blocks_) {
    b_.CreateCall(ctx_.Runtime("xlite_cpu_free", type), {block});
  }
  copy_out_.clear();
  blocks_.clear();
  return absl::OkStatus();
}

}  // namespace xlite::cpu
