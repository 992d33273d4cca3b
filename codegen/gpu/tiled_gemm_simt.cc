// The tiled GEMM's main loop on CUDA cores: the block's threads form a
// (block_m / thread_m) x (block_n / thread_n) grid, thread (ty, tx)
// accumulating rows ty + i * (block_m / thread_m) and columns
// tx + j * (block_n / thread_n) (i < thread_m, j < thread_n) in registers,
// in the contraction's accumulation type, with the same products in the
// same K order as the evaluator. The tiles hold K-major rows of the
// accumulation type: element (f, kk) at kk * tile + f.

#include "codegen/contraction_arithmetic.h"
#include "codegen/gpu/tiled_gemm.h"
#include "codegen/scalar_ops.h"

namespace xlite::codegen::gpu::tiled_gemm {
namespace {

// acc[i][j] += a[kk][row i] * b[kk][column j] for every kk of the step.
void MultiplyTiles(KernelScope& k, const GemmView& v, const TiledGemmConfig& c,
                   llvm::Type* type, llvm::Value* lhs, llvm::Value* rhs,
                   llvm::Value* ty, llvm::Value* tx,
                   const std::vector<llvm::AllocaInst*>& acc) {
  llvm::IRBuilderBase& b = k.b;
  const int64_t rows = c.block_m / c.thread_m;
  const int64_t cols = c.block_n / c.thread_n;
  for (int64_t kk = 0; kk < c.block_k; ++kk) {
    std::vector<llvm::Value*> a(c.thread_m), x(c.thread_n);
    for (int64_t i = 0; i < c.thread_m; ++i) {
      llvm::Value* at = b.CreateAdd(ty, b.getInt64(kk * c.block_m + i * rows));
      a[i] = b.CreateLoad(type, b.CreateGEP(type, lhs, {at}));
    }
    for (int64_t j = 0; j < c.thread_n; ++j) {
      llvm::Value* at = b.CreateAdd(tx, b.getInt64(kk * c.block_n + j * cols));
      x[j] = b.CreateLoad(type, b.CreateGEP(type, rhs, {at}));
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

}  // namespace

absl::Status EmitSimtGemm(KernelScope& k, const GemmView& v,
                          const TiledGemmConfig& c, const HloInstruction* root,
                          const BlockOrigin& origin) {
  llvm::IRBuilderBase& b = k.b;
  llvm::Type* type = ValueType(v.acc, b.getContext());
  const TileLayout layout = TileLayoutOf(v, c);
  Side lhs = SideOf(v, /*lhs=*/true, c.block_m);
  Side rhs = SideOf(v, /*lhs=*/false, c.block_n);
  for (Side* s : {&lhs, &rhs}) {
    s->type = type;
    s->k_stride = s->tile;
    const PrimitiveType from = s->operand->shape().element_type();
    s->convert = [&b, from, &v](llvm::Value* x) {
      return EmitConvert(b, from, v.acc, x);
    };
  }
  const int64_t total = c.stages * (layout.lhs_bytes + layout.rhs_bytes);
  lhs.shared =
      TileArray(k, c.stages * layout.lhs_bytes, total, "gemm_lhs_tile");
  rhs.shared =
      TileArray(k, c.stages * layout.rhs_bytes, total, "gemm_rhs_tile");
  llvm::Value* tid = ThreadIndex64(k);
  llvm::Value* tx = b.CreateURem(tid, b.getInt64(c.block_n / c.thread_n));
  llvm::Value* ty = b.CreateUDiv(tid, b.getInt64(c.block_n / c.thread_n));
  std::vector<llvm::AllocaInst*> acc;
  for (int64_t i = 0; i < c.thread_m * c.thread_n; ++i) {
    acc.push_back(EntryAlloca(b, type));
    b.CreateStore(llvm::Constant::getNullValue(type), acc.back());
  }
  absl::Status s = EmitMainLoop(
      k, v, c, lhs, rhs, layout.lhs_bytes, layout.rhs_bytes, origin, tid,
      /*in_flight=*/0, [&](llvm::Value* a, llvm::Value* x) {
        MultiplyTiles(k, v, c, type, a, x, ty, tx, acc);
      });
  if (!s.ok()) return s;
  for (int64_t i = 0; i < c.thread_m; ++i) {
    llvm::Value* m = b.CreateAdd(
        origin.m0, b.CreateAdd(ty, b.getInt64(i * (c.block_m / c.thread_m))));
    for (int64_t j = 0; j < c.thread_n; ++j) {
      llvm::Value* n = b.CreateAdd(
          origin.n0, b.CreateAdd(tx, b.getInt64(j * (c.block_n / c.thread_n))));
      if (absl::Status s =
              StoreResult(k, v, root, origin.batch, m, n,
                          b.CreateLoad(type, acc[i * c.thread_n + j]));
          !s.ok()) {
        return s;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace xlite::codegen::gpu::tiled_gemm
