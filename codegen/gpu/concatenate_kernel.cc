// The concatenate kernel: a concatenate, or a fusion whose result is a
// concatenate followed only by elementwise instructions (read at the
// result's index: the epilogue), launched over the largest operand (the one longest along the
// concatenated dimension), as XLA's concatenate emitter does. Each thread
// takes one index of that shape, in the result's physical order, and for
// every operand whose extent along the dimension covers the index, computes
// that operand's element (producers fused in through the elemental
// emitter), applies the epilogue to it at the operand's offset in the
// result and writes it there. No thread
// searches for the operand an element comes from: each operand's part is
// written by the threads that cover it, and with one block per 256
// indices a block writes a contiguous run of each part.

#include <algorithm>

#include "codegen/gpu/kernel_common.h"
#include "codegen/gpu/kernels.h"
#include "hlo/ir/opcode.h"

namespace xlite::codegen::gpu {
namespace {

constexpr int64_t kMaxBlock = 256;

bool IsConcatenate(const HloInstruction* i) {
  return i->opcode() == HloOpcode::kConcatenate && i->operand_count() >= 2;
}

// The concatenate whose operands the kernel iterates over.
const HloInstruction* ConcatenateHero(const HloInstruction* hlo) {
  if (!hlo->shape().IsArray() || hlo->shape().rank() == 0) return nullptr;
  if (hlo->opcode() != HloOpcode::kFusion) {
    return IsConcatenate(hlo) ? hlo : nullptr;
  }
  std::optional<const HloInstruction*> hero =
      FindElementwiseHero(ComputedRoot(hlo), IsConcatenate);
  return hero.has_value() ? *hero : nullptr;
}

}  // namespace

bool IsConcatenateKernel(const HloInstruction* hlo) {
  return ConcatenateHero(hlo) != nullptr;
}

absl::StatusOr<LaunchDims> EmitConcatenateKernel(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params) {
  const HloInstruction* root = ComputedRoot(hlo);
  const HloInstruction* concat = ConcatenateHero(hlo);
  if (concat == nullptr) return Unsupported(hlo, "a fusion not of a concatenate");
  const int64_t dim = concat->dimensions()[0];
  // The iteration space: the result's layout and sizes, the concatenated
  // dimension as long as the longest operand's.
  int64_t longest = 0;
  for (const HloInstruction* o : concat->operands()) {
    longest = std::max(longest, o->shape().dimensions(dim));
  }
  Shape space = hlo->shape();
  std::vector<int64_t> sizes(space.dimensions().begin(),
                             space.dimensions().end());
  sizes[dim] = longest;
  space.set_dimensions(sizes);
  const int64_t elements = space.ElementCount();
  const int64_t block = std::clamp<int64_t>(
      (elements + kWarpSize - 1) / kWarpSize * kWarpSize, kWarpSize,
      kMaxBlock);
  const int64_t grid = (elements + block - 1) / block;

  llvm::IRBuilder<> b(module.getContext());
  ElementalEmitter emitter(b, module);
  KernelScope k{target, module, nullptr, b, emitter, {}};
  if (absl::Status s = BeginKernel(k, hlo, name, params, block); !s.ok()) {
    return s;
  }
  llvm::Value* linear = b.CreateAdd(
      b.CreateMul(BlockIndex64(k), b.getInt64(block)), ThreadIndex64(k));
  absl::Status s = EmitIf(
      k, b.CreateICmpULT(linear, b.getInt64(elements)), [&]() -> absl::Status {
        Index index(space.rank(), nullptr);
        DelinearizeInto(b, linear, space, MajorToMinor(space), index);
        int64_t offset = 0;
        for (const HloInstruction* operand : concat->operands()) {
          const int64_t extent = operand->shape().dimensions(dim);
          const int64_t at = offset;
          offset += extent;
          if (extent == 0) continue;
          absl::Status part = EmitIf(
              k, b.CreateICmpULT(index[dim], b.getInt64(extent)),
              [&]() -> absl::Status {
                absl::StatusOr<llvm::Value*> v =
                    emitter.ValueAt(operand, -1, index);
                if (!v.ok()) return v.status();
                Index out = index;
                out[dim] = b.CreateAdd(index[dim], b.getInt64(at));
                llvm::Value* value = *v;
                emitter.Bind(concat, -1, [value](const Index&) { return value; });
                absl::StatusOr<llvm::Value*> result =
                    emitter.ValueAt(root, -1, out);
                if (!result.ok()) return result.status();
                k.outputs[0].EmitWrite(b, out, *result);
                return absl::OkStatus();
              });
          if (!part.ok()) return part;
        }
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  return EndKernel(k, grid, block, /*cooperative=*/false);
}

}  // namespace xlite::codegen::gpu
