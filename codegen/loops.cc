#include "codegen/loops.h"

#include <algorithm>
#include <string>
#include <vector>

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

int64_t LaneDimension(const Shape& shape) {
  const llvm::SmallVector<int64_t, 6> order = MajorToMinor(shape);
  for (auto d = order.rbegin(); d != order.rend(); ++d) {
    if (shape.dimensions(*d) > 1) return *d;
  }
  return -1;
}

absl::Status EmitLaneLoopNest(llvm::IRBuilderBase& b, const Shape& shape,
                              int64_t width, const LanesBody& body) {
  if (shape.ElementCount() == 0) return absl::OkStatus();
  // The lanes run along the most minor dimension longer than 1 (a result
  // f32[4096,1] has its lanes along dimension 0); the others are the outer
  // loops, major to minor.
  llvm::SmallVector<int64_t, 6> order = MajorToMinor(shape);
  const int64_t dim = LaneDimension(shape);
  order.erase(std::find(order.begin(), order.end(), dim));
  const int64_t n = shape.dimensions(dim);
  std::vector<int64_t> outer_bounds;
  for (int64_t d : order) outer_bounds.push_back(shape.dimensions(d));
  return EmitLoopNestOverBounds(b, outer_bounds, [&](const Index& outer) {
    // The lanes of the group starting at `start` in `dim`.
    auto group = [&](llvm::Value* start, int64_t count) {
      std::vector<Index> lanes(count, Index(shape.rank(), nullptr));
      for (int64_t k = 0; k < count; ++k) {
        for (size_t i = 0; i < order.size(); ++i) lanes[k][order[i]] = outer[i];
        lanes[k][dim] =
            k == 0 ? start : b.CreateAdd(start, b.getInt64(k), "", true, true);
      }
      return body(lanes, dim);
    };
    if (n / width > 0) {
      absl::Status status = EmitForLoop(
          b, b.getInt64(0), b.getInt64(n / width), "lanes",
          [&](llvm::Value* iv) {
            return group(b.CreateMul(iv, b.getInt64(width), "", true, true),
                         width);
          });
      if (!status.ok()) return status;
    }
    if (n % width == 0) return absl::OkStatus();
    return group(b.getInt64(n - n % width), n % width);
  });
}

}  // namespace xlite::codegen
