// Row reduction: the reduced dimensions are the physically minor ones, so
// each output element reduces one contiguous row (a multi-output fusion of
// reduces alike: one walk feeds a partial per reduce). A warp reduces a row
// (lanes stride over it, then combine by shuffles down); rows shorter than
// a warp share one, a power-of-two group of lanes per row. Every lane of
// every warp reaches every shuffle (lanes past the last row carry empty
// partials), so no shuffle runs in divergent code.

#include <algorithm>

#include "codegen/gpu/kernels.h"
#include "codegen/gpu/reduction_common.h"
#include "codegen/loops.h"

namespace xlite::codegen::gpu {

namespace {
constexpr int64_t kBlock = 256;
}  // namespace

absl::StatusOr<LaunchDims> EmitRowReduction(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const ReductionShape& shape, const std::string& name,
    const std::vector<KernelParam>& params) {
  const std::vector<const HloInstruction*> reduces = ReducesOf(hlo);
  const HloInstruction* reduce = reduces.front();
  const Shape& operand = reduce->operand(0)->shape();
  const int64_t row_length = ProductOf(operand, shape.reduced);
  const int64_t rows = ProductOf(operand, shape.kept);
  const int64_t lanes_per_row =
      std::min<int64_t>(kWarpSize, PowerOfTwoAtLeast(std::max<int64_t>(row_length, 1)));
  const int64_t rows_per_block = kBlock / lanes_per_row;
  const int64_t grid = (rows + rows_per_block - 1) / rows_per_block;

  llvm::IRBuilder<> b(module.getContext());
  ElementalEmitter emitter(b, module);
  KernelScope k{target, module, nullptr, b, emitter, {}};
  if (absl::Status s = BeginKernel(k, hlo, name, params, kBlock); !s.ok()) {
    return s;
  }
  absl::StatusOr<Partials> partials = MakePartials(k, reduces);
  if (!partials.ok()) return partials.status();

  llvm::Value* tid = ThreadIndex64(k);
  llvm::Value* sub = b.CreateURem(tid, b.getInt64(lanes_per_row));
  llvm::Value* row = b.CreateAdd(
      b.CreateMul(BlockIndex64(k), b.getInt64(rows_per_block)),
      b.CreateUDiv(tid, b.getInt64(lanes_per_row)));
  llvm::Value* row_valid = b.CreateICmpULT(row, b.getInt64(rows));
  // Lanes of rows past the end run no iterations.
  llvm::Value* end = b.CreateSelect(row_valid, b.getInt64(row_length),
                                    b.getInt64(0));
  llvm::Value* trips = b.CreateUDiv(
      b.CreateSub(b.CreateAdd(end, b.getInt64(lanes_per_row - 1)),
                  b.CreateSelect(row_valid, sub, b.getInt64(0))),
      b.getInt64(lanes_per_row));
  absl::Status s = EmitForLoop(
      b, b.getInt64(0), trips, "row", [&](llvm::Value* i) -> absl::Status {
        ElementalEmitter::Scope scope(emitter);
        llvm::Value* j =
            b.CreateAdd(sub, b.CreateMul(i, b.getInt64(lanes_per_row)));
        Index input, output;
        ReductionIndices(b, shape, operand, row, j, input, output);
        return AddElements(k, reduces, *partials, input);
      });
  if (!s.ok()) return s;
  for (int64_t offset = lanes_per_row / 2; offset >= 1; offset /= 2) {
    for (const std::unique_ptr<Partial>& partial : partials->partials) {
      ElementalEmitter::Scope scope(emitter);
      absl::StatusOr<llvm::Value*> other = target.Shuffle(
          b, ShuffleKind::kDown, partial->value(), b.getInt32(offset));
      if (!other.ok()) return Unsupported(hlo, other.status().message());
      absl::StatusOr<llvm::Value*> other_valid = target.Shuffle(
          b, ShuffleKind::kDown, partial->valid(), b.getInt32(offset));
      if (!other_valid.ok()) return other_valid.status();
      if (absl::Status c = partial->Combine(*other, *other_valid); !c.ok()) {
        return c;
      }
    }
  }
  s = EmitIf(k, b.CreateAnd(row_valid, b.CreateICmpEQ(sub, b.getInt64(0))),
             [&]() -> absl::Status {
               Index input, output;
               ReductionIndices(b, shape, operand, row, b.getInt64(0), input,
                                output);
               for (size_t r = 0; r < reduces.size(); ++r) {
                 absl::StatusOr<llvm::Value*> result =
                     partials->partials[r]->Finish(partials->inits[r]);
                 if (!result.ok()) return result.status();
                 k.outputs[r].EmitWrite(b, output, *result);
               }
               return absl::OkStatus();
             });
  if (!s.ok()) return s;
  return EndKernel(k, grid, kBlock, /*cooperative=*/lanes_per_row > 1);
}

}  // namespace xlite::codegen::gpu
