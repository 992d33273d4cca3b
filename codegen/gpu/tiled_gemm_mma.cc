// The tiled GEMM's main loop on tensor cores. The block's warps form a
// warps_m x warps_n grid; warp (wy, wx) computes rows wy * WM .. + WM and
// columns wx * WN .. + WN of the block's tile (WM = block_m / warps_m,
// WN = block_n / warps_n) as (WM / 16) x (WN / 8) accumulator fragments
// of mma.sync m16n8kK (codegen/gpu/mma_fragments.h), each lane holding 4
// accumulators of each.
//
// The tiles hold the operands in the mma's input type (f16, bf16, tf32
// as an f32 rounded to 10 mantissa bits, s8), K-major: element (f, kk) at
// f * stride + kk, the stride padded by 16 bytes so that the 8 rows of
// 16 bytes one ldmatrix phase reads fall in different banks. Per K step
// of the block the warp loads the A fragments of its rows (one
// ldmatrix.x4 per 16 rows: the four registers) and the B fragments of its
// columns (one ldmatrix.x4 per 16 columns, x2 for a last 8), and runs
// every (row, column) mma.
//
// Numbers: f16 and bf16 products are exact in f32 and f8 operands convert
// to f16 (or bf16) exactly; f32 operands round to tf32 (nearest, ties to
// even, as XLA's reduce-precision) when the dot allows TF32, as cuBLASLt
// does for it; s8 sums are exact. The tensor cores' summation order is
// theirs, so results may differ from the evaluator's in the last bits.

#include "codegen/gpu/mma_fragments.h"
#include "codegen/gpu/tiled_gemm.h"
#include "codegen/scalar_ops.h"

namespace xlite::codegen::gpu::tiled_gemm {
namespace {

MmaKind KindOf(TensorCoreInput input) {
  switch (input) {
    case TensorCoreInput::kF16:
      return MmaKind::kF16;
    case TensorCoreInput::kBF16:
      return MmaKind::kBF16;
    case TensorCoreInput::kTF32:
      return MmaKind::kTF32;
    case TensorCoreInput::kS8:
      return MmaKind::kS8;
  }
  return MmaKind::kF16;
}

// f32 -> the nearest tf32 (ties to even, as XLA's reduce-precision to 10
// mantissa bits and cvt.rn.tf32.f32), kept as an f32; NaN stays a NaN
// whatever its payload.
llvm::Value* RoundToTf32(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Value* bits = b.CreateBitCast(x, b.getInt32Ty());
  llvm::Value* odd = b.CreateAnd(b.CreateLShr(bits, 13), b.getInt32(1));
  llvm::Value* rounded =
      b.CreateAnd(b.CreateAdd(bits, b.CreateAdd(b.getInt32(0xfff), odd)),
                  b.getInt32(0xffffe000u));
  llvm::Value* nan = b.CreateFCmpUNO(x, x);
  return b.CreateBitCast(b.CreateSelect(nan, b.getInt32(0x7fffe000), rounded),
                         b.getFloatTy());
}

// The warp's place in the block and the lane's in its fragments.
struct WarpPlace {
  int64_t rows = 16, cols = 8;  // WM, WN
  llvm::Value* row0 = nullptr;  // wy * WM
  llvm::Value* col0 = nullptr;  // wx * WN
  llvm::Value* g = nullptr;     // lane / 4
  llvm::Value* t = nullptr;     // lane % 4
  llvm::Value* lane = nullptr;
};

WarpPlace PlaceOf(llvm::IRBuilderBase& b, const TiledGemmConfig& c,
                  llvm::Value* tid) {
  WarpPlace p;
  p.rows = c.block_m / c.warps_m;
  p.cols = c.block_n / c.warps_n;
  llvm::Value* warp = b.CreateUDiv(tid, b.getInt64(kWarpSize));
  llvm::Value* lane = b.CreateURem(tid, b.getInt64(kWarpSize));
  p.row0 = b.CreateMul(b.CreateUDiv(warp, b.getInt64(c.warps_n)),
                       b.getInt64(p.rows));
  p.col0 = b.CreateMul(b.CreateURem(warp, b.getInt64(c.warps_n)),
                       b.getInt64(p.cols));
  p.g = b.CreateUDiv(lane, b.getInt64(4));
  p.t = b.CreateURem(lane, b.getInt64(4));
  p.lane = lane;
  return p;
}

// The address of element (f, kk) of the tile buffer at `buffer`.
llvm::Value* ElementAddress(llvm::IRBuilderBase& b, const Side& s,
                            llvm::Value* buffer, llvm::Value* f,
                            llvm::Value* kk) {
  llvm::Value* at = b.CreateAdd(b.CreateMul(f, b.getInt64(s.f_stride)), kk);
  return b.CreateGEP(s.type, buffer, at);
}

// One K step (mma K wide, at `kk0` of the tiles in the buffers at `a_tile`
// and `b_tile`) of the warp.
void MmaStep(KernelScope& k, MmaKind kind, const WarpPlace& p, const Side& lhs,
             const Side& rhs, llvm::Value* a_tile, llvm::Value* b_tile,
             int64_t kk0, std::vector<llvm::AllocaInst*>& acc,
             llvm::Type* acc_type) {
  llvm::IRBuilderBase& b = k.b;
  const int64_t tiles_m = p.rows / 16, tiles_n = p.cols / 8;
  // Every fragment register is word t of row g of an 8 x 16-byte matrix
  // of the K-major tile (mma_fragments.h): ldmatrix matrix m is the
  // register m, lane l giving row l % 8 of matrix l / 8.
  llvm::Value* m = b.CreateUDiv(p.lane, b.getInt64(8));
  llvm::Value* in_matrix = b.CreateURem(p.lane, b.getInt64(8));
  llvm::Value* half = b.CreateURem(m, b.getInt64(2));  // m % 2
  llvm::Value* pair = b.CreateUDiv(m, b.getInt64(2));  // m / 2
  std::vector<std::vector<llvm::Value*>> a(tiles_m), x(tiles_n);
  // A register r: rows 8 (r % 2) on, K columns (r / 2) K/2 on.
  llvm::Value* a_row = b.CreateAdd(
      p.row0,
      b.CreateAdd(in_matrix, b.CreateMul(half, b.getInt64(MmaARowOffset(1)))));
  llvm::Value* a_col =
      b.CreateAdd(b.getInt64(kk0),
                  b.CreateMul(pair, b.getInt64(MmaAColumnOffset(kind, 2))));
  for (int64_t i = 0; i < tiles_m; ++i) {
    llvm::Value* row = b.CreateAdd(a_row, b.getInt64(i * 16));
    a[i] = k.target.LdMatrix(b, 4, ElementAddress(b, lhs, a_tile, row, a_col));
  }
  // B register r of 8 columns: K rows r K/2 on; two column tiles per x4
  // (matrices 2 and 3 the second's), a last odd one by x2.
  llvm::Value* b_k = b.CreateAdd(
      b.getInt64(kk0), b.CreateMul(half, b.getInt64(MmaBRowOffset(kind, 1))));
  for (int64_t j = 0; j < tiles_n; j += 2) {
    const int64_t count = j + 1 < tiles_n ? 4 : 2;
    llvm::Value* tile = count == 4 ? pair : b.getInt64(0);
    llvm::Value* col = b.CreateAdd(
        p.col0,
        b.CreateAdd(in_matrix, b.CreateMul(b.CreateAdd(tile, b.getInt64(j)),
                                           b.getInt64(8))));
    std::vector<llvm::Value*> regs =
        k.target.LdMatrix(b, count, ElementAddress(b, rhs, b_tile, col, b_k));
    x[j] = {regs[0], regs[1]};
    if (count == 4) x[j + 1] = {regs[2], regs[3]};
  }
  for (int64_t i = 0; i < tiles_m; ++i) {
    for (int64_t j = 0; j < tiles_n; ++j) {
      std::vector<llvm::Value*> c;
      for (int64_t e = 0; e < 4; ++e) {
        c.push_back(b.CreateLoad(acc_type, acc[(i * tiles_n + j) * 4 + e]));
      }
      std::vector<llvm::Value*> d = k.target.Mma(b, kind, a[i], x[j], c);
      for (int64_t e = 0; e < 4; ++e) {
        b.CreateStore(d[e], acc[(i * tiles_n + j) * 4 + e]);
      }
    }
  }
}

}  // namespace

void PrepareTensorCoreSide(KernelScope& k, Side& s, TensorCoreInput input,
                           PrimitiveType to, int64_t bytes, int64_t total,
                           const char* name, int64_t alignment) {
  llvm::IRBuilderBase& b = k.b;
  s.type = ValueType(to, b.getContext());
  const PrimitiveType from = s.operand->shape().element_type();
  s.convert = [&b, from, to,
               input](llvm::Value* x) -> absl::StatusOr<llvm::Value*> {
    if (from == to && input != TensorCoreInput::kTF32) return x;
    absl::StatusOr<llvm::Value*> y = EmitConvert(b, from, to, x);
    if (!y.ok() || input != TensorCoreInput::kTF32) return y;
    return RoundToTf32(b, *y);
  };
  s.shared = TileArray(k, bytes, total, name, alignment);  // every stage
}

absl::Status EmitMmaGemm(KernelScope& k, const GemmView& v,
                         const TiledGemmConfig& c, TensorCoreInput input,
                         const HloInstruction* root,
                         const BlockOrigin& origin) {
  llvm::IRBuilderBase& b = k.b;
  const MmaKind kind = KindOf(input);
  const TileLayout layout = TileLayoutOf(v, c);
  Side lhs = SideOf(v, /*lhs=*/true, c.block_m);
  Side rhs = SideOf(v, /*lhs=*/false, c.block_n);
  const int64_t total = c.stages * (layout.lhs_bytes + layout.rhs_bytes);
  const PrimitiveType storage = TensorCoreStorageType(input);
  PrepareTensorCoreSide(k, lhs, input, storage, c.stages * layout.lhs_bytes,
                        total, "gemm_lhs_tile");
  PrepareTensorCoreSide(k, rhs, input, storage, c.stages * layout.rhs_bytes,
                        total, "gemm_rhs_tile");
  for (Side* s : {&lhs, &rhs}) {
    s->f_stride = layout.k_major_stride;  // K-major, padded rows
    s->k_stride = 1;
  }
  PlanAsyncCopy(k, c, lhs);
  PlanAsyncCopy(k, c, rhs);
  llvm::Value* tid = ThreadIndex64(k);
  const WarpPlace p = PlaceOf(b, c, tid);
  llvm::Type* acc_type = ValueType(v.acc, b.getContext());
  std::vector<llvm::AllocaInst*> acc;
  for (int64_t i = 0; i < (p.rows / 16) * (p.cols / 8) * 4; ++i) {
    acc.push_back(EntryAlloca(b, acc_type));
    b.CreateStore(llvm::Constant::getNullValue(acc_type), acc.back());
  }
  absl::Status s = EmitMainLoop(
      k, v, c, lhs, rhs, layout.lhs_bytes, layout.rhs_bytes, origin, tid,
      /*in_flight=*/0, [&](llvm::Value* a_tile, llvm::Value* b_tile) {
        for (int64_t kk0 = 0; kk0 < c.block_k; kk0 += MmaK(kind)) {
          MmaStep(k, kind, p, lhs, rhs, a_tile, b_tile, kk0, acc, acc_type);
        }
      });
  if (!s.ok()) return s;
  // Accumulator e of fragment (i, j): row g + 8 (e / 2), column 2t + e % 2.
  llvm::Value* m_lane = b.CreateAdd(origin.m0, b.CreateAdd(p.row0, p.g));
  llvm::Value* n_lane = b.CreateAdd(
      origin.n0, b.CreateAdd(p.col0, b.CreateMul(p.t, b.getInt64(2))));
  for (int64_t i = 0; i < p.rows / 16; ++i) {
    for (int64_t j = 0; j < p.cols / 8; ++j) {
      for (int64_t e = 0; e < 4; ++e) {
        llvm::Value* m =
            b.CreateAdd(m_lane, b.getInt64(i * 16 + MmaCRowOffset(e)));
        llvm::Value* n =
            b.CreateAdd(n_lane, b.getInt64(j * 8 + MmaCColumnOffset(e)));
        llvm::Value* value =
            b.CreateLoad(acc_type, acc[(i * (p.cols / 8) + j) * 4 + e]);
        if (absl::Status s = StoreResult(k, v, root, origin.batch, m, n, value);
            !s.ok()) {
          return s;
        }
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace xlite::codegen::gpu::tiled_gemm
