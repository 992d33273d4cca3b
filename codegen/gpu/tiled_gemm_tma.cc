// TMA for the tiled GEMM's warpgroup pipeline (sm_90a): each operand tile
// arrives by cp.async.bulk.tensor from a tensor map over the operand's
// parameter, issued by one thread and completing on the stage's mbarrier,
// instead of 16-byte cp.async-s from every thread.
//
// Layout (the 128-byte swizzle both TMA and wgmma apply: the 16-byte
// chunk at shared address a lives at a ^ ((a >> 7) & 7) << 4, so tiles
// are 1024-byte aligned):
//   - K-major: the tile is block_k * bytes / 128 column blocks, each one
//     box of `tile` rows of 128 bytes of K, 8 rows (1024 bytes) per core
//     group: wgmma descriptors have SBO = 1024 (LBO unused), and a wgmma
//     K step of 32 bytes starts 32 bytes further into the row;
//   - MN-major (16-bit types whose minor dimension is M or N): the tile is
//     tile / 64 blocks, each one box of block_k rows (along K) of 64
//     elements of M or N: LBO = block_k * 128 between the blocks, SBO =
//     1024 between groups of 8 K rows.
// The tensor map views the operand with its dimensions innermost first
// (its physical order), the box 128 bytes along the minor one, the rest
// of the tile along the other free or K dimension and 1 along batch
// dimensions; elements past the operand arrive as zeros (masked tails).

#include "codegen/gpu/tiled_gemm.h"
#include "codegen/gpu/wgmma_layout.h"
#include "codegen/loops.h"
#include "codegen/scalar_ops.h"

namespace xlite::codegen::gpu::tiled_gemm {
namespace {

constexpr int64_t kSwizzleBytes = 128;
constexpr int64_t kSwizzleAtom = 1024;  // 8 rows of 128 bytes

// The operand's dimensions innermost first.
std::vector<int64_t> MinorFirst(const Shape& shape) {
  llvm::SmallVector<int64_t, 6> order = MajorToMinor(shape);
  return std::vector<int64_t>(order.rbegin(), order.rend());
}

}  // namespace

std::optional<TensorMapParam> PlanTensorMap(const HloInstruction& dot, bool lhs,
                                            const TiledGemmConfig& c,
                                            int64_t argument,
                                            int64_t alignment) {
  const std::optional<TensorCoreInput> input = TensorCoreInputOf(dot);
  if (c.tma != 1 || !c.warpgroups() || c.stages < 3 || alignment < 16 ||
      !input.has_value()) {
    return std::nullopt;
  }
  const GemmView v = ViewOf(&dot);
  const std::vector<int64_t>& k = lhs ? v.lhs_k : v.rhs_k;
  const std::vector<int64_t>& free = lhs ? v.lhs_free : v.rhs_free;
  const HloInstruction* operand = dot.operand(lhs ? 0 : 1);
  const PrimitiveType storage = TileStorageType(dot, lhs, *input, c);
  const bool mn = WarpgroupTileIsMnMajor(operand, k, storage);
  const bool copyable = mn ? AsyncCopyableMnOperand(operand, free, storage, c)
                           : AsyncCopyableOperand(operand, k, storage, c);
  const Shape& shape = operand->shape();
  if (!copyable || k.size() != 1 || free.size() != 1 || shape.rank() > 5) {
    return std::nullopt;
  }
  const int64_t bytes = StorageBytes(storage);
  const int64_t tile = lhs ? c.block_m : c.block_n;
  int64_t box_k = kSwizzleBytes / bytes, box_f = tile;
  if (mn) {
    const int64_t columns = lhs ? 64 : c.block_n / c.warps_n;
    if (columns % 64 != 0 || c.block_k > 256) return std::nullopt;
    box_k = c.block_k;
    box_f = kSwizzleBytes / bytes;
  } else if (c.block_k * bytes % kSwizzleBytes != 0 || tile > 256) {
    return std::nullopt;
  }
  TensorMapParam map;
  map.argument = argument;
  map.element_bytes = bytes;
  map.swizzle_128b = true;
  int64_t stride = bytes;
  for (int64_t d : MinorFirst(shape)) {
    map.dims.push_back(shape.dimensions(d));
    map.strides.push_back(stride);
    map.box.push_back(d == k.front() ? box_k : d == free.front() ? box_f : 1);
    stride *= shape.dimensions(d);
  }
  return map;
}

void UseTensorMap(const TiledGemmConfig& c, const TensorMapParam& map,
                  llvm::Value* param, Side& s) {
  TmaSource t;
  t.map = param;
  t.dims = MinorFirst(s.operand->shape());
  for (int64_t d : t.dims) {
    t.roles.push_back(d == s.k->front() ? 0 : d == s.free->front() ? 1 : 2);
  }
  s.mn_major = t.roles.front() == 1;
  for (size_t i = 0; i < t.dims.size(); ++i) {
    if (t.roles[i] == 0) t.box_k = map.box[i];
    if (t.roles[i] == 1) t.box_f = map.box[i];
  }
  s.tma = t;
  s.async.reset();
  // Side::Offset is not used: nothing stages these tiles through threads.
  s.core_sbo = kSwizzleAtom;
  s.core_lbo = s.mn_major ? c.block_k * kSwizzleBytes : 16;
}

llvm::Value* TmaDescriptor(KernelScope& k, const TiledGemmConfig& c,
                           const Side& s, llvm::Value* buffer,
                           llvm::Value* row0, int64_t step) {
  llvm::IRBuilderBase& b = k.b;
  const int64_t bytes = s.type->getPrimitiveSizeInBits() / 8;
  llvm::Value* offset = nullptr;
  if (s.mn_major) {
    // Blocks of 64 along M or N; each wgmma K step is 32 bytes' worth of
    // K rows.
    offset = b.CreateAdd(b.CreateMul(b.CreateUDiv(row0, b.getInt64(64)),
                                     b.getInt64(c.block_k * kSwizzleBytes)),
                         b.getInt64(step * (32 / bytes) * kSwizzleBytes));
  } else {
    const int64_t k_byte = step * 32;
    offset =
        b.CreateAdd(b.CreateMul(b.CreateUDiv(row0, b.getInt64(8)),
                                b.getInt64(kSwizzleAtom)),
                    b.getInt64(k_byte / kSwizzleBytes * s.tile * kSwizzleBytes +
                               k_byte % kSwizzleBytes));
  }
  llvm::Value* address = b.CreateAdd(k.target.SharedAddress(b, buffer),
                                     b.CreateTrunc(offset, b.getInt32Ty()));
  // Layout type 1 (bits 62-63): the 128-byte swizzle.
  return b.CreateOr(WgmmaDescriptor(b, address, s.core_lbo, s.core_sbo),
                    b.getInt64(uint64_t{1} << 62));
}

namespace {

// Thread 0's copies of one side's tile for the K step at `k0` into
// `buffer`, completing on `bar`.
void IssueTmaTile(KernelScope& k, const TiledGemmConfig& c, const Side& s,
                  const BlockOrigin& origin, llvm::Value* f0, llvm::Value* k0,
                  llvm::Value* buffer, llvm::Value* bar) {
  llvm::IRBuilderBase& b = k.b;
  const TmaSource& t = *s.tma;
  const Shape& shape = s.operand->shape();
  Index index(shape.rank(), nullptr);
  DelinearizeInto(b, origin.batch, shape, *s.batch, index);
  const int64_t bytes = s.type->getPrimitiveSizeInBits() / 8;
  const int64_t boxes_k = c.block_k / t.box_k;
  const int64_t boxes_f = s.tile / t.box_f;
  const int64_t box_bytes = t.box_k * t.box_f * bytes;
  for (int64_t j = 0; j < boxes_k * boxes_f; ++j) {
    std::vector<llvm::Value*> coords;
    for (size_t i = 0; i < t.dims.size(); ++i) {
      llvm::Value* at =
          t.roles[i] == 0   ? b.CreateAdd(k0, b.getInt64(j % boxes_k * t.box_k))
          : t.roles[i] == 1 ? b.CreateAdd(f0, b.getInt64(j / boxes_k * t.box_f))
                            : index[t.dims[i]];
      coords.push_back(b.CreateTrunc(at, b.getInt32Ty()));
    }
    llvm::Value* dst =
        b.CreateGEP(b.getInt8Ty(), buffer, {b.getInt64(j * box_bytes)});
    k.target.TensorMapLoad(b, dst, t.map, coords, bar);
  }
}

// The ring of `stages` tile buffers and their "full" mbarriers (then, on
// the warp-specialized loop, the "empty" ones) of a TMA main loop.
struct TmaRing {
  KernelScope& k;
  const TiledGemmConfig& c;
  const Side& lhs;
  const Side& rhs;
  int64_t lhs_bytes, rhs_bytes;
  llvm::Value* barriers;
  const BlockOrigin& origin;

  // The stage's full barrier (empty: its empty one).
  llvm::Value* Bar(llvm::Value* stage, bool empty = false) const {
    llvm::IRBuilderBase& b = k.b;
    llvm::Value* index =
        empty ? b.CreateAdd(stage, b.getInt64(c.stages)) : stage;
    return b.CreateGEP(b.getInt8Ty(), barriers,
                       {b.CreateMul(index, b.getInt64(8))});
  }
  llvm::Value* Buffer(bool is_lhs, llvm::Value* stage) const {
    llvm::IRBuilderBase& b = k.b;
    return b.CreateGEP(
        b.getInt8Ty(), is_lhs ? lhs.shared : rhs.shared,
        {b.CreateMul(stage, b.getInt64(is_lhs ? lhs_bytes : rhs_bytes))});
  }
  // One thread arms stage `stage`'s full barrier for both tiles and
  // copies K step `kt` into it.
  void Issue(llvm::Value* kt, llvm::Value* stage) const {
    llvm::IRBuilderBase& b = k.b;
    llvm::Value* k0 = b.CreateMul(kt, b.getInt64(c.block_k));
    k.target.MbarrierArriveExpectTx(b, Bar(stage), lhs_bytes + rhs_bytes);
    IssueTmaTile(k, c, lhs, origin, origin.m0, k0, Buffer(true, stage),
                 Bar(stage));
    IssueTmaTile(k, c, rhs, origin, origin.n0, k0, Buffer(false, stage),
                 Bar(stage));
  }
  // Waits for K step `kt`'s tiles (phase kt / stages of its stage's full
  // barrier); returns the stage.
  llvm::Value* WaitFull(llvm::Value* kt) const {
    llvm::IRBuilderBase& b = k.b;
    llvm::Value* stage = b.CreateURem(kt, b.getInt64(c.stages));
    k.target.MbarrierWait(b, Bar(stage),
                          Parity(b.CreateUDiv(kt, b.getInt64(c.stages))));
    return stage;
  }
  llvm::Value* Parity(llvm::Value* phase) const {
    return k.b.CreateTrunc(k.b.CreateURem(phase, k.b.getInt64(2)),
                           k.b.getInt32Ty());
  }
  // Thread 0 initializes the full barriers (one arrival: the issuing
  // thread's) and, when `consumers` > 0, the empty ones (an arrival from
  // each consumer thread); a block barrier follows.
  absl::Status Init(llvm::Value* tid, int64_t consumers) const {
    llvm::IRBuilderBase& b = k.b;
    absl::Status s =
        EmitIf(k, b.CreateICmpEQ(tid, b.getInt64(0)), [&]() -> absl::Status {
          for (int64_t st = 0; st < c.stages; ++st) {
            k.target.MbarrierInit(b, Bar(b.getInt64(st)), 1);
            if (consumers > 0) {
              k.target.MbarrierInit(b, Bar(b.getInt64(st), true), consumers);
            }
          }
          return absl::OkStatus();
        });
    if (s.ok()) k.target.Barrier(b);
    return s;
  }
};

}  // namespace

absl::Status EmitTmaPipelinedLoop(KernelScope& k, const GemmView& v,
                                  const TiledGemmConfig& c, const Side& lhs,
                                  const Side& rhs, int64_t lhs_bytes,
                                  int64_t rhs_bytes, llvm::Value* barriers,
                                  const BlockOrigin& origin, llvm::Value* tid,
                                  int64_t in_flight,
                                  const MultiplyStep& multiply) {
  llvm::IRBuilderBase& b = k.b;
  const int64_t stages = c.stages;
  const int64_t ahead_steps = stages - 1 - in_flight;
  if (!lhs.tma.has_value() || !rhs.tma.has_value() || ahead_steps < 1) {
    return absl::InternalError("a TMA pipeline without tensor maps or steps");
  }
  const int64_t k_tiles = (v.k + c.block_k - 1) / c.block_k;
  const TmaRing ring{k, c, lhs, rhs, lhs_bytes, rhs_bytes, barriers, origin};
  if (absl::Status s = ring.Init(tid, /*consumers=*/0); !s.ok()) return s;
  llvm::Value* leader = b.CreateICmpEQ(tid, b.getInt64(0));
  absl::Status s = EmitIf(k, leader, [&]() -> absl::Status {
    for (int64_t step = 0; step < std::min(ahead_steps, k_tiles); ++step) {
      ring.Issue(b.getInt64(step), b.getInt64(step));
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return EmitForLoop(
      b, b.getInt64(0), b.getInt64(k_tiles), "k_tile",
      [&](llvm::Value* kt) -> absl::Status {
        llvm::Value* now = ring.WaitFull(kt);
        k.target.Barrier(b);
        llvm::Value* ahead = b.CreateAdd(kt, b.getInt64(ahead_steps));
        if (absl::Status s = EmitIf(
                k,
                b.CreateAnd(leader,
                            b.CreateICmpULT(ahead, b.getInt64(k_tiles))),
                [&]() -> absl::Status {
                  ring.Issue(ahead, b.CreateURem(ahead, b.getInt64(stages)));
                  return absl::OkStatus();
                });
            !s.ok()) {
          return s;
        }
        multiply(ring.Buffer(true, now), ring.Buffer(false, now));
        return absl::OkStatus();
      });
}

absl::Status EmitWarpSpecializedLoop(
    KernelScope& k, const GemmView& v, const TiledGemmConfig& c,
    const Side& lhs, const Side& rhs, int64_t lhs_bytes, int64_t rhs_bytes,
    llvm::Value* barriers, const BlockOrigin& origin, llvm::Value* tid,
    const MultiplyStep& multiply,
    const std::function<absl::Status()>& epilogue) {
  llvm::IRBuilderBase& b = k.b;
  const int64_t stages = c.stages;
  if (!lhs.tma.has_value() || !rhs.tma.has_value() || c.ws != 1) {
    return absl::InternalError(
        "a warp-specialized pipeline without tensor maps");
  }
  const int64_t k_tiles = (v.k + c.block_k - 1) / c.block_k;
  const int64_t consumers = c.threads();
  const TmaRing ring{k, c, lhs, rhs, lhs_bytes, rhs_bytes, barriers, origin};
  if (absl::Status s = ring.Init(tid, consumers); !s.ok()) return s;
  // The producer: the first thread after the warpgroups. Step kt goes
  // into stage kt % stages once the consumers have released the step
  // before in that stage (phase kt / stages - 1 of its empty barrier).
  absl::Status s = EmitIf(
      k, b.CreateICmpEQ(tid, b.getInt64(consumers)), [&]() -> absl::Status {
        return EmitForLoop(
            b, b.getInt64(0), b.getInt64(k_tiles), "produce",
            [&](llvm::Value* kt) -> absl::Status {
              llvm::Value* round = b.CreateUDiv(kt, b.getInt64(stages));
              llvm::Value* stage = b.CreateURem(kt, b.getInt64(stages));
              if (absl::Status s = EmitIf(
                      k, b.CreateICmpUGE(kt, b.getInt64(stages)),
                      [&]() -> absl::Status {
                        k.target.MbarrierWait(
                            b, ring.Bar(stage, /*empty=*/true),
                            ring.Parity(b.CreateSub(round, b.getInt64(1))));
                        return absl::OkStatus();
                      });
                  !s.ok()) {
                return s;
              }
              ring.Issue(kt, stage);
              return absl::OkStatus();
            });
      });
  if (!s.ok()) return s;
  // The consumers: wait for step kt, multiply it (its wgmma-s stay in
  // flight, step kt - 1's are done), release step kt - 1's stage.
  return EmitIf(
      k, b.CreateICmpULT(tid, b.getInt64(consumers)), [&]() -> absl::Status {
        absl::Status s = EmitForLoop(
            b, b.getInt64(0), b.getInt64(k_tiles), "k_tile",
            [&](llvm::Value* kt) -> absl::Status {
              llvm::Value* now = ring.WaitFull(kt);
              multiply(ring.Buffer(true, now), ring.Buffer(false, now));
              return EmitIf(
                  k, b.CreateICmpUGE(kt, b.getInt64(1)), [&]() -> absl::Status {
                    llvm::Value* before =
                        b.CreateURem(b.CreateAdd(kt, b.getInt64(stages - 1)),
                                     b.getInt64(stages));
                    k.target.MbarrierArrive(b,
                                            ring.Bar(before, /*empty=*/true));
                    return absl::OkStatus();
                  });
            });
        if (!s.ok()) return s;
        return epilogue();
      });
}

absl::Status EmitTcgen05TmaLoop(KernelScope& k, const GemmView& v,
                                const TiledGemmConfig& c, const Side& lhs,
                                const Side& rhs, int64_t lhs_bytes,
                                int64_t rhs_bytes, llvm::Value* barriers,
                                llvm::Value* done, const BlockOrigin& origin,
                                llvm::Value* tid, const IssueStep& issue) {
  llvm::IRBuilderBase& b = k.b;
  const int64_t stages = c.stages;
  if (!lhs.tma.has_value() || !rhs.tma.has_value()) {
    return absl::InternalError("a tcgen05 TMA loop without tensor maps");
  }
  const int64_t k_tiles = (v.k + c.block_k - 1) / c.block_k;
  const TmaRing ring{k, c, lhs, rhs, lhs_bytes, rhs_bytes, barriers, origin};
  // Empty barriers: one arrival, the step's tcgen05.commit.
  if (absl::Status s = ring.Init(tid, /*consumers=*/1); !s.ok()) return s;
  return EmitIf(k, b.CreateICmpEQ(tid, b.getInt64(0)), [&]() -> absl::Status {
    for (int64_t step = 0; step < std::min(stages, k_tiles); ++step) {
      ring.Issue(b.getInt64(step), b.getInt64(step));
    }
    absl::Status s = EmitForLoop(
        b, b.getInt64(0), b.getInt64(k_tiles), "k_tile",
        [&](llvm::Value* kt) -> absl::Status {
          llvm::Value* now = ring.WaitFull(kt);
          k.target.Tcgen05Fence(b, /*before=*/false);
          issue(ring.Buffer(true, now), ring.Buffer(false, now),
                b.CreateICmpEQ(kt, b.getInt64(0)));
          k.target.Tcgen05Commit(b, ring.Bar(now, /*empty=*/true));
          // Step kt - 1's stage takes step kt - 1 + stages once its
          // multiplies are done.
          llvm::Value* before = b.CreateSub(kt, b.getInt64(1));
          llvm::Value* next = b.CreateAdd(before, b.getInt64(stages));
          return EmitIf(
              k,
              b.CreateAnd(b.CreateICmpUGE(kt, b.getInt64(1)),
                          b.CreateICmpULT(next, b.getInt64(k_tiles))),
              [&]() -> absl::Status {
                llvm::Value* stage = b.CreateURem(before, b.getInt64(stages));
                k.target.MbarrierWait(
                    b, ring.Bar(stage, /*empty=*/true),
                    ring.Parity(b.CreateUDiv(before, b.getInt64(stages))));
                ring.Issue(next, stage);
                return absl::OkStatus();
              });
        });
    if (!s.ok()) return s;
    k.target.Tcgen05Commit(b, done);
    return absl::OkStatus();
  });
}

}  // namespace xlite::codegen::gpu::tiled_gemm
