// The tiled GEMM's main loop on Hopper's warpgroup tensor cores (sm_90a).
// The block's warpgroups (4 warps each) form a warps_m x warps_n grid;
// warpgroup (wy, wx) computes rows wy * 64 .. + 64 and columns wx * WN ..
// + WN of the block's tile (WN = block_n / warps_n) with one
// wgmma.mma_async m64nWNkK per K step of the instruction, both operands
// read by the tensor cores from the shared tiles through descriptors.
//
// Tiles hold what the tensor cores multiply (f16, bf16, tf32 as an f32
// rounded to nearest, s8, e4m3 and e5m2 for dots of two f8 operands; an
// f8 operand beside a 16-bit one converts exactly to f16 or bf16) in core
// matrices (codegen/gpu/wgmma_layout.h): K-major, or MN-major (wgmma's
// transposed operands) for 16-bit tiles of operands whose minor dimension
// is M or N, which cp.async then copies 16 bytes along M or N at a time. Writes
// to them, by stores or cp.async, are fenced for the async proxy before the
// barrier that precedes a multiply (tiled_gemm_kernel.cc,
// tiled_gemm_pipeline.cc).
//
// Per staged K step each warpgroup fences its accumulators, issues the
// step's wgmma-s and commits them as one group. On the multistage
// pipeline (tiled_gemm_pipeline.cc) it then waits until only that group
// is in flight, so the tensor cores run one step while the next is
// issued, and the pipeline refills a buffer only once the step before
// the last is done with it; elsewhere it waits for the group at once.
// Thread i of a warpgroup holds WN / 2 accumulators, in the layout
// codegen/kernel_target.h gives.

#include "codegen/gpu/kernel_emitter.h"
#include "codegen/gpu/tiled_gemm.h"
#include "codegen/gpu/wgmma_layout.h"
#include "codegen/scalar_ops.h"

namespace xlite::codegen::gpu::tiled_gemm {
namespace {}  // namespace

WgmmaKind WarpgroupKind(TensorCoreInput input, PrimitiveType storage) {
  if (storage == PrimitiveType::kF8E4M3FN) return WgmmaKind::kE4M3;
  if (storage == PrimitiveType::kF8E5M2) return WgmmaKind::kE5M2;
  switch (input) {
    case TensorCoreInput::kF16:
      return WgmmaKind::kF16;
    case TensorCoreInput::kBF16:
      return WgmmaKind::kBF16;
    case TensorCoreInput::kTF32:
      return WgmmaKind::kTF32;
    case TensorCoreInput::kS8:
      return WgmmaKind::kS8;
  }
  return WgmmaKind::kF16;
}

namespace {

// The warpgroup's place in the block and the thread's in its fragments.
struct GroupPlace {
  int64_t cols = 8;             // WN
  llvm::Value* row0 = nullptr;  // wy * 64
  llvm::Value* col0 = nullptr;  // wx * WN
  llvm::Value* warp = nullptr;  // the warp within the warpgroup
  llvm::Value* g = nullptr;     // lane / 4
  llvm::Value* t = nullptr;     // lane % 4
};

GroupPlace PlaceOf(llvm::IRBuilderBase& b, const TiledGemmConfig& c,
                   llvm::Value* tid) {
  GroupPlace p;
  p.cols = c.block_n / c.warps_n;
  llvm::Value* group = b.CreateUDiv(tid, b.getInt64(128));
  p.row0 =
      b.CreateMul(b.CreateUDiv(group, b.getInt64(c.warps_n)), b.getInt64(64));
  p.col0 = b.CreateMul(b.CreateURem(group, b.getInt64(c.warps_n)),
                       b.getInt64(p.cols));
  p.warp =
      b.CreateURem(b.CreateUDiv(tid, b.getInt64(kWarpSize)), b.getInt64(4));
  llvm::Value* lane = b.CreateURem(tid, b.getInt64(kWarpSize));
  p.g = b.CreateUDiv(lane, b.getInt64(4));
  p.t = b.CreateURem(lane, b.getInt64(4));
  return p;
}

// The descriptor of rows `row0` on (along M or N) of the side's tile in
// `buffer`, at the `step`-th 32 bytes of K (two core matrices along K).
llvm::Value* Descriptor(KernelScope& k, const Side& s, llvm::Value* buffer,
                        llvm::Value* row0, int64_t step) {
  llvm::IRBuilderBase& b = k.b;
  llvm::Value* address = k.target.SharedAddress(b, buffer);
  llvm::Value* offset = b.CreateAdd(
      b.CreateMul(b.CreateUDiv(row0, b.getInt64(8)), b.getInt64(s.core_sbo)),
      b.getInt64(step * 2 * s.core_lbo));
  address = b.CreateAdd(address, b.CreateTrunc(offset, b.getInt32Ty()));
  return WgmmaDescriptor(b, address, s.core_lbo, s.core_sbo);
}

// Writes the warpgroup's accumulators `acc` through the epilogue.
// Register r: row 16 warp + g + 8 ((r / 2) % 2), column 8 (r / 4) +
// 2 t + r % 2 of the warpgroup's tile.
absl::Status StoreAccumulators(KernelScope& k, const GemmView& v,
                               const HloInstruction* root,
                               const BlockOrigin& origin, const GroupPlace& p,
                               const std::vector<llvm::AllocaInst*>& acc) {
  llvm::IRBuilderBase& b = k.b;
  llvm::Value* m_thread = b.CreateAdd(
      origin.m0,
      b.CreateAdd(p.row0,
                  b.CreateAdd(b.CreateMul(p.warp, b.getInt64(16)), p.g)));
  llvm::Value* n_thread = b.CreateAdd(
      origin.n0, b.CreateAdd(p.col0, b.CreateMul(p.t, b.getInt64(2))));
  for (int64_t r = 0; r < p.cols / 2; ++r) {
    llvm::Value* m = b.CreateAdd(m_thread, b.getInt64(8 * ((r / 2) % 2)));
    llvm::Value* n = b.CreateAdd(n_thread, b.getInt64(8 * (r / 4) + r % 2));
    if (absl::Status st =
            StoreResult(k, v, root, origin.batch, m, n,
                        b.CreateLoad(acc[r]->getAllocatedType(), acc[r]));
        !st.ok()) {
      return st;
    }
  }
  return absl::OkStatus();
}

}  // namespace

WarpgroupTiles PrepareWarpgroupTiles(
    KernelScope& k, const GemmView& v, const TiledGemmConfig& c,
    TensorCoreInput input, const std::vector<TensorMapParam>& maps,
    const std::vector<llvm::Value*>& map_params, int64_t extra_bytes) {
  llvm::IRBuilderBase& b = k.b;
  WarpgroupTiles t{SideOf(v, /*lhs=*/true, c.block_m),
                   SideOf(v, /*lhs=*/false, c.block_n), TileLayoutOf(v, c)};
  Side& lhs = t.lhs;
  Side& rhs = t.rhs;
  const TileLayout& layout = t.layout;
  // A TMA tiling's tiles are 1024-byte aligned (the swizzle's period),
  // the extra bytes (mbarriers) after the rhs tiles (TiledGemmSharedBytes).
  const int64_t align = TiledGemmTakesTensorMaps(*v.dot, c) ? 1024 : 16;
  const int64_t total =
      c.stages * (layout.lhs_bytes + layout.rhs_bytes) + extra_bytes;
  t.lhs_storage = TileStorageType(*v.dot, /*lhs=*/true, input, c);
  t.rhs_storage = TileStorageType(*v.dot, /*lhs=*/false, input, c);
  PrepareTensorCoreSide(k, lhs, input, t.lhs_storage,
                        c.stages * layout.lhs_bytes, total, "gemm_lhs_tile",
                        align);
  PrepareTensorCoreSide(k, rhs, input, t.rhs_storage,
                        c.stages * layout.rhs_bytes + extra_bytes, total,
                        "gemm_rhs_tile", align);
  t.extra = b.CreateGEP(b.getInt8Ty(), rhs.shared,
                        {b.getInt64(c.stages * layout.rhs_bytes)});
  for (Side* s : {&lhs, &rhs}) {
    // MN-major where M or N is the operand's minor dimension (16-bit
    // types): 8 K rows of 8 elements along M or N per core matrix, the
    // core matrices along M or N adjacent; else K-major (f8 operands
    // whose minor dimension is M or N are transposed through registers).
    s->mn_major = WarpgroupTileIsMnMajor(
        s->operand, *s->k, s == &lhs ? t.lhs_storage : t.rhs_storage);
    s->core_sbo = s->mn_major ? kWgmmaCoreBytes
                              : WgmmaTileSbo(c.block_k, layout.element_bytes);
    s->core_lbo = s->mn_major ? s->tile / 8 * kWgmmaCoreBytes : kWgmmaCoreBytes;
  }
  PlanAsyncCopy(k, c, lhs);
  PlanAsyncCopy(k, c, rhs);
  if (maps.size() == 2 && map_params.size() == 2) {
    UseTensorMap(c, maps[0], map_params[0], lhs);
    UseTensorMap(c, maps[1], map_params[1], rhs);
  }
  return t;
}

WgmmaShape WarpgroupShape(const WarpgroupTiles& tiles, TensorCoreInput input,
                          int64_t n) {
  WgmmaShape shape;
  shape.kind = WarpgroupKind(input, tiles.lhs_storage);
  if (WarpgroupKind(input, tiles.rhs_storage) != shape.kind) {
    shape.kind_b = WarpgroupKind(input, tiles.rhs_storage);
  }
  shape.n = n;
  shape.trans_a = tiles.lhs.mn_major;
  shape.trans_b = tiles.rhs.mn_major;
  return shape;
}

llvm::Value* WarpgroupDescriptor(KernelScope& k, const TiledGemmConfig& c,
                                 const Side& s, llvm::Value* tile,
                                 llvm::Value* row0, int64_t step) {
  return s.tma.has_value() ? TmaDescriptor(k, c, s, tile, row0, step)
                           : Descriptor(k, s, tile, row0, step);
}

absl::Status EmitWgmmaGemm(KernelScope& k, const GemmView& v,
                           const TiledGemmConfig& c, TensorCoreInput input,
                           const HloInstruction* root,
                           const BlockOrigin& origin,
                           const std::vector<TensorMapParam>& maps,
                           const std::vector<llvm::Value*>& map_params) {
  llvm::IRBuilderBase& b = k.b;
  const bool tma_layout = TiledGemmTakesTensorMaps(*v.dot, c);
  WarpgroupTiles tiles = PrepareWarpgroupTiles(
      k, v, c, input, maps, map_params, tma_layout ? TmaBarrierBytes(c) : 0);
  Side& lhs = tiles.lhs;
  Side& rhs = tiles.rhs;
  const TileLayout& layout = tiles.layout;
  llvm::Value* barriers = tiles.extra;
  llvm::Value* tid = ThreadIndex64(k);
  const GroupPlace p = PlaceOf(b, c, tid);
  const WgmmaShape shape = WarpgroupShape(tiles, input, p.cols);
  // One wgmma covers 32 bytes of K.
  const int64_t steps = c.block_k * layout.element_bytes / 32;
  llvm::Type* acc_type = ValueType(v.acc, b.getContext());
  std::vector<llvm::AllocaInst*> acc;
  for (int64_t i = 0; i < p.cols / 2; ++i) {
    acc.push_back(EntryAlloca(b, acc_type));
    b.CreateStore(llvm::Constant::getNullValue(acc_type), acc.back());
  }
  // On the pipelined loop each step's group stays in flight until the
  // next step's wgmma-s are issued (wait_group 1); elsewhere it is waited
  // for at once (wait_group 0).
  const bool tma = lhs.tma.has_value();
  const int64_t in_flight = tma || PipelinesTiles(c, lhs, rhs) ? 1 : 0;
  // After the loop: wait for the last step's group, write the result.
  auto epilogue = [&]() -> absl::Status {
    if (in_flight != 0) {
      std::vector<llvm::Value*> d;
      for (llvm::AllocaInst* a : acc) d.push_back(b.CreateLoad(acc_type, a));
      d = k.target.WgmmaWait(b, 0, d);
      for (size_t i = 0; i < acc.size(); ++i) b.CreateStore(d[i], acc[i]);
    }
    return StoreAccumulators(k, v, root, origin, p, acc);
  };
  MultiplyStep multiply = [&](llvm::Value* a_tile, llvm::Value* b_tile) {
    std::vector<llvm::Value*> d;
    for (llvm::AllocaInst* a : acc) d.push_back(b.CreateLoad(acc_type, a));
    d = k.target.WgmmaFence(b, d);
    for (int64_t step = 0; step < steps; ++step) {
      d = k.target.Wgmma(
          b, shape, WarpgroupDescriptor(k, c, lhs, a_tile, p.row0, step),
          WarpgroupDescriptor(k, c, rhs, b_tile, p.col0, step), d);
    }
    k.target.WgmmaCommit(b);
    d = k.target.WgmmaWait(b, in_flight, d);
    for (size_t i = 0; i < acc.size(); ++i) b.CreateStore(d[i], acc[i]);
  };
  if (tma && c.ws == 1) {
    return EmitWarpSpecializedLoop(k, v, c, lhs, rhs, layout.lhs_bytes,
                                   layout.rhs_bytes, barriers, origin, tid,
                                   multiply, epilogue);
  }
  absl::Status s =
      tma ? EmitTmaPipelinedLoop(k, v, c, lhs, rhs, layout.lhs_bytes,
                                 layout.rhs_bytes, barriers, origin, tid,
                                 in_flight, multiply)
          : EmitMainLoop(k, v, c, lhs, rhs, layout.lhs_bytes, layout.rhs_bytes,
                         origin, tid, in_flight, multiply);
  if (!s.ok()) return s;
  return epilogue();
}

}  // namespace xlite::codegen::gpu::tiled_gemm
