// Asynchronous tile copies (cp.async) for the tiled GEMM: an operand
// tile that is a plain copy of memory (a fusion parameter already in the
// type the tensor cores read, K physically minor; or, for the warpgroup
// loop's MN-major tiles, M or N minor) goes from global to shared memory
// 16 bytes per copy without passing through registers; the main loop
// waits for a step's copies before the barrier that precedes its multiply
// (tiled_gemm_kernel.cc, EmitMainLoop).

#include <algorithm>

#include "codegen/gpu/tiled_gemm.h"
#include "codegen/scalar_ops.h"
#include "hlo/ir/opcode.h"

namespace xlite::codegen::gpu::tiled_gemm {

namespace {

bool RowMajor(const Shape& shape) {
  const llvm::SmallVector<int64_t, 6> order = MajorToMinor(shape);
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

// The fusion parameter `operand` views as it is: itself, or through
// bitcasts and reshapes between row-major shapes (same bytes, same
// order); null if none.
const HloInstruction* ViewedParameter(const HloInstruction* operand) {
  const HloInstruction* h = operand;
  while (h->opcode() == HloOpcode::kBitcast ||
         (h->opcode() == HloOpcode::kReshape && RowMajor(h->shape()) &&
          RowMajor(h->operand(0)->shape()))) {
    h = h->operand(0);
  }
  return h->opcode() == HloOpcode::kParameter ? h : nullptr;
}

}  // namespace

const HloInstruction* ViewedFusionParameter(const HloInstruction* operand) {
  return ViewedParameter(operand);
}

bool AsyncCopyableOperand(const HloInstruction* operand,
                          const std::vector<int64_t>& k, PrimitiveType storage,
                          const TiledGemmConfig& c) {
  constexpr int64_t kChunk = 16;
  const Shape& shape = operand->shape();
  const PrimitiveType type = shape.element_type();
  if (!c.tensor_cores() || ViewedParameter(operand) == nullptr ||
      type == PrimitiveType::kF32 || type != storage || k.size() != 1) {
    return false;
  }
  const int64_t bytes = StorageBytes(type);
  const llvm::SmallVector<int64_t, 6> order = MajorToMinor(shape);
  return !order.empty() && order.back() == k.front() &&
         shape.dimensions(k.front()) * bytes % kChunk == 0 &&
         c.block_k * bytes % kChunk == 0;
}

bool AsyncCopyableMnOperand(const HloInstruction* operand,
                            const std::vector<int64_t>& free,
                            PrimitiveType storage, const TiledGemmConfig& c) {
  constexpr int64_t kChunk = 16;
  const Shape& shape = operand->shape();
  if (!c.warpgroups() || ViewedParameter(operand) == nullptr ||
      shape.element_type() != storage || StorageBytes(storage) != 2 ||
      free.size() != 1) {
    return false;
  }
  const llvm::SmallVector<int64_t, 6> order = MajorToMinor(shape);
  return !order.empty() && order.back() == free.front() &&
         shape.dimensions(free.front()) * StorageBytes(storage) % kChunk == 0;
}

void PlanAsyncCopy(KernelScope& k, const TiledGemmConfig& c, Side& s) {
  constexpr int64_t kChunk = 16;
  const PrimitiveType type = s.operand->shape().element_type();
  if (ValueType(type, k.b.getContext()) != s.type ||
      !(s.mn_major ? AsyncCopyableMnOperand(s.operand, *s.free, type, c)
                   : AsyncCopyableOperand(s.operand, *s.k, type, c))) {
    return;
  }
  const HloInstruction* parameter = ViewedParameter(s.operand);
  for (const KernelScope::Input& in : k.inputs) {
    if (in.instruction == parameter && in.leaf == -1 &&
        in.alignment >= kChunk) {
      s.async = Side::AsyncSource{IrArray(in.array.base(), s.operand->shape()),
                                  kChunk / StorageBytes(type)};
    }
  }
}

absl::Status IssueAsyncTile(KernelScope& k, const GemmView& v, const Side& s,
                            int64_t block_k, int64_t threads, llvm::Value* tid,
                            llvm::Value* batch, llvm::Value* f0,
                            llvm::Value* k0, llvm::Value* buffer) {
  llvm::IRBuilderBase& b = k.b;
  const int64_t per = s.async->chunk_elements;
  // Chunks along K per row of the tile, or (MN-major) along M or N per
  // row of K.
  const int64_t per_row = (s.mn_major ? s.tile : block_k) / per;
  const int64_t chunks = (s.mn_major ? block_k : s.tile) * per_row;
  const Shape& shape = s.operand->shape();
  for (int64_t r = 0; r * threads < chunks; ++r) {
    llvm::Value* c = b.CreateAdd(tid, b.getInt64(r * threads));
    auto issue = [&]() -> absl::Status {
      llvm::Value* f = nullptr;
      llvm::Value* kk = nullptr;
      if (s.core_sbo == 0) {
        f = b.CreateUDiv(c, b.getInt64(per_row));
        kk = b.CreateMul(b.CreateURem(c, b.getInt64(per_row)), b.getInt64(per));
      } else {
        // Core matrices: 8 consecutive threads fill one (128 contiguous
        // bytes, every bank once), reading 16 bytes of 8 rows.
        llvm::Value* group = b.CreateUDiv(c, b.getInt64(8 * per_row));
        llvm::Value* chunk =
            b.CreateURem(b.CreateUDiv(c, b.getInt64(8)), b.getInt64(per_row));
        llvm::Value* row = b.CreateAdd(b.CreateMul(group, b.getInt64(8)),
                                       b.CreateURem(c, b.getInt64(8)));
        f = s.mn_major ? b.CreateMul(chunk, b.getInt64(per)) : row;
        kk = s.mn_major ? row : b.CreateMul(chunk, b.getInt64(per));
      }
      llvm::Value* fg = b.CreateAdd(f0, f);
      llvm::Value* kg = b.CreateAdd(k0, kk);
      llvm::Value* in_range =
          b.CreateAnd(b.CreateICmpULT(fg, b.getInt64(s.free_size)),
                      b.CreateICmpULT(kg, b.getInt64(v.k)));
      // Out of range: nothing is read, but the address stays inside.
      llvm::Value* zero = b.getInt64(0);
      Index index(shape.rank(), nullptr);
      DelinearizeInto(b, batch, shape, *s.batch, index);
      DelinearizeInto(b, b.CreateSelect(in_range, fg, zero), shape, *s.free,
                      index);
      DelinearizeInto(b, b.CreateSelect(in_range, kg, zero), shape, *s.k,
                      index);
      llvm::Value* src = s.async->array.EmitAddress(b, index);
      llvm::Value* dst = b.CreateGEP(s.type, buffer, {s.Offset(b, f, kk)});
      k.target.AsyncCopy(b, dst, src, 16, in_range);
      return absl::OkStatus();
    };
    absl::Status status =
        (r + 1) * threads <= chunks
            ? issue()
            : EmitIf(k, b.CreateICmpULT(c, b.getInt64(chunks)), issue);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace xlite::codegen::gpu::tiled_gemm
