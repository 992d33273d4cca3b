// The tiled GEMM kernel: a fusion marked as a tiled GEMM
// (hlo/ir/tiled_gemm_config.h) whose root reaches one dot through
// elementwise instructions of the dot's dimensions (its epilogue).
//
// The dot is viewed as batch x (M x K) . (K x N): M runs over the lhs's
// free dimensions, N over the rhs's, K over the contracting ones and the
// batch over the batch dimensions, each linearized in dimension-number
// order. Block g computes one block_m x block_n tile of one batch element
// (g = (batch * tiles_m + tile_m) * tiles_n + tile_n); its threads form a
// (block_m / thread_m) x (block_n / thread_n) grid, thread (ty, tx)
// accumulating rows ty + i * (block_m / thread_m) and columns
// tx + j * (block_n / thread_n) (i < thread_m, j < thread_n) in registers,
// in the contraction's accumulation type (f32 for 16- and 32-bit floats,
// s32 for s8), with the same products in the same K order as the
// evaluator. Per step of block_k:
//   1. the block loads the lhs tile (block_k x block_m) and the rhs tile
//      (block_k x block_n) into shared memory, each element through the
//      fused producers (the elemental generator of the dot's operand) and
//      converted to the accumulation type; consecutive threads take
//      consecutive elements along the operand's physically minor dimension
//      when that is a K or free dimension; out-of-range elements (tails of
//      M, N or K) are zero;
//   2. barrier; each thread multiplies its sub-tile from shared memory;
//      barrier.
// Finally each thread rounds its accumulators to the dot's type, gives
// them to the elemental emitter as the dot's values and writes the root's
// value (the epilogue: bias, activation, convert) at in-range indices.
//
// Missing, for later slices: tensor cores (mma.sync / wgmma), cp.async or
// TMA pipelining, split-K and vectorized loads.

#include <algorithm>

#include "codegen/contraction_arithmetic.h"
#include "codegen/gpu/kernel_common.h"
#include "codegen/gpu/kernels.h"
#include "codegen/loops.h"
#include "codegen/scalar_ops.h"
#include "hlo/ir/opcode.h"
#include "hlo/ir/tiled_gemm_config.h"

namespace xlite::codegen::gpu {
namespace {

// The dimension numbers of one side, and of the dot's result.
struct GemmView {
  const HloInstruction* dot = nullptr;
  std::vector<int64_t> lhs_batch, rhs_batch, lhs_k, rhs_k, lhs_free, rhs_free,
      out_batch, out_m, out_n;
  int64_t batch = 1, m = 1, n = 1, k = 1;
  PrimitiveType acc = PrimitiveType::kF32;
};

GemmView ViewOf(const HloInstruction* dot) {
  GemmView v;
  v.dot = dot;
  const DotDimensionNumbers& d = dot->attrs().dot->dnums;
  const Shape& ls = dot->operand(0)->shape();
  const Shape& rs = dot->operand(1)->shape();
  v.lhs_batch = d.lhs_batch_dimensions;
  v.rhs_batch = d.rhs_batch_dimensions;
  v.lhs_k = d.lhs_contracting_dimensions;
  v.rhs_k = d.rhs_contracting_dimensions;
  v.lhs_free = DotFreeDimensions(ls.rank(), v.lhs_batch, v.lhs_k);
  v.rhs_free = DotFreeDimensions(rs.rank(), v.rhs_batch, v.rhs_k);
  int64_t o = 0;
  for (size_t i = 0; i < v.lhs_batch.size(); ++i) v.out_batch.push_back(o++);
  for (size_t i = 0; i < v.lhs_free.size(); ++i) v.out_m.push_back(o++);
  for (size_t i = 0; i < v.rhs_free.size(); ++i) v.out_n.push_back(o++);
  v.batch = ProductOf(ls, v.lhs_batch);
  v.m = ProductOf(ls, v.lhs_free);
  v.n = ProductOf(rs, v.rhs_free);
  v.k = ProductOf(ls, v.lhs_k);
  v.acc = ContractionAccumulationType(ls.element_type(), rs.element_type(),
                                      dot->shape().element_type());
  return v;
}

// One operand's side of the view: its dimensions and the tile it loads.
struct Side {
  const HloInstruction* operand;
  const std::vector<int64_t>* batch;
  const std::vector<int64_t>* free;
  const std::vector<int64_t>* k;
  int64_t free_size;  // M or N
  int64_t tile;       // block_m or block_n
  llvm::Value* shared;
};

// Whether the operand's physically minor dimension (ignoring size 1) is a
// contracting one: then threads walk K fastest while loading.
bool KIsMinor(const Side& s) {
  const Shape& shape = s.operand->shape();
  const llvm::SmallVector<int64_t, 6> order = MajorToMinor(shape);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (shape.dimensions(*it) == 1) continue;
    return std::find(s.k->begin(), s.k->end(), *it) != s.k->end();
  }
  return false;
}

// Step 1 for one side: tile[kk * tile + f] = operand at (batch, f0 + f,
// k0 + kk) in the accumulation type, or zero past the sizes.
absl::Status LoadTile(KernelScope& k, const GemmView& v, const Side& s,
                      const TiledGemmConfig& c, llvm::Value* tid,
                      llvm::Value* batch, llvm::Value* f0, llvm::Value* k0) {
  llvm::IRBuilderBase& b = k.b;
  llvm::Type* type = ValueType(v.acc, b.getContext());
  const int64_t elements = s.tile * c.block_k;
  const int64_t threads = c.threads();
  const bool k_minor = KIsMinor(s);
  const Shape& shape = s.operand->shape();
  for (int64_t r = 0; r * threads < elements; ++r) {
    llvm::Value* e = b.CreateAdd(tid, b.getInt64(r * threads));
    auto load = [&]() -> absl::Status {
      llvm::Value* kk = k_minor ? b.CreateURem(e, b.getInt64(c.block_k))
                                : b.CreateUDiv(e, b.getInt64(s.tile));
      llvm::Value* f = k_minor ? b.CreateUDiv(e, b.getInt64(c.block_k))
                               : b.CreateURem(e, b.getInt64(s.tile));
      llvm::Value* slot =
          b.CreateGEP(type, s.shared,
                      {b.CreateAdd(b.CreateMul(kk, b.getInt64(s.tile)), f)});
      b.CreateStore(llvm::Constant::getNullValue(type), slot);
      llvm::Value* fg = b.CreateAdd(f0, f);
      llvm::Value* kg = b.CreateAdd(k0, kk);
      return EmitIf(k,
                    b.CreateAnd(b.CreateICmpULT(fg, b.getInt64(s.free_size)),
                                b.CreateICmpULT(kg, b.getInt64(v.k))),
                    [&]() -> absl::Status {
                      Index index(shape.rank(), nullptr);
                      DelinearizeInto(b, batch, shape, *s.batch, index);
                      DelinearizeInto(b, fg, shape, *s.free, index);
                      DelinearizeInto(b, kg, shape, *s.k, index);
                      absl::StatusOr<llvm::Value*> x =
                          k.emitter.ValueAt(s.operand, -1, index);
                      if (!x.ok()) return x.status();
                      absl::StatusOr<llvm::Value*> converted =
                          EmitConvert(b, shape.element_type(), v.acc, *x);
                      if (!converted.ok()) return converted.status();
                      b.CreateStore(*converted, slot);
                      return absl::OkStatus();
                    });
    };
    absl::Status s_status =
        (r + 1) * threads <= elements
            ? load()
            : EmitIf(k, b.CreateICmpULT(e, b.getInt64(elements)), load);
    if (!s_status.ok()) return s_status;
  }
  return absl::OkStatus();
}

// Step 2: acc[i][j] += a[kk][row i] * b[kk][column j] for every kk.
void MultiplyTiles(KernelScope& k, const GemmView& v, const TiledGemmConfig& c,
                   const Side& lhs, const Side& rhs, llvm::Value* ty,
                   llvm::Value* tx, const std::vector<llvm::AllocaInst*>& acc) {
  llvm::IRBuilderBase& b = k.b;
  llvm::Type* type = ValueType(v.acc, b.getContext());
  const int64_t rows = c.block_m / c.thread_m;
  const int64_t cols = c.block_n / c.thread_n;
  for (int64_t kk = 0; kk < c.block_k; ++kk) {
    std::vector<llvm::Value*> a(c.thread_m), x(c.thread_n);
    for (int64_t i = 0; i < c.thread_m; ++i) {
      llvm::Value* at = b.CreateAdd(ty, b.getInt64(kk * c.block_m + i * rows));
      a[i] = b.CreateLoad(type, b.CreateGEP(type, lhs.shared, {at}));
    }
    for (int64_t j = 0; j < c.thread_n; ++j) {
      llvm::Value* at = b.CreateAdd(tx, b.getInt64(kk * c.block_n + j * cols));
      x[j] = b.CreateLoad(type, b.CreateGEP(type, rhs.shared, {at}));
    }
    for (int64_t i = 0; i < c.thread_m; ++i) {
      for (int64_t j = 0; j < c.thread_n; ++j) {
        llvm::AllocaInst* slot = acc[i * c.thread_n + j];
        b.CreateStore(EmitMultiplyAccumulate(b, v.acc, b.CreateLoad(type, slot),
                                             a[i], x[j]),
                      slot);
      }
    }
  }
}

// The epilogue: each in-range accumulator rounded, given to the elemental
// emitter as the dot's value, and the root written there.
absl::Status StoreResults(KernelScope& k, const GemmView& v,
                          const TiledGemmConfig& c, const HloInstruction* root,
                          llvm::Value* batch, llvm::Value* m0, llvm::Value* n0,
                          llvm::Value* ty, llvm::Value* tx,
                          const std::vector<llvm::AllocaInst*>& acc) {
  llvm::IRBuilderBase& b = k.b;
  llvm::Type* type = ValueType(v.acc, b.getContext());
  const Shape& out = v.dot->shape();
  const PrimitiveType lt = v.dot->operand(0)->shape().element_type();
  const PrimitiveType rt = v.dot->operand(1)->shape().element_type();
  for (int64_t i = 0; i < c.thread_m; ++i) {
    llvm::Value* m = b.CreateAdd(
        m0, b.CreateAdd(ty, b.getInt64(i * (c.block_m / c.thread_m))));
    for (int64_t j = 0; j < c.thread_n; ++j) {
      llvm::Value* n = b.CreateAdd(
          n0, b.CreateAdd(tx, b.getInt64(j * (c.block_n / c.thread_n))));
      absl::Status s =
          EmitIf(k,
                 b.CreateAnd(b.CreateICmpULT(m, b.getInt64(v.m)),
                             b.CreateICmpULT(n, b.getInt64(v.n))),
                 [&]() -> absl::Status {
                   Index index(out.rank(), nullptr);
                   DelinearizeInto(b, batch, out, v.out_batch, index);
                   DelinearizeInto(b, m, out, v.out_m, index);
                   DelinearizeInto(b, n, out, v.out_n, index);
                   absl::StatusOr<llvm::Value*> value = EmitRoundAccumulated(
                       b, v.acc, lt, rt, out.element_type(),
                       b.CreateLoad(type, acc[i * c.thread_n + j]));
                   if (!value.ok()) return value.status();
                   k.emitter.Provide(v.dot, -1, index, *value);
                   absl::StatusOr<llvm::Value*> result =
                       k.emitter.ValueAt(root, -1, index);
                   if (!result.ok()) return result.status();
                   k.outputs[0].EmitWrite(b, index, *result);
                   return absl::OkStatus();
                 });
      if (!s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool IsTiledGemmKernel(const HloInstruction* hlo) {
  return IsTiledGemmFusion(*hlo);
}

absl::StatusOr<LaunchDims> EmitTiledGemmKernel(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params) {
  const std::optional<TiledGemmConfig> config = TiledGemmConfigOf(*hlo);
  if (!config.has_value()) return Unsupported(hlo, "an invalid GEMM tiling");
  const TiledGemmConfig& c = *config;
  const HloInstruction* root = ComputedRoot(hlo);
  std::optional<const HloInstruction*> dot =
      hlo->shape().IsArray()
          ? FindElementwiseHero(root,
                                [](const HloInstruction* i) {
                                  return i->opcode() == HloOpcode::kDot;
                                })
          : std::nullopt;
  if (!dot.has_value()) {
    return Unsupported(hlo,
                       "a tiled GEMM fusion that is not one dot followed "
                       "by elementwise instructions");
  }
  const GemmView v = ViewOf(*dot);
  if (IsComplex(v.acc) || v.acc == PrimitiveType::kPred) {
    return Unsupported(*dot, "a tiled GEMM of this element type");
  }
  const int64_t tiles_m = (v.m + c.block_m - 1) / c.block_m;
  const int64_t tiles_n = (v.n + c.block_n - 1) / c.block_n;
  const int64_t k_tiles = (v.k + c.block_k - 1) / c.block_k;
  const int64_t grid = v.batch * tiles_m * tiles_n;
  const int64_t threads = c.threads();

  llvm::IRBuilder<> b(module.getContext());
  ElementalEmitter emitter(b, module);
  KernelScope k{target, module, nullptr, b, emitter, {}};
  if (absl::Status s = BeginKernel(k, hlo, name, params, threads); !s.ok()) {
    return s;
  }
  llvm::Type* type = ValueType(v.acc, module.getContext());
  const int64_t bytes =
      module.getDataLayout().getTypeAllocSize(type).getFixedValue();
  Side lhs{(*dot)->operand(0), &v.lhs_batch, &v.lhs_free, &v.lhs_k, v.m,
           c.block_m,          nullptr};
  Side rhs{(*dot)->operand(1), &v.rhs_batch, &v.rhs_free, &v.rhs_k, v.n,
           c.block_n,          nullptr};
  lhs.shared =
      target.SharedArray(b, c.block_k * c.block_m * bytes, 16, "gemm_lhs_tile");
  rhs.shared =
      target.SharedArray(b, c.block_k * c.block_n * bytes, 16, "gemm_rhs_tile");
  llvm::Value* tid = ThreadIndex64(k);
  llvm::Value* block = BlockIndex64(k);
  llvm::Value* tx = b.CreateURem(tid, b.getInt64(c.block_n / c.thread_n));
  llvm::Value* ty = b.CreateUDiv(tid, b.getInt64(c.block_n / c.thread_n));
  llvm::Value* n0 = b.CreateMul(b.CreateURem(block, b.getInt64(tiles_n)),
                                b.getInt64(c.block_n));
  llvm::Value* rest = b.CreateUDiv(block, b.getInt64(tiles_n));
  llvm::Value* m0 = b.CreateMul(b.CreateURem(rest, b.getInt64(tiles_m)),
                                b.getInt64(c.block_m));
  llvm::Value* batch = b.CreateUDiv(rest, b.getInt64(tiles_m));
  std::vector<llvm::AllocaInst*> acc;
  for (int64_t i = 0; i < c.thread_m * c.thread_n; ++i) {
    acc.push_back(EntryAlloca(b, type));
    b.CreateStore(llvm::Constant::getNullValue(type), acc.back());
  }
  absl::Status s = EmitForLoop(
      b, b.getInt64(0), b.getInt64(k_tiles), "k_tile",
      [&](llvm::Value* kt) -> absl::Status {
        ElementalEmitter::Scope scope(emitter);
        llvm::Value* k0 = b.CreateMul(kt, b.getInt64(c.block_k));
        if (absl::Status s = LoadTile(k, v, lhs, c, tid, batch, m0, k0);
            !s.ok()) {
          return s;
        }
        if (absl::Status s = LoadTile(k, v, rhs, c, tid, batch, n0, k0);
            !s.ok()) {
          return s;
        }
        target.Barrier(b);
        MultiplyTiles(k, v, c, lhs, rhs, ty, tx, acc);
        target.Barrier(b);
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  if (absl::Status s = StoreResults(k, v, c, root, batch, m0, n0, ty, tx, acc);
      !s.ok()) {
    return s;
  }
  return EndKernel(k, grid, threads, /*cooperative=*/true);
}

}  // namespace xlite::codegen::gpu
