// Column reduction: the reduced dimensions are the physically major ones,
// so each output element reduces a strided column. A block takes 32
// consecutive columns (adjacent in memory: coalesced reads) with 8 threads
// per column, each summing every 8th row; the 8x32 tile of partials goes
// through shared memory; after a barrier the first thread of each column
// reads its column of the tile (the tile transposed) and writes the
// result. A multi-output fusion of reduces alike has a partial and a tile
// per reduce.

#include <algorithm>

#include "codegen/gpu/kernels.h"
#include "codegen/gpu/reduction_common.h"
#include "codegen/loops.h"

namespace xlite::codegen::gpu {

namespace {
constexpr int64_t kColumns = 32;
constexpr int64_t kRowLanes = 8;
constexpr int64_t kBlock = kColumns * kRowLanes;
}  // namespace

absl::StatusOr<LaunchDims> EmitColumnReduction(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const ReductionShape& shape, const std::string& name,
    const std::vector<KernelParam>& params) {
  const std::vector<const HloInstruction*> reduces = ReducesOf(hlo);
  const HloInstruction* reduce = reduces.front();
  const Shape& operand = reduce->operand(0)->shape();
  const int64_t height = ProductOf(operand, shape.reduced);
  const int64_t columns = ProductOf(operand, shape.kept);
  const int64_t grid = (columns + kColumns - 1) / kColumns;

  llvm::IRBuilder<> b(module.getContext());
  ElementalEmitter emitter(b, module);
  KernelScope k{target, module, nullptr, b, emitter, {}};
  if (absl::Status s = BeginKernel(k, hlo, name, params, kBlock); !s.ok()) {
    return s;
  }
  absl::StatusOr<Partials> partials = MakePartials(k, reduces);
  if (!partials.ok()) return partials.status();
  std::vector<llvm::Value*> tiles;
  for (size_t r = 0; r < reduces.size(); ++r) {
    llvm::Type* type = partials->partials[r]->type();
    const int64_t type_bytes =
        module.getDataLayout().getTypeAllocSize(type).getFixedValue();
    tiles.push_back(target.SharedArray(b, kBlock * type_bytes,
                                       std::max<int64_t>(type_bytes, 4),
                                       "column_partials"));
  }
  llvm::Value* flags = target.SharedArray(b, kBlock, 4, "column_valid");

  llvm::Value* tid = ThreadIndex64(k);
  llvm::Value* lane = b.CreateURem(tid, b.getInt64(kColumns));
  llvm::Value* row_lane = b.CreateUDiv(tid, b.getInt64(kColumns));
  llvm::Value* column = b.CreateAdd(
      b.CreateMul(BlockIndex64(k), b.getInt64(kColumns)), lane);
  llvm::Value* column_valid = b.CreateICmpULT(column, b.getInt64(columns));
  llvm::Value* end = b.CreateSelect(column_valid, b.getInt64(height),
                                    b.getInt64(0));
  // Rows row_lane, row_lane + 8, ... below `end`.
  llvm::Value* trips = b.CreateUDiv(
      b.CreateSub(b.CreateAdd(end, b.getInt64(kRowLanes - 1)),
                  b.CreateSelect(column_valid, row_lane, b.getInt64(0))),
      b.getInt64(kRowLanes));
  absl::Status s = EmitForLoop(
      b, b.getInt64(0), trips, "column", [&](llvm::Value* i) -> absl::Status {
        ElementalEmitter::Scope scope(emitter);
        llvm::Value* r =
            b.CreateAdd(row_lane, b.CreateMul(i, b.getInt64(kRowLanes)));
        Index input, output;
        ReductionIndices(b, shape, operand, column, r, input, output);
        return AddElements(k, reduces, *partials, input);
      });
  if (!s.ok()) return s;
  // Tile [row_lane][lane] of partials.
  // Every partial of a thread has seen the same elements: one flag.
  for (size_t r = 0; r < reduces.size(); ++r) {
    const Partial& partial = *partials->partials[r];
    b.CreateStore(partial.value(),
                  b.CreateGEP(partial.type(), tiles[r], {tid}));
  }
  b.CreateStore(b.CreateZExt(partials->partials[0]->valid(), b.getInt8Ty()),
                b.CreateGEP(b.getInt8Ty(), flags, {tid}));
  target.Barrier(b);
  s = EmitIf(
      k, b.CreateAnd(column_valid, b.CreateICmpEQ(row_lane, b.getInt64(0))),
      [&]() -> absl::Status {
        Index input, output;
        ReductionIndices(b, shape, operand, column, b.getInt64(0), input,
                         output);
        for (size_t q = 0; q < reduces.size(); ++q) {
          llvm::Type* type = partials->partials[q]->type();
          Partial total(k, reduces[q]->to_apply(), partials->inits[q]);
          for (int64_t r = 0; r < kRowLanes; ++r) {
            llvm::Value* at = b.CreateAdd(lane, b.getInt64(r * kColumns));
            llvm::Value* v =
                b.CreateLoad(type, b.CreateGEP(type, tiles[q], {at}));
            llvm::Value* f = b.CreateICmpNE(
                b.CreateLoad(b.getInt8Ty(),
                             b.CreateGEP(b.getInt8Ty(), flags, {at})),
                b.getInt8(0));
            if (absl::Status c = total.Combine(v, f); !c.ok()) return c;
          }
          absl::StatusOr<llvm::Value*> result =
              total.Finish(partials->inits[q]);
          if (!result.ok()) return result.status();
          k.outputs[q].EmitWrite(b, output, *result);
        }
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  return EndKernel(k, grid, kBlock, /*cooperative=*/true);
}

}  // namespace xlite::codegen::gpu
