// The loop kernel: every element of the result (every leaf of a
// multi-output one) from the elemental generator of the computed
// instruction. Thread t of block g computes the elements g*B*U + u*B + t
// (u < U) in the physical order of the largest result leaf, so consecutive
// threads touch consecutive addresses. Leaves of other dimensions (a
// multi-output fusion's reduce beside a loop of its input shape) take the
// same linear numbers in their own physical order, guarded by their own
// element counts; a reduce leaf is computed element by element.
//
// When every leaf has the shape of the first and its physically minor
// dimension is a multiple of the vector width V (16 bytes of the widest
// element, at most 4 elements), each thread instead computes V adjacent
// elements per step: their minor indices are a multiple of V plus 0..V-1,
// so the addresses of same-shaped operands and results are adjacent and
// 16-byte aligned, and LLVM's load/store vectorizer turns them into vector
// loads and stores (ld.global.v4.f32 and the like).

#include <algorithm>
#include <functional>

#include "codegen/gpu/kernel_common.h"
#include "codegen/gpu/kernels.h"

namespace xlite::codegen::gpu {

namespace {

constexpr int64_t kMaxBlock = 256;

// Elements per thread: a few for large results, one for small ones.
int64_t UnrollFor(int64_t elements) { return elements >= (1 << 18) ? 4 : 1; }

// V for `hlo` whose every result leaf has `first`'s shape; 1: no vectors.
int64_t VectorWidth(const HloInstruction* hlo, const Shape& first) {
  if (first.rank() == 0 || first.ElementCount() < 4096) return 1;
  int64_t widest = 0;
  bool packed = false;
  std::function<void(const Shape&)> note = [&](const Shape& shape) {
    if (shape.IsTuple()) {
      for (const Shape& leaf : shape.tuple_shapes()) note(leaf);
      return;
    }
    if (!shape.IsArray()) return;
    const int bits = BitWidth(shape.element_type());
    packed |= bits < 8 || bits % 8 != 0;
    widest = std::max<int64_t>(widest, bits / 8);
  };
  note(hlo->shape());
  for (const HloInstruction* operand : hlo->operands()) note(operand->shape());
  if (packed || widest == 0) return 1;
  const int64_t v = std::min<int64_t>(4, 16 / widest);
  const int64_t minor = first.dimensions(MajorToMinor(first).back());
  return v >= 2 && minor % v == 0 ? v : 1;
}

// The index of element `vector` * V: delinearized with the minor dimension
// counted in vectors, then scaled back (so LLVM knows its low bits).
Index VectorIndex(llvm::IRBuilderBase& b, llvm::Value* vector,
                  const Shape& shape, absl::Span<const int64_t> order,
                  int64_t v) {
  Shape in_vectors = shape;
  const int64_t minor = order.back();
  in_vectors.set_dimension(minor, shape.dimensions(minor) / v);
  Index index(shape.rank(), nullptr);
  DelinearizeInto(b, vector, in_vectors, order, index);
  index[minor] = b.CreateMul(index[minor], b.getInt64(v), "", /*HasNUW=*/true,
                             /*HasNSW=*/true);
  return index;
}

// Step u of thread t in block g computes vector g*B*U + u*B + t: elements
// V times that, plus 0..V-1 along the minor dimension, each leaf written.
absl::Status EmitVectorSteps(KernelScope& k, const HloInstruction* root,
                             const std::vector<int64_t>& leaves,
                             const Shape& first, int64_t block, int64_t unroll,
                             int64_t v) {
  llvm::IRBuilderBase& b = k.b;
  const llvm::SmallVector<int64_t, 6> order = MajorToMinor(first);
  const int64_t vectors = first.ElementCount() / v;
  llvm::Value* base = b.CreateAdd(
      b.CreateMul(BlockIndex64(k), b.getInt64(block * unroll)),
      ThreadIndex64(k));
  for (int64_t u = 0; u < unroll; ++u) {
    llvm::Value* vector = b.CreateAdd(base, b.getInt64(u * block));
    absl::Status s = EmitIf(
        k, b.CreateICmpULT(vector, b.getInt64(vectors)), [&]() -> absl::Status {
          const Index start = VectorIndex(b, vector, first, order, v);
          for (int64_t lane = 0; lane < v; ++lane) {
            ElementalEmitter::Scope scope(k.emitter);
            Index index = start;
            index[order.back()] =
                b.CreateNUWAdd(start[order.back()], b.getInt64(lane));
            for (size_t o = 0; o < leaves.size(); ++o) {
              absl::StatusOr<llvm::Value*> value =
                  k.emitter.ValueAt(root, leaves[o], index);
              if (!value.ok()) return value.status();
              k.outputs[o].EmitWrite(b, index, *value);
            }
          }
          return absl::OkStatus();
        });
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<LaunchDims> EmitLoopKernel(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params) {
  const HloInstruction* root = ComputedRoot(hlo);
  std::vector<int64_t> leaves;  // -1: the array result itself
  const Shape* first = nullptr;
  if (hlo->shape().IsArray()) {
    leaves.push_back(-1);
    first = &hlo->shape();
  } else {
    for (int64_t l = 0; l < hlo->shape().tuple_shapes_size(); ++l) {
      const Shape& leaf = hlo->shape().tuple_shapes(l);
      if (!leaf.IsArray()) {
        return Unsupported(hlo, "results that are not arrays (GPU loop kernel)");
      }
      if (first == nullptr || leaf.ElementCount() > first->ElementCount()) {
        first = &leaf;
      }
      leaves.push_back(l);
    }
  }
  if (first == nullptr) return Unsupported(hlo, "a result with no array");
  const int64_t elements = first->ElementCount();
  bool same_shapes = true;
  for (int64_t l : leaves) {
    const Shape& leaf = l < 0 ? hlo->shape() : hlo->shape().tuple_shapes(l);
    same_shapes &= leaf.dimensions() == first->dimensions() &&
                   MajorToMinor(leaf) == MajorToMinor(*first);
  }
  const int64_t v = same_shapes ? VectorWidth(hlo, *first) : 1;
  const int64_t unroll = UnrollFor(elements);
  const int64_t steps = elements / v;  // v divides the minor dimension
  const int64_t threads = (steps + unroll - 1) / unroll;
  const int64_t block = std::clamp<int64_t>(
      (threads + kWarpSize - 1) / kWarpSize * kWarpSize, kWarpSize, kMaxBlock);
  const int64_t grid = (threads + block - 1) / block;

  llvm::IRBuilder<> b(module.getContext());
  ElementalEmitter emitter(b, module);
  KernelScope k{target, module, nullptr, b, emitter, {}};
  if (absl::Status s = BeginKernel(k, hlo, name, params, block); !s.ok()) {
    return s;
  }
  if (v > 1) {
    if (absl::Status s = EmitVectorSteps(k, root, leaves, *first, block,
                                         unroll, v);
        !s.ok()) {
      return s;
    }
    return EndKernel(k, grid, block, /*cooperative=*/false);
  }
  const llvm::SmallVector<int64_t, 6> order = MajorToMinor(*first);
  llvm::Value* base = b.CreateAdd(
      b.CreateMul(BlockIndex64(k), b.getInt64(block * unroll)),
      ThreadIndex64(k));
  for (int64_t u = 0; u < unroll; ++u) {
    llvm::Value* linear = b.CreateAdd(base, b.getInt64(u * block));
    absl::Status s = EmitIf(
        k, b.CreateICmpULT(linear, b.getInt64(elements)), [&]() -> absl::Status {
          Index index(first->rank(), nullptr);
          DelinearizeInto(b, linear, *first, order, index);
          for (size_t o = 0; o < leaves.size(); ++o) {
            const Shape& leaf = leaves[o] < 0
                                    ? hlo->shape()
                                    : hlo->shape().tuple_shapes(leaves[o]);
            if (leaf.dimensions() == first->dimensions()) {
              absl::StatusOr<llvm::Value*> v =
                  emitter.ValueAt(root, leaves[o], index);
              if (!v.ok()) return v.status();
              k.outputs[o].EmitWrite(b, index, *v);
              continue;
            }
            absl::Status leaf_status = EmitIf(
                k, b.CreateICmpULT(linear, b.getInt64(leaf.ElementCount())),
                [&]() -> absl::Status {
                  Index own(leaf.rank(), nullptr);
                  DelinearizeInto(b, linear, leaf, MajorToMinor(leaf), own);
                  absl::StatusOr<llvm::Value*> v =
                      emitter.ValueAt(root, leaves[o], own);
                  if (!v.ok()) return v.status();
                  k.outputs[o].EmitWrite(b, own, *v);
                  return absl::OkStatus();
                });
            if (!leaf_status.ok()) return leaf_status;
          }
          return absl::OkStatus();
        });
    if (!s.ok()) return s;
  }
  return EndKernel(k, grid, block, /*cooperative=*/false);
}

}  // namespace xlite::codegen::gpu
