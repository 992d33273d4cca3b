// The tiled GEMM's main loop on Blackwell's tensor cores (tcgen05,
// sm_100a). The block is one warpgroup computing a 128 x block_n tile:
//   - warp 0 allocates the accumulator in tensor memory (block_n columns,
//     rounded up to a power of 2 from 32) and frees it at the end;
//   - the operand tiles are the warpgroup loop's (tiled_gemm_wgmma.cc:
//     core matrices, cp.async or TMA with the 128-byte swizzle), read by
//     the tensor cores through the same shared-memory descriptors plus
//     Blackwell's version bit (46);
//   - thread 0 alone issues each K step's tcgen05.mma-s (M = 128, N =
//     block_n, 32 bytes of K each) and commits them to an mbarrier: with
//     TMA it also drives the copies (EmitTcgen05TmaLoop) and the rest of
//     the block only waits for the final commit; otherwise the block
//     stages tiles as for wgmma (EmitMainLoop) and every thread waits for
//     each step's commit before its buffers are refilled;
//   - the epilogue: warp w reads rows 32 w .. 32 w + 31 (its lanes of
//     tensor memory), 16 columns at a time (tcgen05.ld 32x32b.x16), and
//     each thread writes its row's values through the fused consumers.

#include "codegen/gpu/kernel_emitter.h"
#include "codegen/gpu/tiled_gemm.h"
#include "codegen/loops.h"
#include "codegen/scalar_ops.h"

namespace xlite::codegen::gpu::tiled_gemm {
namespace {

// Columns the tcgen05.ld-s of the epilogue read at a time.
constexpr int64_t kLoadColumns = 16;

// The version field (bits 46-47) of Blackwell's shared-memory descriptors.
constexpr uint64_t kDescriptorVersion1 = uint64_t{1} << 46;

// The tensor-memory columns of a block_n accumulator.
int64_t TmemColumns(int64_t block_n) {
  int64_t columns = 32;
  while (columns < block_n) columns *= 2;
  return columns;
}

// The block's epilogue: the accumulator out of tensor memory at `tmem`
// (zeros when K is empty) into StoreResult.
absl::Status StoreFromTensorMemory(KernelScope& k, const GemmView& v,
                                   const TiledGemmConfig& c,
                                   const HloInstruction* root,
                                   const BlockOrigin& origin, llvm::Value* tid,
                                   llvm::Value* tmem) {
  llvm::IRBuilderBase& b = k.b;
  llvm::Value* warp = b.CreateUDiv(tid, b.getInt64(kWarpSize));
  llvm::Value* row = b.CreateAdd(b.CreateMul(warp, b.getInt64(kWarpSize)),
                                 b.CreateURem(tid, b.getInt64(kWarpSize)));
  llvm::Value* m = b.CreateAdd(origin.m0, row);
  llvm::Type* acc_type = ValueType(v.acc, b.getContext());
  // The warp's first lane, in the address's lane field.
  llvm::Value* lanes = b.CreateShl(
      b.CreateTrunc(b.CreateMul(warp, b.getInt64(kWarpSize)), b.getInt32Ty()),
      16);
  return EmitForLoop(
      b, b.getInt64(0), b.getInt64(c.block_n / kLoadColumns), "tmem_load",
      [&](llvm::Value* chunk) -> absl::Status {
        llvm::Value* column = b.CreateMul(chunk, b.getInt64(kLoadColumns));
        std::vector<llvm::Value*> values;
        if (v.k > 0) {
          llvm::Value* address = b.CreateAdd(
              tmem, b.CreateOr(lanes, b.CreateTrunc(column, b.getInt32Ty())));
          values = k.target.Tcgen05Load(b, address, kLoadColumns);
        }
        for (int64_t j = 0; j < kLoadColumns; ++j) {
          llvm::Value* acc = v.k > 0 ? b.CreateBitCast(values[j], acc_type)
                                     : llvm::Constant::getNullValue(acc_type);
          llvm::Value* n =
              b.CreateAdd(origin.n0, b.CreateAdd(column, b.getInt64(j)));
          if (absl::Status s = StoreResult(k, v, root, origin.batch, m, n, acc);
              !s.ok()) {
            return s;
          }
        }
        return absl::OkStatus();
      });
}

}  // namespace

absl::Status EmitTcgen05Gemm(KernelScope& k, const GemmView& v,
                             const TiledGemmConfig& c, TensorCoreInput input,
                             const HloInstruction* root,
                             const BlockOrigin& origin,
                             const std::vector<TensorMapParam>& maps,
                             const std::vector<llvm::Value*>& map_params) {
  llvm::IRBuilderBase& b = k.b;
  const int64_t extra_bytes =
      WarpgroupExtraBytes(c, TiledGemmTakesTensorMaps(*v.dot, c));
  WarpgroupTiles tiles =
      PrepareWarpgroupTiles(k, v, c, input, maps, map_params, extra_bytes);
  const Side& lhs = tiles.lhs;
  const Side& rhs = tiles.rhs;
  const bool tma = lhs.tma.has_value() && rhs.tma.has_value();
  // The extra bytes: mbarriers (with TMA: full, empty, then "done"; else
  // one), the tensor-memory address in the last 8.
  llvm::Value* barriers = tiles.extra;
  llvm::Value* done =
      b.CreateGEP(b.getInt8Ty(), barriers, {b.getInt64(16 * c.stages)});
  llvm::Value* slot =
      b.CreateGEP(b.getInt8Ty(), barriers, {b.getInt64(extra_bytes - 8)});
  llvm::Value* tid = ThreadIndex64(k);
  const int64_t columns = TmemColumns(c.block_n);
  if (absl::Status s = EmitIf(k, b.CreateICmpULT(tid, b.getInt64(kWarpSize)),
                              [&]() -> absl::Status {
                                k.target.TmemAlloc(b, slot, columns);
                                return absl::OkStatus();
                              });
      !s.ok()) {
    return s;
  }
  k.target.Tcgen05Fence(b, /*before=*/true);
  llvm::Value* step_barrier = tma ? done : barriers;
  if (absl::Status s = EmitIf(k, b.CreateICmpEQ(tid, b.getInt64(0)),
                              [&]() -> absl::Status {
                                k.target.MbarrierInit(b, step_barrier, 1);
                                return absl::OkStatus();
                              });
      !s.ok()) {
    return s;
  }
  k.target.Barrier(b);
  k.target.Tcgen05Fence(b, /*before=*/false);
  llvm::Value* tmem = b.CreateLoad(b.getInt32Ty(), slot);

  const WgmmaShape shape = WarpgroupShape(tiles, input, c.block_n);
  const int64_t steps = c.block_k * tiles.layout.element_bytes / 32;
  IssueStep issue = [&](llvm::Value* a_tile, llvm::Value* b_tile,
                        llvm::Value* first) {
    llvm::Value* zero = b.getInt64(0);
    for (int64_t step = 0; step < steps; ++step) {
      llvm::Value* desc_a =
          b.CreateOr(WarpgroupDescriptor(k, c, lhs, a_tile, zero, step),
                     b.getInt64(kDescriptorVersion1));
      llvm::Value* desc_b =
          b.CreateOr(WarpgroupDescriptor(k, c, rhs, b_tile, zero, step),
                     b.getInt64(kDescriptorVersion1));
      llvm::Value* accumulate = step > 0 ? b.getTrue() : b.CreateNot(first);
      k.target.Tcgen05Mma(b, shape, tmem, desc_a, desc_b, accumulate);
    }
  };
  absl::Status s;
  if (tma) {
    s = EmitTcgen05TmaLoop(k, v, c, lhs, rhs, tiles.layout.lhs_bytes,
                           tiles.layout.rhs_bytes, barriers, done, origin, tid,
                           issue);
    if (s.ok()) {
      k.target.MbarrierWait(b, done, b.getInt32(0));
      k.target.Tcgen05Fence(b, /*before=*/false);
    }
  } else {
    // Each step: thread 0 issues and commits; every thread waits for the
    // commit (phase `count`) before the loop refills the buffers.
    llvm::AllocaInst* count = EntryAlloca(b, b.getInt32Ty());
    b.CreateStore(b.getInt32(0), count);
    MultiplyStep multiply = [&](llvm::Value* a_tile, llvm::Value* b_tile) {
      llvm::Value* phase = b.CreateLoad(b.getInt32Ty(), count);
      absl::Status st =
          EmitIf(k, b.CreateICmpEQ(tid, b.getInt64(0)), [&]() -> absl::Status {
            k.target.Tcgen05Fence(b, /*before=*/false);
            issue(a_tile, b_tile, b.CreateICmpEQ(phase, b.getInt32(0)));
            k.target.Tcgen05Commit(b, step_barrier);
            return absl::OkStatus();
          });
      (void)st;
      k.target.MbarrierWait(b, step_barrier, b.CreateAnd(phase, 1));
      k.target.Tcgen05Fence(b, /*before=*/false);
      b.CreateStore(b.CreateAdd(phase, b.getInt32(1)), count);
    };
    s = EmitMainLoop(k, v, c, lhs, rhs, tiles.layout.lhs_bytes,
                     tiles.layout.rhs_bytes, origin, tid, /*in_flight=*/0,
                     multiply);
  }
  if (!s.ok()) return s;
  s = StoreFromTensorMemory(k, v, c, root, origin, tid, tmem);
  if (!s.ok()) return s;
  k.target.Tcgen05Fence(b, /*before=*/true);
  k.target.Barrier(b);
  return EmitIf(k, b.CreateICmpULT(tid, b.getInt64(kWarpSize)),
                [&]() -> absl::Status {
                  k.target.TmemDealloc(b, tmem, columns);
                  return absl::OkStatus();
                });
}

}  // namespace xlite::codegen::gpu::tiled_gemm
