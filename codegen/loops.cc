#include "codegen/loops.h"

#include <algorithm>
#include <string>
#include <vector>

#include "llvm/IR/Function.h"

namespace xlite::codegen {

absl::Status EmitForLoop(llvm::IRBuilderBase& b, llvm::Value* start,
                         llvm::Value* end, absl::string_view name,
                         const LoopBody& body, bool unroll_fully) {
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
  llvm::BranchInst* latch = b.CreateBr(header);
  if (unroll_fully) {
    // !llvm.loop !{self, !{"llvm.loop.unroll.full"}}
    llvm::Metadata* full = llvm::MDNode::get(
        context, llvm::MDString::get(context, "llvm.loop.unroll.full"));
    llvm::MDNode* loop_id = llvm::MDNode::getDistinct(context, {nullptr, full});
    loop_id->replaceOperandWith(0, loop_id);
    latch->setMetadata(llvm::LLVMContext::MD_loop, loop_id);
  }

  b.SetInsertPoint(exit);
  return absl::OkStatus();
}

absl::Status EmitSplittableLoop(llvm::IRBuilderBase& b, int64_t trip,
                                const SplitRange*& range,
                                absl::string_view name, const LoopBody& body) {
  if (range == nullptr) {
    return EmitForLoop(b, b.getInt64(0), b.getInt64(trip), name, body);
  }
  const SplitRange part = *range;
  range = nullptr;
  return EmitForLoop(b, part.begin, part.end, name, body);
}

namespace {

// Arrays of at most this many elements in two or more dimensions are
// walked by loops LLVM unrolls completely: each element's address is then
// a constant offset, and the straight-line code vectorizes across rows (a
// 3x3 array's loops left rolled vectorize along the outer one, by strided
// gathers; 42 -> 31 us for a 1000-step scan over a 3x3 carry). One loop
// vectorizes well as it is.
constexpr int64_t kFullyUnrolledElements = 32;

bool UnrollsFully(const Shape& shape) {
  int64_t loops = 0;
  for (int64_t d : shape.dimensions()) loops += d > 1;
  return loops >= 2 && shape.ElementCount() <= kFullyUnrolledElements;
}

absl::Status Nest(llvm::IRBuilderBase& b, const Shape& shape,
                  const llvm::SmallVector<int64_t, 6>& order, size_t depth,
                  Index& index, const IndexBody& body, const SplitRange*& range,
                  bool may_unroll = true) {
  if (depth == order.size()) return body(index);
  const int64_t dim = order[depth];
  if (shape.dimensions(dim) == 1) {
    index[dim] = b.getInt64(0);
    return Nest(b, shape, order, depth + 1, index, body, range, may_unroll);
  }
  auto inner = [&](llvm::Value* iv) {
    index[dim] = iv;
    return Nest(b, shape, order, depth + 1, index, body, range, may_unroll);
  };
  if (range == nullptr && may_unroll && UnrollsFully(shape)) {
    return EmitForLoop(b, b.getInt64(0), b.getInt64(shape.dimensions(dim)),
                       "d" + std::to_string(dim), inner,
                       /*unroll_fully=*/true);
  }
  return EmitSplittableLoop(b, shape.dimensions(dim), range,
                            "d" + std::to_string(dim), inner);
}

}  // namespace

int64_t SplitTripCount(const Shape& shape, const Shape* order_shape) {
  if (shape.ElementCount() == 0) return 1;
  for (int64_t d : MajorToMinor(order_shape ? *order_shape : shape)) {
    if (shape.dimensions(d) > 1) return shape.dimensions(d);
  }
  return 1;
}

absl::Status EmitLoopNest(llvm::IRBuilderBase& b, const Shape& shape,
                          const IndexBody& body, const Shape* order_shape,
                          const SplitRange* range) {
  if (shape.ElementCount() == 0) return absl::OkStatus();
  Index index(shape.rank(), nullptr);
  return Nest(b, shape, MajorToMinor(order_shape ? *order_shape : shape), 0,
              index, body, range);
}

absl::Status EmitLoopNestOverBounds(llvm::IRBuilderBase& b,
                                    absl::Span<const int64_t> bounds,
                                    const IndexBody& body,
                                    const SplitRange* range) {
  Shape shape(PrimitiveType::kS32, bounds);
  return EmitLoopNest(b, shape, body, nullptr, range);
}

int64_t LaneDimension(const Shape& shape) {
  const llvm::SmallVector<int64_t, 6> order = MajorToMinor(shape);
  for (auto d = order.rbegin(); d != order.rend(); ++d) {
    if (shape.dimensions(*d) > 1) return *d;
  }
  return -1;
}

namespace {

// The dimensions of a lane nest's outer loops, major to minor: all but
// the lane dimension.
llvm::SmallVector<int64_t, 6> OuterDimensions(const Shape& shape) {
  llvm::SmallVector<int64_t, 6> order = MajorToMinor(shape);
  order.erase(std::find(order.begin(), order.end(), LaneDimension(shape)));
  return order;
}

using GroupBody =
    std::function<absl::Status(llvm::Value* start, int64_t count)>;

// The groups of `width` lanes along a dimension of `n`, then the narrower
// remainder; with `range`, only groups [begin, end) of them (the remainder
// being group n / width).
absl::Status EmitLaneGroups(llvm::IRBuilderBase& b, int64_t n, int64_t width,
                            const SplitRange* range, const GroupBody& group) {
  const int64_t full = n / width;
  auto full_group = [&](llvm::Value* iv) {
    return group(b.CreateMul(iv, b.getInt64(width), "", true, true), width);
  };
  if (range == nullptr) {
    if (full > 0) {
      absl::Status status =
          EmitForLoop(b, b.getInt64(0), b.getInt64(full), "lanes", full_group);
      if (!status.ok()) return status;
    }
    if (n % width == 0) return absl::OkStatus();
    return group(b.getInt64(n - n % width), n % width);
  }
  llvm::Value* last = b.getInt64(full);
  if (full > 0) {
    llvm::Value* end =
        b.CreateSelect(b.CreateICmpSLT(range->end, last), range->end, last);
    absl::Status status =
        EmitForLoop(b, range->begin, end, "lanes", full_group);
    if (!status.ok()) return status;
  }
  if (n % width == 0) return absl::OkStatus();
  llvm::Value* mine = b.CreateAnd(b.CreateICmpSLE(range->begin, last),
                                  b.CreateICmpSLT(last, range->end));
  llvm::Function* function = b.GetInsertBlock()->getParent();
  auto* then = llvm::BasicBlock::Create(b.getContext(), "lanes.rest", function);
  auto* done =
      llvm::BasicBlock::Create(b.getContext(), "lanes.rest.done", function);
  b.CreateCondBr(mine, then, done);
  b.SetInsertPoint(then);
  if (absl::Status s = group(b.getInt64(n - n % width), n % width); !s.ok()) {
    return s;
  }
  b.CreateBr(done);
  b.SetInsertPoint(done);
  return absl::OkStatus();
}

}  // namespace

int64_t LaneSplitTripCount(const Shape& shape, int64_t width) {
  if (shape.ElementCount() == 0) return 1;
  for (int64_t d : OuterDimensions(shape)) {
    if (shape.dimensions(d) > 1) return shape.dimensions(d);
  }
  const int64_t n = shape.dimensions(LaneDimension(shape));
  return n / width + (n % width != 0);
}

absl::Status EmitLaneLoopNest(llvm::IRBuilderBase& b, const Shape& shape,
                              int64_t width, const LanesBody& body,
                              const SplitRange* range) {
  if (shape.ElementCount() == 0) return absl::OkStatus();
  // The lanes run along the most minor dimension longer than 1 (a result
  // f32[4096,1] has its lanes along dimension 0); the others are the outer
  // loops, major to minor.
  const llvm::SmallVector<int64_t, 6> order = OuterDimensions(shape);
  const int64_t dim = LaneDimension(shape);
  const int64_t n = shape.dimensions(dim);
  std::vector<int64_t> outer_bounds;
  for (int64_t d : order) outer_bounds.push_back(shape.dimensions(d));
  const bool outer_split = std::any_of(outer_bounds.begin(), outer_bounds.end(),
                                       [](int64_t x) { return x > 1; });
  const SplitRange* groups_range = outer_split ? nullptr : range;
  // The outer loops stay rolled whatever their size: each iteration is a
  // group of lanes, each lane's reduction a loop of its own. (Fully
  // unrolled, the nest of a small batched c64 dot came out of LLVM 19's
  // SLP vectorizer, with the buffer alias scopes, computing wrong values:
  // kernel_loops_test SmallBatchedComplexDotBitIdentical.)
  const Shape outer_shape(PrimitiveType::kS32, outer_bounds);
  Index outer_index(outer_shape.rank(), nullptr);
  const SplitRange* outer_range = outer_split ? range : nullptr;
  return Nest(
      b, outer_shape, MajorToMinor(outer_shape), 0, outer_index,
      [&](const Index& outer) {
        // The lanes of the group starting at `start` in `dim`.
        auto group = [&](llvm::Value* start, int64_t count) {
          std::vector<Index> lanes(count, Index(shape.rank(), nullptr));
          for (int64_t k = 0; k < count; ++k) {
            for (size_t i = 0; i < order.size(); ++i) {
              lanes[k][order[i]] = outer[i];
            }
            lanes[k][dim] =
                k == 0 ? start
                       : b.CreateAdd(start, b.getInt64(k), "", true, true);
          }
          return body(lanes, dim);
        };
        return EmitLaneGroups(b, n, width, groups_range, group);
      },
      outer_range, /*may_unroll=*/false);
}

}  // namespace xlite::codegen
