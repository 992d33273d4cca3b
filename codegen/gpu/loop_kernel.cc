// The loop kernel: every element of the result (every leaf of a
// multi-output one) from the elemental generator of the computed
// instruction. Thread t of block g computes the elements g*B*U + u*B + t
// (u < U) in the physical order of the largest result leaf, so consecutive
// threads touch consecutive addresses. Leaves of other dimensions (a
// multi-output fusion's reduce beside a loop of its input shape) take the
// same linear numbers in their own physical order, guarded by their own
// element counts; a reduce leaf is computed element by element.

#include <algorithm>

#include "codegen/gpu/kernel_common.h"
#include "codegen/gpu/kernels.h"

namespace xlite::codegen::gpu {

namespace {

constexpr int64_t kMaxBlock = 256;

// Elements per thread: a few for large results, one for small ones.
int64_t UnrollFor(int64_t elements) { return elements >= (1 << 18) ? 4 : 1; }

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
  const int64_t unroll = UnrollFor(elements);
  const int64_t threads = (elements + unroll - 1) / unroll;
  const int64_t block = std::clamp<int64_t>(
      (threads + kWarpSize - 1) / kWarpSize * kWarpSize, kWarpSize, kMaxBlock);
  const int64_t grid = (threads + block - 1) / block;

  llvm::IRBuilder<> b(module.getContext());
  ElementalEmitter emitter(b, module);
  KernelScope k{target, module, nullptr, b, emitter, {}};
  if (absl::Status s = BeginKernel(k, hlo, name, params, block); !s.ok()) {
    return s;
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
