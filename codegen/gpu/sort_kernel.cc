// The sort kernel (serial per row): one thread per row of the sorted
// dimension copies its row of every operand into the results, then sorts
// the results' row in place by insertion (stable), comparing with the sort's
// comparator applied inline. Each result is addressed by logical index, so
// results laid out unlike each other need no scratch. Rows are independent,
// so a result sharing its operand's buffer is sorted in place. O(n^2) per
// row: a correct fallback for any row length; a block-wide bitonic sort is
// the fast path still to come.

#include <algorithm>

#include "codegen/gpu/kernel_common.h"
#include "codegen/gpu/kernels.h"
#include "codegen/loops.h"

namespace xlite::codegen::gpu {

namespace {

constexpr int64_t kMaxBlock = 128;

// The index of element `i` (i64) of row `row` (i64): `row` is the linear
// number of the other dimensions in `shape`'s major-to-minor order.
Index RowIndex(llvm::IRBuilderBase& b, const Shape& shape, int64_t dim,
               llvm::Value* row, llvm::Value* i) {
  std::vector<int64_t> others;
  for (int64_t d : MajorToMinor(shape)) {
    if (d != dim) others.push_back(d);
  }
  Index index(shape.rank(), nullptr);
  DelinearizeInto(b, row, shape, others, index);
  index[dim] = i;
  return index;
}

}  // namespace

absl::StatusOr<LaunchDims> EmitSortKernel(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params) {
  if (hlo->opcode() != HloOpcode::kSort || hlo->dimensions().size() != 1) {
    return Unsupported(hlo, "a sort kernel for this instruction");
  }
  const int64_t n = hlo->operand_count();
  const int64_t dim = hlo->dimensions(0);
  const Shape& shape = hlo->operand(0)->shape();
  const int64_t length = shape.dimensions(dim);
  const int64_t rows = length == 0 ? 0 : shape.ElementCount() / length;
  const int64_t block = std::clamp<int64_t>(
      (rows + kWarpSize - 1) / kWarpSize * kWarpSize, kWarpSize, kMaxBlock);
  const int64_t grid = (rows + block - 1) / block;

  llvm::IRBuilder<> b(module.getContext());
  ElementalEmitter emitter(b, module);
  KernelScope k{target, module, nullptr, b, emitter, {}};
  if (absl::Status s = BeginKernel(k, hlo, name, params, block); !s.ok()) {
    return s;
  }
  if (static_cast<int64_t>(k.outputs.size()) != n) {
    return Unsupported(hlo, "a sort whose results are not one per operand");
  }
  llvm::Value* row = b.CreateAdd(
      b.CreateMul(BlockIndex64(k), b.getInt64(block)), ThreadIndex64(k));
  absl::Status status = EmitIf(
      k, b.CreateICmpULT(row, b.getInt64(rows)), [&]() -> absl::Status {
        // Copy the row in.
        absl::Status copied = EmitForLoop(
            b, b.getInt64(0), b.getInt64(length), "sort.copy",
            [&](llvm::Value* i) -> absl::Status {
              ElementalEmitter::Scope scope(emitter);
              const Index index = RowIndex(b, shape, dim, row, i);
              // Every operand is read before any result is written: a
              // result may share an operand's buffer.
              std::vector<llvm::Value*> values;
              for (int64_t o = 0; o < n; ++o) {
                absl::StatusOr<llvm::Value*> v =
                    emitter.ValueAt(hlo->operand(o), -1, index);
                if (!v.ok()) return v.status();
                values.push_back(*v);
              }
              for (int64_t o = 0; o < n; ++o) {
                k.outputs[o].EmitWrite(b, index, values[o]);
              }
              return absl::OkStatus();
            });
        if (!copied.ok()) return copied;
        // Insertion: element i sinks while it sorts before its left
        // neighbour (after the first stop nothing more moves, as the
        // prefix is sorted).
        return EmitForLoop(
            b, b.getInt64(1), b.getInt64(length), "sort.outer",
            [&](llvm::Value* i) -> absl::Status {
              return EmitForLoop(
                  b, b.getInt64(0), i, "sort.inner",
                  [&](llvm::Value* step) -> absl::Status {
                    ElementalEmitter::Scope scope(emitter);
                    llvm::Value* j = b.CreateSub(i, step);
                    const Index right = RowIndex(b, shape, dim, row, j);
                    const Index left = RowIndex(
                        b, shape, dim, row, b.CreateSub(j, b.getInt64(1)));
                    std::vector<llvm::Value*> args, lv, rv;
                    for (int64_t o = 0; o < n; ++o) {
                      rv.push_back(k.outputs[o].EmitRead(b, right));
                      lv.push_back(k.outputs[o].EmitRead(b, left));
                      args.push_back(rv.back());
                      args.push_back(lv.back());
                    }
                    absl::StatusOr<std::vector<llvm::Value*>> less =
                        emitter.EmitApplied(*hlo->to_apply(), args);
                    if (!less.ok()) return less.status();
                    llvm::Value* swap = (*less)[0];
                    if (!swap->getType()->isIntegerTy(1)) {
                      swap = b.CreateICmpNE(
                          swap, llvm::Constant::getNullValue(swap->getType()));
                    }
                    return EmitIf(k, swap, [&]() -> absl::Status {
                      for (int64_t o = 0; o < n; ++o) {
                        k.outputs[o].EmitWrite(b, left, rv[o]);
                        k.outputs[o].EmitWrite(b, right, lv[o]);
                      }
                      return absl::OkStatus();
                    });
                  });
            });
      });
  if (!status.ok()) return status;
  return EndKernel(k, grid, block, /*cooperative=*/false);
}

}  // namespace xlite::codegen::gpu
