#include "cpu_backend/dense_arrays.h"

#include "codegen/loops.h"
#include "codegen/scalar_ops.h"
#include "cpu_backend/library_calls.h"

namespace xlite::cpu {

using codegen::Index;
using codegen::IrArray;

namespace {

// Copies every element of `from` into `to` (same dimensions, any layouts),
// converting between their element types; writes walk `to` in order.
absl::Status EmitConvertingCopy(llvm::IRBuilderBase& b, const IrArray& from,
                                const IrArray& to) {
  const PrimitiveType from_type = from.shape().element_type();
  const PrimitiveType to_type = to.shape().element_type();
  return codegen::EmitLoopNest(
      b, to.shape(), [&](const Index& index) -> absl::Status {
        llvm::Value* value = from.EmitRead(b, index);
        if (from_type != to_type) {
          absl::StatusOr<llvm::Value*> converted =
              codegen::EmitConvert(b, from_type, to_type, value);
          if (!converted.ok()) return converted.status();
          value = *converted;
        }
        to.EmitWrite(b, index, value);
        return absl::OkStatus();
      });
}

bool Overlap(const runtime::Slice& a, const runtime::Slice& b) {
  return a.allocation == b.allocation && a.size > 0 && b.size > 0 &&
         a.offset < b.offset + b.size && b.offset < a.offset + a.size;
}

}  // namespace

Shape WithPhysicalOrder(const Shape& shape,
                        absl::Span<const int64_t> major_to_minor) {
  std::vector<int64_t> minor_to_major(major_to_minor.rbegin(),
                                      major_to_minor.rend());
  Shape out(shape.element_type(), shape.dimensions());
  out.set_layout(Layout(minor_to_major));
  return out;
}

bool IsDenseIn(const Shape& shape, absl::Span<const int64_t> major_to_minor) {
  const auto have = codegen::PhysicalStrides(shape);
  const auto want =
      codegen::PhysicalStrides(WithPhysicalOrder(shape, major_to_minor));
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (shape.dimensions(d) > 1 && have[d] != want[d]) return false;
  }
  return true;
}

absl::StatusOr<bool> ResultOverlapsOperands(EmitterContext& ctx,
                                            const HloInstruction* hlo) {
  absl::StatusOr<runtime::Slice> out = ctx.assignment().GetSlice(hlo, {});
  if (!out.ok()) return out.status();
  for (int64_t i = 0; i < hlo->operand_count(); ++i) {
    const HloInstruction* operand = hlo->operand(i);
    if (!operand->shape().IsArray()) continue;
    absl::StatusOr<runtime::Slice> in = ctx.assignment().GetSlice(operand, {});
    if (!in.ok()) return in.status();
    if (Overlap(*out, *in)) return true;
  }
  return false;
}

IrArray DenseArrays::Scratch(const Shape& shape,
                             absl::Span<const int64_t> major_to_minor,
                             PrimitiveType type) {
  Shape dense = WithPhysicalOrder(shape, major_to_minor);
  dense.set_element_type(type);
  const int64_t bytes = dense.ElementCount() * StorageBytes(type);
  auto* fn_type =
      llvm::FunctionType::get(b_.getPtrTy(), {b_.getInt64Ty()}, false);
  llvm::Value* block = b_.CreateCall(ctx_.Runtime("xlite_cpu_alloc", fn_type),
                                     {b_.getInt64(bytes)});
  blocks_.push_back(block);
  return IrArray(block, dense);
}

absl::StatusOr<llvm::Value*> DenseArrays::Input(
    const IrArray& array, absl::Span<const int64_t> major_to_minor,
    PrimitiveType type) {
  if (array.shape().element_type() == type &&
      IsDenseIn(array.shape(), major_to_minor)) {
    return array.base();
  }
  IrArray scratch = Scratch(array.shape(), major_to_minor, type);
  if (absl::Status s = EmitConvertingCopy(b_, array, scratch); !s.ok()) {
    return s;
  }
  return scratch.base();
}

llvm::Value* DenseArrays::Output(const IrArray& array,
                                 absl::Span<const int64_t> major_to_minor,
                                 PrimitiveType type, bool in_place) {
  if (in_place && array.shape().element_type() == type &&
      IsDenseIn(array.shape(), major_to_minor)) {
    return array.base();
  }
  IrArray scratch = Scratch(array.shape(), major_to_minor, type);
  copy_out_.push_back({scratch, array});
  return scratch.base();
}

void DenseArrays::Call(const char* name,
                       const std::vector<llvm::Value*>& arguments) {
  LibraryCallArrays(ctx_, b_).Call(name, arguments);
}

absl::Status DenseArrays::Finish() {
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
