#include "codegen/loops.h"

#include <string>

#include "llvm/IR/Function.h"

namespace xlite::codegen {

absl::Status EmitForLoop(llvm::IRBuilderBase& b, llvm::Value* start,
                         llvm::Value* end, absl::string_view name,
                         const LoopBody& body) {
  llvm::Function* function = b.GetInsertBlock()->getParent();
  llvm::LLVMContext& context = b.getContext();
  const std::string base(name);
  llvm::BasicBlock* preheader = b.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(context, base + ".header", function);
  auto* loop = llvm::BasicBlock::Create(context, base + ".body", function);
  auto* exit = llvm::BasicBlock::Create(context, base + ".exit", function);
  b.CreateBr(header);

  b.SetInsertPoint(header);
  llvm::PHINode* iv = b.CreatePHI(b.getInt64Ty(), 2, base + ".iv");
  iv->addIncoming(start, preheader);
  b.CreateCondBr(b.CreateICmpSLT(iv, end), loop, exit);

  b.SetInsertPoint(loop);
  if (absl::Status status = body(iv); !status.ok()) return status;
  llvm::Value* next = b.CreateAdd(iv, b.getInt64(1), "", true, true);
  iv->addIncoming(next, b.GetInsertBlock());
  b.CreateBr(header);

  b.SetInsertPoint(exit);
  return absl::OkStatus();
}

namespace {

absl::Status Nest(llvm::IRBuilderBase& b, const Shape& shape,
                  const llvm::SmallVector<int64_t, 6>& order, size_t depth,
                  Index& index, const IndexBody& body) {
  if (depth == order.size()) return body(index);
  const int64_t dim = order[depth];
  if (shape.dimensions(dim) == 1) {
    index[dim] = b.getInt64(0);
    return Nest(b, shape, order, depth + 1, index, body);
  }
  return EmitForLoop(b, b.getInt64(0), b.getInt64(shape.dimensions(dim)),
                     "d" + std::to_string(dim), [&](llvm::Value* iv) {
                       index[dim] = iv;
                       return Nest(b, shape, order, depth + 1, index, body);
                     });
}

}  // namespace

absl::Status EmitLoopNest(llvm::IRBuilderBase& b, const Shape& shape,
                          const IndexBody& body, const Shape* order_shape) {
  if (shape.ElementCount() == 0) return absl::OkStatus();
  Index index(shape.rank(), nullptr);
  return Nest(b, shape, MajorToMinor(order_shape ? *order_shape : shape), 0,
              index, body);
}

absl::Status EmitLoopNestOverBounds(llvm::IRBuilderBase& b,
                                    absl::Span<const int64_t> bounds,
                                    const IndexBody& body) {
  Shape shape(PrimitiveType::kS32, bounds);
  return EmitLoopNest(b, shape, body);
}

}  // namespace xlite::codegen
