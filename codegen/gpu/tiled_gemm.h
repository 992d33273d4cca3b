#ifndef XLITE_CODEGEN_GPU_TILED_GEMM_H_
#define XLITE_CODEGEN_GPU_TILED_GEMM_H_

// The pieces the tiled GEMM kernel's main loops share (internal to
// codegen/gpu): the dot viewed as batch x (M x K) . (K x N), the staging
// of one operand tile through shared memory, and the epilogue's store of
// one accumulator. tiled_gemm_kernel.cc sets a kernel up and picks the
// loop: CUDA cores (tiled_gemm_simt.cc), tensor cores by warp
// (tiled_gemm_mma.cc) or by warpgroup (tiled_gemm_wgmma.cc).

#include <functional>
#include <optional>
#include <vector>

#include "codegen/gpu/kernel_common.h"
#include "hlo/ir/tiled_gemm_config.h"

namespace xlite::codegen::gpu::tiled_gemm {

/// The dimension numbers of one side, and of the dot's result. M runs
/// over the lhs's free dimensions, N over the rhs's, K over the
/// contracting ones and the batch over the batch dimensions, each
/// linearized in dimension-number order.
struct GemmView {
  const HloInstruction* dot = nullptr;
  std::vector<int64_t> lhs_batch, rhs_batch, lhs_k, rhs_k, lhs_free, rhs_free,
      out_batch, out_m, out_n;
  int64_t batch = 1, m = 1, n = 1, k = 1;
  /// The contraction's accumulation type (f32 for floats, s32 for s8).
  PrimitiveType acc = PrimitiveType::kF32;
};

GemmView ViewOf(const HloInstruction* dot);

/// A side whose tiles arrive by TMA (tiled_gemm_tma.cc): 128-byte swizzled
/// in shared memory, K-major in 128-byte column blocks of `tile` rows, or
/// MN-major (16-bit types) in blocks of 64 M or N elements by block_k.
struct TmaSource {
  llvm::Value* map = nullptr;  // the tensor-map kernel parameter
  /// The operand's dimensions innermost first, as the map's: for each,
  /// its role (0: K, 1: M or N, 2: batch) and, for a batch one, its slot.
  std::vector<int64_t> dims;
  std::vector<int> roles;
  int64_t box_k = 1, box_f = 1;  // the box along K and along M or N
};

/// One operand's side and the shared-memory tile it stages: element
/// (f, kk) of the tile (f < tile along M or N, kk < block_k) lies at
/// Offset(f, kk) elements of `type` from `shared` (f * f_stride + kk *
/// k_stride, or in core matrices for the warpgroup loop).
struct Side {
  const HloInstruction* operand = nullptr;
  const std::vector<int64_t>* batch = nullptr;
  const std::vector<int64_t>* free = nullptr;
  const std::vector<int64_t>* k = nullptr;
  int64_t free_size = 1;  // M or N
  int64_t tile = 1;       // block_m or block_n
  llvm::Value* shared = nullptr;
  llvm::Type* type = nullptr;
  int64_t f_stride = 1, k_stride = 1;
  /// Set (non-zero) for the warpgroup loop's tiles, which hold core
  /// matrices instead (codegen/gpu/wgmma_layout.h): the bytes between
  /// core matrices adjacent along M or N (SBO) and along K (LBO), and
  /// whether a core matrix's 16-byte rows run along K (K-major) or along M
  /// or N (MN-major, 16-bit types); f_stride and k_stride unused.
  int64_t core_sbo = 0, core_lbo = 0;
  bool mn_major = false;
  /// Element (f, kk)'s offset in a tile buffer, in elements of `type`.
  llvm::Value* Offset(llvm::IRBuilderBase& b, llvm::Value* f,
                      llvm::Value* kk) const;
  /// An operand element (of the operand's type) as `type`.
  std::function<absl::StatusOr<llvm::Value*>(llvm::Value*)> convert;
  /// Set when the tile is copied from the operand's memory as it is,
  /// 16 bytes at a time without passing registers (PlanAsyncCopy).
  struct AsyncSource {
    IrArray array;
    int64_t chunk_elements = 1;  // elements of one 16-byte copy
  };
  std::optional<AsyncSource> async;
  std::optional<TmaSource> tma;
};

/// The fusion parameter a dot operand reads as it is (itself, or through
/// bitcasts and row-major reshapes); null if none.
const HloInstruction* ViewedFusionParameter(const HloInstruction* operand);

/// The lhs (true) or rhs side of `v`, without its tile.
Side SideOf(const GemmView& v, bool lhs, int64_t tile);

/// The block's tile of the result: its batch element and first row and
/// column (block g = (batch * tiles_m + tile_m) * tiles_n + tile_n).
struct BlockOrigin {
  llvm::Value* batch = nullptr;
  llvm::Value* m0 = nullptr;
  llvm::Value* n0 = nullptr;
};

/// One thread's share of a tile: per element it stages, its offset in a
/// tile buffer (in elements of the side's type), whether it is one at all
/// (the last round of a tile that does not divide among the threads) and
/// its value, held in a register until stored.
struct TileFetch {
  struct Element {
    llvm::Value* offset = nullptr;
    llvm::Value* valid = nullptr;  // null: always
    llvm::AllocaInst* value = nullptr;
  };
  std::vector<Element> elements;
};

/// The block's `threads` threads (`tid`) compute the tile at (batch, f0,
/// k0): each element through the fused producers (the elemental
/// generator of the dot's operand) and converted; elements past M, N or K
/// are zero. Consecutive threads take consecutive elements along the
/// operand's physically minor dimension when that is a K or free one.
absl::StatusOr<TileFetch> FetchTile(KernelScope& k, const GemmView& v,
                                    const Side& s, int64_t block_k,
                                    int64_t threads, llvm::Value* tid,
                                    llvm::Value* batch, llvm::Value* f0,
                                    llvm::Value* k0);

/// Stores a fetched tile into the buffer at `buffer`.
void StoreTile(KernelScope& k, const Side& s, const TileFetch& fetch,
               llvm::Value* buffer);

/// Sets `s.async` when its tile can be copied asynchronously (cp.async):
/// the operand is a fusion parameter read as it is (the type `s.type`
/// holds; through bitcasts and row-major reshapes at most, as split-K
/// makes), its one contracting dimension is physically minor with rows of
/// whole 16-byte chunks, its kernel parameter is 16-byte aligned, and
/// block_k spans whole chunks. Tensor-core tilings only, and not TF32
/// (whose operands round first). An MN-major warpgroup tile (s.mn_major)
/// instead needs its one free dimension physically minor, in whole
/// 16-byte chunks.
void PlanAsyncCopy(KernelScope& k, const TiledGemmConfig& c, Side& s);

/// Whether the side whose operand has dimensions `free` along M or N and
/// `k` contracting is staged MN-major on the warpgroup loop: a 16-bit
/// tile type (`storage`) and the operand's physically minor dimension
/// (ignoring size 1) not a contracting one.
bool WarpgroupTileIsMnMajor(const HloInstruction* operand,
                            const std::vector<int64_t>& k,
                            PrimitiveType storage);

/// What PlanAsyncCopy asks of an MN-major tile's operand (less the
/// parameter's alignment): a viewed parameter of type `storage`, one free
/// dimension `free`, physically minor, in whole 16-byte chunks.
bool AsyncCopyableMnOperand(const HloInstruction* operand,
                            const std::vector<int64_t>& free,
                            PrimitiveType storage, const TiledGemmConfig& c);

/// What PlanAsyncCopy asks of an operand and the tiling, less the kernel
/// parameter's alignment (known only once buffers are assigned): the
/// side's `operand`, contracting dimensions `k` and tile type `storage`.
bool AsyncCopyableOperand(const HloInstruction* operand,
                          const std::vector<int64_t>& k, PrimitiveType storage,
                          const TiledGemmConfig& c);

/// The block's threads start copying the tile at (batch, f0, k0) into the
/// buffer at `buffer`, a 16-byte chunk each per round; chunks past M, N
/// or K become zeros (s.async is set).
absl::Status IssueAsyncTile(KernelScope& k, const GemmView& v, const Side& s,
                            int64_t block_k, int64_t threads, llvm::Value* tid,
                            llvm::Value* batch, llvm::Value* f0,
                            llvm::Value* k0, llvm::Value* buffer);

/// Multiplies the K step staged in the buffers at `lhs` and `rhs`.
using MultiplyStep =
    std::function<void(llvm::Value* lhs_buffer, llvm::Value* rhs_buffer)>;

/// Whether EmitMainLoop runs the multistage pipeline (EmitPipelinedLoop):
/// 3 or 4 stages and both sides copied asynchronously.
bool PipelinesTiles(const TiledGemmConfig& c, const Side& lhs, const Side& rhs);

/// The loop over K in steps of block_k: with one stage, stage (fetch and
/// store) both tiles, barrier, multiply, barrier; with two, the next
/// step's tiles are fetched before and stored (into the other buffer)
/// after the current step's multiply, one barrier per step; with three
/// or four, EmitPipelinedLoop when PipelinesTiles (else the two-stage loop
/// in the first two buffers). The sides' `shared` holds `c.stages` buffers
/// of `lhs_bytes` / `rhs_bytes`. `in_flight` (0, or 1 on the pipelined
/// loop only): the steps whose multiply may still read its buffers when
/// `multiply` returns (asynchronous wgmma-s not yet waited for).
absl::Status EmitMainLoop(KernelScope& k, const GemmView& v,
                          const TiledGemmConfig& c, const Side& lhs,
                          const Side& rhs, int64_t lhs_bytes, int64_t rhs_bytes,
                          const BlockOrigin& origin, llvm::Value* tid,
                          int64_t in_flight, const MultiplyStep& multiply);

/// The loop over K of stages = 3 or 4, both sides copied asynchronously
/// (s.async), the multiply of each step leaving `in_flight` (0 or 1)
/// steps still reading their buffers when it returns. The copies run
/// d = stages - 1 - in_flight steps ahead: each step its own commit group
/// (steps past K commit an empty one). Per step kt: wait until step kt's
/// group has landed (wait_group d - 1), barrier (every thread's copies
/// visible; every warp has left step kt - 1's multiply, and step
/// kt - 1 - in_flight no longer reads its buffer), issue step kt + d into
/// that buffer, commit, multiply step kt (tiled_gemm_pipeline.cc).
absl::Status EmitPipelinedLoop(KernelScope& k, const GemmView& v,
                               const TiledGemmConfig& c, const Side& lhs,
                               const Side& rhs, int64_t lhs_bytes,
                               int64_t rhs_bytes, const BlockOrigin& origin,
                               llvm::Value* tid, int64_t in_flight,
                               const MultiplyStep& multiply);

/// The tensor map for one side of `dot` with `c` (c.tma), taking kernel
/// argument `argument` (the viewed parameter's, aligned to `alignment`
/// bytes), or nullopt when TMA cannot bring its tiles: an operand the
/// cp.async pipeline copies (a viewed parameter in the tile type, its
/// minor dimension K, or M or N for 16-bit MN-major tiles), one K and one
/// M or N dimension, rank <= 5, 128-byte rows of K (K-major) or
/// warpgroup columns in multiples of 64 (MN-major), boxes <= 256.
std::optional<TensorMapParam> PlanTensorMap(const HloInstruction& dot, bool lhs,
                                            const TiledGemmConfig& c,
                                            int64_t argument,
                                            int64_t alignment);

/// Sets `s.tma` for the map `map` (PlanTensorMap's) at kernel parameter
/// value `param`, and the side's 128-byte swizzled layout.
void UseTensorMap(const TiledGemmConfig& c, const TensorMapParam& map,
                  llvm::Value* param, Side& s);

/// The i64 wgmma descriptor of rows `row0` on (along M or N) of a TMA
/// side's tile in `buffer`, at the `step`-th wgmma K step.
llvm::Value* TmaDescriptor(KernelScope& k, const TiledGemmConfig& c,
                           const Side& s, llvm::Value* buffer,
                           llvm::Value* row0, int64_t step);

/// The loop over K of stages = 3 or 4 whose tiles arrive by TMA (both
/// sides' s.tma): one mbarrier per stage (after the tiles in
/// `barriers`), thread 0 arms it for both tiles' bytes and issues their
/// copies d = stages - 1 - in_flight steps ahead; per step kt every
/// thread waits on stage kt % stages's barrier (phase parity
/// (kt / stages) % 2), a block barrier follows (every warp has left step
/// kt - 1's multiply, so step kt - 1 - in_flight's buffer is free), thread
/// 0 issues step kt + d, and the step is multiplied.
absl::Status EmitTmaPipelinedLoop(KernelScope& k, const GemmView& v,
                                  const TiledGemmConfig& c, const Side& lhs,
                                  const Side& rhs, int64_t lhs_bytes,
                                  int64_t rhs_bytes, llvm::Value* barriers,
                                  const BlockOrigin& origin, llvm::Value* tid,
                                  int64_t in_flight,
                                  const MultiplyStep& multiply);

/// The warp-specialized TMA loop over K (c.ws; both sides' s.tma): the
/// block's warpgroups (c.threads() threads, the consumers) and one
/// producer warp after them. Each stage has a "full" mbarrier (the
/// producer's arrival and the tiles' bytes) and an "empty" one (an arrival
/// from every consumer thread), 2 * stages of them at `barriers`. The
/// producer's first thread issues step kt into stage kt % stages once
/// the step before there is released (empty phase kt / stages - 1); the
/// consumers wait for step kt (full phase kt / stages), multiply it
/// leaving its wgmma-s in flight (so step kt - 1's are done) and release
/// step kt - 1's stage; no block barrier in the loop. Then the consumers,
/// alone, run `epilogue` (the producer warp has nothing left to do).
absl::Status EmitWarpSpecializedLoop(
    KernelScope& k, const GemmView& v, const TiledGemmConfig& c,
    const Side& lhs, const Side& rhs, int64_t lhs_bytes, int64_t rhs_bytes,
    llvm::Value* barriers, const BlockOrigin& origin, llvm::Value* tid,
    const MultiplyStep& multiply,
    const std::function<absl::Status()>& epilogue);

/// The epilogue at result element (batch, m, n), when m < M and n < N:
/// `acc` rounded to the dot's type is given to the elemental emitter as
/// the dot's value there, and the root's value is written.
absl::Status StoreResult(KernelScope& k, const GemmView& v,
                         const HloInstruction* root, llvm::Value* batch,
                         llvm::Value* m, llvm::Value* n, llvm::Value* acc);

/// The main loop and epilogue on CUDA cores (config.thread_m/thread_n).
absl::Status EmitSimtGemm(KernelScope& k, const GemmView& v,
                          const TiledGemmConfig& c, const HloInstruction* root,
                          const BlockOrigin& origin);

/// The main loop and epilogue on warpgroup tensor cores (config.wgmma),
/// for the dot's tensor-core input (tiled_gemm_wgmma.cc).
absl::Status EmitWgmmaGemm(KernelScope& k, const GemmView& v,
                           const TiledGemmConfig& c, TensorCoreInput input,
                           const HloInstruction* root,
                           const BlockOrigin& origin,
                           const std::vector<TensorMapParam>& maps,
                           const std::vector<llvm::Value*>& map_params);

/// Sets up one side of a tensor-core loop: its tile type `storage` (what
/// `input` multiplies), the conversion of operand elements to it (f32
/// rounded to tf32 as cuBLASLt does for kTF32) and its shared array of
/// `bytes` (every stage) out of the kernel's `total`. The layout is the
/// caller's.
void PrepareTensorCoreSide(KernelScope& k, Side& s, TensorCoreInput input,
                           PrimitiveType storage, int64_t bytes, int64_t total,
                           const char* name, int64_t alignment = 16);

/// The main loop and epilogue on tensor cores (config.warps_m/warps_n),
/// for the dot's tensor-core input.
absl::Status EmitMmaGemm(KernelScope& k, const GemmView& v,
                         const TiledGemmConfig& c, TensorCoreInput input,
                         const HloInstruction* root, const BlockOrigin& origin);

/// The shared-memory tiles of one config: elements of `element_bytes`,
/// rows of `row_elements` apart (along M or N for the CUDA-core loop, which
/// keeps K major; along K, padded by 16 bytes against bank conflicts, for
/// the tensor-core loop; core matrices without padding for the warpgroup
/// loop), 16-byte aligned one after the other. lhs_bytes and rhs_bytes
/// are one stage's; each side allocates c.stages of them.
struct TileLayout {
  int64_t element_bytes = 4;
  int64_t lhs_bytes = 0, rhs_bytes = 0;
  int64_t k_major_stride = 0;  // tensor cores: elements between rows
};
TileLayout TileLayoutOf(const GemmView& v, const TiledGemmConfig& c);

/// Both sides of a warpgroup tiling (wgmma or tcgen05), set up: their
/// tile arrays (c.stages buffers each, 1024-byte aligned for a TMA
/// tiling, then `extra_bytes` after the rhs tiles, at `extra`), core
/// matrix layouts (K- or MN-major), and cp.async or TMA sources (`maps`
/// and their kernel parameters, when there are two).
struct WarpgroupTiles {
  Side lhs, rhs;
  TileLayout layout;
  PrimitiveType lhs_storage = PrimitiveType::kBF16;
  PrimitiveType rhs_storage = PrimitiveType::kBF16;
  llvm::Value* extra = nullptr;
};
WarpgroupTiles PrepareWarpgroupTiles(
    KernelScope& k, const GemmView& v, const TiledGemmConfig& c,
    TensorCoreInput input, const std::vector<TensorMapParam>& maps,
    const std::vector<llvm::Value*>& map_params, int64_t extra_bytes);

/// What the tensor cores multiply of a side whose tiles hold `storage`
/// (the operand's own f8 type, or what `input` converts it to).
WgmmaKind WarpgroupKind(TensorCoreInput input, PrimitiveType storage);

/// The multiply of `tiles` for `input` (their kinds and majors), n wide.
WgmmaShape WarpgroupShape(const WarpgroupTiles& tiles, TensorCoreInput input,
                          int64_t n);

/// The wgmma descriptor of rows `row0` on (along M or N) of a side's tile
/// in `tile`, at the `step`-th 32 bytes of K: TmaDescriptor for a TMA
/// side, else the unswizzled core matrices'.
llvm::Value* WarpgroupDescriptor(KernelScope& k, const TiledGemmConfig& c,
                                 const Side& s, llvm::Value* tile,
                                 llvm::Value* row0, int64_t step);

/// The main loop and epilogue on Blackwell's tensor cores (c.tcgen05;
/// tiled_gemm_tcgen05.cc): the warpgroup tiles, one thread's tcgen05.mma-s
/// into tensor memory, the warpgroup's tcgen05.ld-s into the epilogue.
absl::Status EmitTcgen05Gemm(KernelScope& k, const GemmView& v,
                             const TiledGemmConfig& c, TensorCoreInput input,
                             const HloInstruction* root,
                             const BlockOrigin& origin,
                             const std::vector<TensorMapParam>& maps,
                             const std::vector<llvm::Value*>& map_params);

/// Issues the tcgen05.mma-s of the K step in the buffers at `lhs` and
/// `rhs`; `first` (i1): the step is the first (D not accumulated).
using IssueStep = std::function<void(
    llvm::Value* lhs_buffer, llvm::Value* rhs_buffer, llvm::Value* first)>;

/// The tcgen05 loop over K whose tiles arrive by TMA (both sides' s.tma),
/// all of it thread 0's: it copies the first `stages` steps, then per
/// step kt waits for its tiles (full barrier kt % stages), issues its
/// multiplies and commits them to the stage's empty barrier, and refills
/// step kt - 1's stage with step kt - 1 + stages once that commit
/// arrives (the multiplies of step kt queued behind). Last, it commits
/// everything to the barrier `done`. `barriers`: full then empty, one
/// per stage (then `done`).
absl::Status EmitTcgen05TmaLoop(KernelScope& k, const GemmView& v,
                                const TiledGemmConfig& c, const Side& lhs,
                                const Side& rhs, int64_t lhs_bytes,
                                int64_t rhs_bytes, llvm::Value* barriers,
                                llvm::Value* done, const BlockOrigin& origin,
                                llvm::Value* tid, const IssueStep& issue);

/// The shared array of `bytes` for one side's tiles (every stage): static
/// while the kernel's tiles, `total` bytes, fit kMaxStaticSharedBytes,
/// else dynamic (so that a tiling may use what the GPU lets a block opt
/// into). Both sides of a kernel get the same kind, at the same offsets.
llvm::Value* TileArray(KernelScope& k, int64_t bytes, int64_t total,
                       const char* name, int64_t alignment = 16);

/// The mbarriers' bytes after a TMA tiling's tiles: 8 per stage, twice
/// that with a producer warp (c.ws: "full" and "empty" ones).
inline int64_t TmaBarrierBytes(const TiledGemmConfig& c) {
  return 8 * c.stages * (c.ws == 1 ? 2 : 1);
}

/// The shared bytes after a warpgroup tiling's rhs tiles, whose tiles come
/// by TMA (`tma`) or not: TmaBarrierBytes for wgmma; for tcgen05 the
/// mbarriers (full and empty per stage and one "done" with TMA, else one
/// for each step's multiplies) and 8 for the tensor-memory address.
inline int64_t WarpgroupExtraBytes(const TiledGemmConfig& c, bool tma) {
  if (c.blackwell_mma()) return 8 * (tma ? 2 * c.stages + 1 : 1) + 8;
  return tma ? TmaBarrierBytes(c) : 0;
}

/// The element type of `input`'s tiles: f16, bf16, f32 (tf32), s8.
PrimitiveType TensorCoreStorageType(TensorCoreInput input);

/// The element type of the lhs (true) or rhs side's tiles of `dot` for
/// tensor-core `input` and tiling `c`: the operand's own f8 type where
/// TiledGemmTakesF8, else TensorCoreStorageType(input).
PrimitiveType TileStorageType(const HloInstruction& dot, bool lhs,
                              TensorCoreInput input, const TiledGemmConfig& c);

}  // namespace xlite::codegen::gpu::tiled_gemm

#endif  // XLITE_CODEGEN_GPU_TILED_GEMM_H_
