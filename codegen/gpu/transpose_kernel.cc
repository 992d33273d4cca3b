// The tiled transpose: a fusion (or a lone transpose / layout-changing
// copy) whose result is a transpose "hero" that moves the physically minor
// dimension, possibly followed by elementwise consumers up to the root.
//
// The hero's operand and result, in their physical orders, are normalized
// by dropping size-1 dimensions and merging runs of dimensions that stay
// adjacent and in order; the normalized input dimensions are [.., a, .., c]
// with c the input's minor one and a the one that becomes the output's
// minor one; every other normalized dimension is a batch dimension. Each
// block takes one 32x32 tile of (a, c) of one batch element:
//   1. read:  thread (x, y) of the 32x8 block loads the hero's operand at
//      (a0 + y + 8r, c0 + x), r < 4 (consecutive threads: consecutive input
//      addresses), into a shared 32x33 tile (the pad column keeps the
//      transposed reads below free of bank conflicts);
//   2. barrier;
//   3. write: thread (x, y) takes tile[x][y + 8r], which is the hero at
//      (c0 + y + 8r, a0 + x), applies the elementwise consumers and writes
//      the root there (consecutive threads: consecutive output addresses).
// Tails past the sizes are masked on both sides. The producers of the
// hero's operand are fused in through the elemental emitter.
//
// As XLA's transpose emitter, only transposes whose two swapped dimensions
// are both at least 16, or both at least 8 with a product of at least
// 64 * 128, take this kernel; smaller ones stay with the loop kernel.

#include <algorithm>

#include "codegen/gpu/kernel_common.h"
#include "codegen/gpu/kernels.h"
#include "codegen/scalar_ops.h"
#include "hlo/ir/opcode.h"

namespace xlite::codegen::gpu {
namespace {

constexpr int64_t kTile = 32;
constexpr int64_t kRows = 8;  // threads along the tile's rows
constexpr int64_t kBlock = kTile * kRows;
constexpr int64_t kMinSide = 16;
constexpr int64_t kMinSideLarge = 8;
constexpr int64_t kMinLargeArea = 64 * 128;

// The hero's operand dimension that becomes result dimension `j`.
int64_t SourceDim(const HloInstruction* hero, int64_t j) {
  return hero->opcode() == HloOpcode::kTranspose ? hero->dimensions()[j] : j;
}

// Groups the hero's operand dimensions into normalized dimensions (major to
// minor, each a run of operand dimensions, major to minor); `order` gets
// the normalized dimensions in the result's physical order.
void Normalize(const HloInstruction* hero, const Shape& result,
               std::vector<std::vector<int64_t>>& runs,
               std::vector<int64_t>& order) {
  const Shape& in = hero->operand(0)->shape();
  const llvm::SmallVector<int64_t, 6> in_order = MajorToMinor(in);
  // Rank among the operand's non-trivial dimensions, physical order.
  std::vector<int64_t> rank_of(in.rank(), -1);
  std::vector<int64_t> dim_of_rank;
  for (int64_t d : in_order) {
    if (in.dimensions(d) == 1) continue;
    rank_of[d] = dim_of_rank.size();
    dim_of_rank.push_back(d);
  }
  std::vector<int64_t> sequence;  // operand ranks in result order
  for (int64_t j : MajorToMinor(result)) {
    const int64_t d = SourceDim(hero, j);
    if (rank_of[d] >= 0) sequence.push_back(rank_of[d]);
  }
  // Runs in result order: (first rank, length).
  std::vector<std::pair<int64_t, int64_t>> result_runs;
  for (int64_t r : sequence) {
    if (!result_runs.empty() &&
        result_runs.back().first + result_runs.back().second == r) {
      ++result_runs.back().second;
    } else {
      result_runs.push_back({r, 1});
    }
  }
  std::vector<std::pair<int64_t, int64_t>> input_runs = result_runs;
  std::sort(input_runs.begin(), input_runs.end());
  for (const auto& [first, length] : input_runs) {
    std::vector<int64_t> dims;
    for (int64_t r = first; r < first + length; ++r) {
      dims.push_back(dim_of_rank[r]);
    }
    runs.push_back(dims);
  }
  for (const auto& run : result_runs) {
    order.push_back(std::lower_bound(input_runs.begin(), input_runs.end(),
                                     run) -
                    input_runs.begin());
  }
}

// A transpose, or a copy that changes layout.
bool IsHeroCandidate(const HloInstruction* i) {
  return i->opcode() == HloOpcode::kTranspose ||
         (i->opcode() == HloOpcode::kCopy &&
          !(i->shape() == i->operand(0)->shape()));
}

bool LargeEnough(int64_t a, int64_t c) {
  return (a >= kMinSide && c >= kMinSide) ||
         (a >= kMinSideLarge && c >= kMinSideLarge && a * c >= kMinLargeArea);
}

}  // namespace

std::optional<TransposeTiling> TiledTransposeOf(const HloInstruction* hlo) {
  const HloInstruction* root = ComputedRoot(hlo);
  if (!hlo->shape().IsArray() || !root->shape().IsArray()) return std::nullopt;
  if (hlo->opcode() != HloOpcode::kFusion && !IsHeroCandidate(hlo)) {
    return std::nullopt;
  }
  std::optional<const HloInstruction*> hero =
      FindElementwiseHero(root, IsHeroCandidate);
  if (!hero.has_value()) return std::nullopt;
  TransposeTiling t;
  t.hero = *hero;
  std::vector<int64_t> order;
  Normalize(t.hero, hlo->shape(), t.runs, order);
  if (t.runs.size() < 2) return std::nullopt;
  t.c = t.runs.size() - 1;
  t.a = order.back();
  if (t.a == t.c) return std::nullopt;
  const Shape& in = t.hero->operand(0)->shape();
  for (const auto& run : t.runs) t.sizes.push_back(ProductOf(in, run));
  if (!LargeEnough(t.sizes[t.a], t.sizes[t.c])) return std::nullopt;
  for (int64_t k = 0; k < static_cast<int64_t>(t.runs.size()); ++k) {
    if (k != t.a && k != t.c) t.batch.push_back(k);
  }
  return t;
}

namespace {

// The hero's operand index at normalized coordinates `at`.
Index OperandIndex(llvm::IRBuilderBase& b, const TransposeTiling& t,
                   const std::vector<llvm::Value*>& at) {
  const Shape& in = t.hero->operand(0)->shape();
  Index index(in.rank(), b.getInt64(0));
  for (size_t k = 0; k < t.runs.size(); ++k) {
    DelinearizeInto(b, at[k], in, t.runs[k], index);
  }
  return index;
}

// The element of `tile` at (row, column) of the padded 32x33 layout.
llvm::Value* TileSlot(llvm::IRBuilderBase& b, llvm::Type* type,
                      llvm::Value* tile, llvm::Value* row,
                      llvm::Value* column) {
  llvm::Value* at =
      b.CreateAdd(b.CreateMul(row, b.getInt64(kTile + 1)), column);
  return b.CreateGEP(type, tile, {at});
}

}  // namespace

absl::StatusOr<LaunchDims> EmitTransposeKernel(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const TransposeTiling& t, const std::string& name,
    const std::vector<KernelParam>& params) {
  const HloInstruction* root = ComputedRoot(hlo);
  const Shape& in = t.hero->operand(0)->shape();
  const int64_t tiles_a = (t.sizes[t.a] + kTile - 1) / kTile;
  const int64_t tiles_c = (t.sizes[t.c] + kTile - 1) / kTile;
  int64_t batches = 1;
  for (int64_t k : t.batch) batches *= t.sizes[k];
  const int64_t grid = batches * tiles_a * tiles_c;

  llvm::IRBuilder<> b(module.getContext());
  ElementalEmitter emitter(b, module);
  KernelScope k{target, module, nullptr, b, emitter, {}};
  if (absl::Status s = BeginKernel(k, hlo, name, params, kBlock); !s.ok()) {
    return s;
  }
  llvm::Type* type = ValueType(in.element_type(), module.getContext());
  const int64_t type_bytes =
      module.getDataLayout().getTypeAllocSize(type).getFixedValue();
  llvm::Value* tile =
      target.SharedArray(b, kTile * (kTile + 1) * type_bytes,
                         std::max<int64_t>(type_bytes, 4), "transpose_tile");

  llvm::Value* block = BlockIndex64(k);
  llvm::Value* tid = ThreadIndex64(k);
  llvm::Value* x = b.CreateURem(tid, b.getInt64(kTile));
  llvm::Value* y = b.CreateUDiv(tid, b.getInt64(kTile));
  llvm::Value* c0 = b.CreateMul(b.CreateURem(block, b.getInt64(tiles_c)),
                                b.getInt64(kTile));
  llvm::Value* rest = b.CreateUDiv(block, b.getInt64(tiles_c));
  llvm::Value* a0 = b.CreateMul(b.CreateURem(rest, b.getInt64(tiles_a)),
                                b.getInt64(kTile));
  llvm::Value* batch = b.CreateUDiv(rest, b.getInt64(tiles_a));
  std::vector<llvm::Value*> at(t.runs.size(), nullptr);
  for (int64_t i = static_cast<int64_t>(t.batch.size()) - 1; i >= 0; --i) {
    const int64_t size = t.sizes[t.batch[i]];
    at[t.batch[i]] = i == 0 ? batch : b.CreateURem(batch, b.getInt64(size));
    batch = b.CreateUDiv(batch, b.getInt64(size));
  }
  llvm::Value* size_a = b.getInt64(t.sizes[t.a]);
  llvm::Value* size_c = b.getInt64(t.sizes[t.c]);

  // 1. The operand's tile, read along c.
  for (int64_t r = 0; r < kTile / kRows; ++r) {
    llvm::Value* row = b.CreateAdd(y, b.getInt64(r * kRows));
    at[t.a] = b.CreateAdd(a0, row);
    at[t.c] = b.CreateAdd(c0, x);
    absl::Status s = EmitIf(
        k,
        b.CreateAnd(b.CreateICmpULT(at[t.a], size_a),
                    b.CreateICmpULT(at[t.c], size_c)),
        [&]() -> absl::Status {
          absl::StatusOr<llvm::Value*> v =
              emitter.ValueAt(t.hero->operand(0), -1, OperandIndex(b, t, at));
          if (!v.ok()) return v.status();
          b.CreateStore(*v, TileSlot(b, type, tile, row, x));
          return absl::OkStatus();
        });
    if (!s.ok()) return s;
  }
  target.Barrier(b);
  // 3. The result's tile, written along a.
  for (int64_t r = 0; r < kTile / kRows; ++r) {
    llvm::Value* row = b.CreateAdd(y, b.getInt64(r * kRows));
    at[t.a] = b.CreateAdd(a0, x);
    at[t.c] = b.CreateAdd(c0, row);
    absl::Status s = EmitIf(
        k,
        b.CreateAnd(b.CreateICmpULT(at[t.a], size_a),
                    b.CreateICmpULT(at[t.c], size_c)),
        [&]() -> absl::Status {
          llvm::Value* v =
              b.CreateLoad(type, TileSlot(b, type, tile, x, row));
          const Index operand_index = OperandIndex(b, t, at);
          Index index(root->shape().rank(), nullptr);
          for (int64_t j = 0; j < root->shape().rank(); ++j) {
            index[j] = operand_index[SourceDim(t.hero, j)];
          }
          emitter.Bind(t.hero, -1, [v](const Index&) { return v; });
          absl::StatusOr<llvm::Value*> out = emitter.ValueAt(root, -1, index);
          if (!out.ok()) return out.status();
          k.outputs[0].EmitWrite(b, index, *out);
          return absl::OkStatus();
        });
    if (!s.ok()) return s;
  }
  return EndKernel(k, grid, kBlock, /*cooperative=*/true);
}

}  // namespace xlite::codegen::gpu
