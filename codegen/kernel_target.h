#ifndef XLITE_CODEGEN_KERNEL_TARGET_H_
#define XLITE_CODEGEN_KERNEL_TARGET_H_

// The small interface GPU kernel emitters (codegen/gpu/) are written
// against: thread and block ids, the block barrier, warp shuffles,
// kernel-scoped shared memory, atomics, the math-function mapping and the
// kernel declaration. Two implementations: NVPTX (gpu_backend/
// nvptx_target.h: nvvm intrinsics, addrspace(3), libdevice) and the host
// emulator (gpu_backend/emulator/: calls into a fiber runtime). A kernel
// emitted once runs on both.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace xlite::codegen {

/// Threads per warp on every target.
inline constexpr int kWarpSize = 32;

/// The static shared memory a block may have (CUDA's 48 KiB); more must be
/// dynamic (DynamicSharedArray), which a launch opts in to.
inline constexpr int64_t kMaxStaticSharedBytes = 48 * 1024;

enum class GridDim { kX, kY, kZ };
enum class ShuffleKind { kDown, kXor };
enum class AtomicOp { kAdd, kMax, kMin };

/// A warp-wide tensor-core multiply-accumulate, PTX's
/// `mma.sync.aligned.m16n8kK.row.col`: D (16x8) = A (16xK) . B (Kx8) + C,
/// every lane holding its fragments in PTX's layouts (the "Matrix
/// Fragments for mma.m16n8kK" tables; codegen/gpu/mma_fragments.h). A is
/// 4 i32 registers and B 2 on every kind; C and D 4 f32 (i32 for kS8).
///   kF16:  K = 16, f16 pairs, f32 accumulators;
///   kBF16: K = 16, bf16 pairs;
///   kTF32: K = 8, one tf32 (an f32 whose low 13 mantissa bits are
///          ignored) per register;
///   kS8:   K = 32, four s8 per register, s32 accumulators.
enum class MmaKind { kF16, kBF16, kTF32, kS8 };

/// The operand type of a warpgroup-wide tensor-core multiply (PTX's
/// `wgmma.mma_async.sync.aligned.m64nNkK`, sm_90a), A and B alike but
/// for e4m3 x e5m2:
///   kF16, kBF16: K = 16, f32 accumulators; either operand may be
///                transposed (M- or N-major in shared memory);
///   kTF32:       K = 8 (f32 elements, low 13 mantissa bits ignored);
///   kE4M3, kE5M2: K = 32, f32 accumulators;
///   kS8:         K = 32, s32 accumulators (wrapping).
/// Types other than f16/bf16 are K-major only.
enum class WgmmaKind { kF16, kBF16, kTF32, kE4M3, kE5M2, kS8 };

/// One wgmma: D (64 x n) = A (64 x K) . B (K x n) + D, both operands in
/// shared memory, each given by a matrix descriptor (WgmmaDescriptor in
/// codegen/gpu/wgmma_layout.h) of a layout without swizzling; `trans_a`
/// / `trans_b` say the operand is M- / N-major (16-bit kinds only).
/// Thread i of the warpgroup (warp w = i / 32, lane l = i % 32) holds n / 2
/// accumulators: register r is D[16 w + l / 4 + 8 ((r / 2) % 2)]
/// [8 (r / 4) + 2 (l % 4) + r % 2].
struct WgmmaShape {
  WgmmaKind kind = WgmmaKind::kBF16;
  int64_t n = 8;
  bool trans_a = false, trans_b = false;
  /// B's kind where it differs from A's (kE4M3 x kE5M2 and back only).
  std::optional<WgmmaKind> kind_b;
  WgmmaKind BKind() const { return kind_b.value_or(kind); }
};

/// The 32-bit instruction descriptor of a tcgen05.mma of `shape` with
/// M = 128 (PTX ISA "Instruction descriptor" for .kind::f16, ::tf32,
/// ::f8f6f4 and ::i8): bits 4-5 D's type (1 f32, 2 s32), 7-9 A's and
/// 10-12 B's (f16 0, bf16 1, tf32 2; e4m3 0, e5m2 1; s8 1), bit 15 A and
/// 16 B MN-major, 17-22 N / 8, 24-28 M / 16.
uint32_t Tcgen05InstructionDescriptor(const WgmmaShape& shape);

/// The tcgen05.mma `.kind` of a WgmmaKind: "f16" (f16, bf16), "tf32",
/// "f8f6f4", "i8".
const char* Tcgen05KindName(WgmmaKind kind);

/// One pointer parameter of a kernel.
struct KernelParam {
  /// No other parameter of the kernel overlaps it.
  bool noalias = false;
  /// Bytes its address is a multiple of (0: unknown).
  int64_t alignment = 0;
  /// Bytes it spans (0: unknown).
  int64_t size = 0;
  /// Not a pointer to memory but a TMA tensor map passed by value (128
  /// bytes, 64-byte aligned; a __grid_constant__ CUtensorMap on a GPU):
  /// the kernel uses its address only as TensorMapLoad's `map`.
  bool tensor_map = false;
};

class KernelTarget {
 public:
  virtual ~KernelTarget() = default;

  /// "nvptx" or "emulator".
  virtual std::string name() const = 0;

  /// The data layout and triple kernel modules are built for.
  virtual void ConfigureModule(llvm::Module& module) const = 0;

  /// Declares kernel `name(ptr p0, ..., ptr pN-1)` returning void, launched
  /// with exactly `block_size` threads per block (x only), with its
  /// parameters' attributes. The builder is left in its empty entry block.
  virtual llvm::Function* DeclareKernel(llvm::Module& module,
                                        absl::string_view name,
                                        const std::vector<KernelParam>& params,
                                        int64_t block_size) = 0;

  /// threadIdx / blockIdx / blockDim / gridDim along `dim` (i32).
  virtual llvm::Value* ThreadId(llvm::IRBuilderBase& b, GridDim dim) = 0;
  virtual llvm::Value* BlockId(llvm::IRBuilderBase& b, GridDim dim) = 0;
  virtual llvm::Value* BlockDim(llvm::IRBuilderBase& b, GridDim dim) = 0;
  virtual llvm::Value* GridSize(llvm::IRBuilderBase& b, GridDim dim) = 0;

  /// __syncthreads(): every thread of the block must reach it.
  virtual void Barrier(llvm::IRBuilderBase& b) = 0;

  /// The i32 `value` of lane (lane + offset) [kDown; own value past the
  /// warp] or (lane ^ offset) [kXor], every lane of the warp taking part.
  virtual llvm::Value* ShuffleI32(llvm::IRBuilderBase& b, ShuffleKind kind,
                                  llvm::Value* value, llvm::Value* offset) = 0;

  /// ldmatrix.sync.aligned.m8n8.x`count`.shared.b16 over the warp (every
  /// lane takes part): `count` (1, 2 or 4) matrices of 8 rows of 16 bytes
  /// in shared memory, lane l giving in `row` (a pointer into a
  /// SharedArray or DynamicSharedArray, 16-byte aligned) the address of
  /// row l % 8 of matrix l / 8 (lanes from 8 * count on: ignored).
  /// Returns `count` i32: register j of lane l is the 32-bit word l % 4 of
  /// row l / 4 of matrix j, i.e. an mma.sync fragment register of a
  /// K-major tile (codegen/gpu/mma_fragments.h).
  virtual std::vector<llvm::Value*> LdMatrix(llvm::IRBuilderBase& b,
                                             int64_t count,
                                             llvm::Value* row) = 0;

  /// D = A . B + C over the warp (see MmaKind); every lane of the warp
  /// must take part. `a` holds 4 i32, `b` 2 i32, `c` 4 accumulators;
  /// returns D's 4.
  virtual std::vector<llvm::Value*> Mma(llvm::IRBuilderBase& b, MmaKind kind,
                                        const std::vector<llvm::Value*>& a,
                                        const std::vector<llvm::Value*>& bv,
                                        const std::vector<llvm::Value*>& c) = 0;

  /// Starts copying `bytes` (4, 8 or 16) bytes from global memory at
  /// `src` to shared memory at `dst`, both aligned to `bytes`, without
  /// waiting (cp.async on sm_80 and up); when `copy` (i1) is false nothing
  /// is read and `dst` gets zeros.
  virtual void AsyncCopy(llvm::IRBuilderBase& b, llvm::Value* dst,
                         llvm::Value* src, int64_t bytes,
                         llvm::Value* copy) = 0;
  /// Waits until the thread's AsyncCopy-ies so far have landed, committed
  /// or not (cp.async.wait_all); other threads see them after a barrier.
  virtual void AsyncCopyWait(llvm::IRBuilderBase& b) = 0;
  /// Closes the thread's group of AsyncCopy-ies issued since the last
  /// commit (cp.async.commit_group); a group may be empty.
  virtual void AsyncCopyCommit(llvm::IRBuilderBase& b) = 0;
  /// Waits until at most `pending` of the thread's committed groups have
  /// not landed, the oldest landing first (cp.async.wait_group); copies
  /// not yet committed are not waited for. A barrier after shows what
  /// landed to the block; a barrier alone lands nothing.
  virtual void AsyncCopyWaitGroup(llvm::IRBuilderBase& b, int64_t pending) = 0;

  /// The warpgroup's (4 consecutive warps, the first a multiple of 4,
  /// every thread taking part) asynchronous multiply `shape` with the
  /// operands the i64 descriptors `desc_a` and `desc_b` give, accumulating
  /// onto `acc` (n / 2 f32, or i32 for kS8); returns the new accumulators,
  /// which are defined only after a WgmmaWait that covers it. Issue
  /// WgmmaFence before the first wgmma that reads accumulators written
  /// otherwise, and FenceProxyAsyncShared (then a barrier) after writing
  /// the shared memory it reads.
  virtual std::vector<llvm::Value*> Wgmma(
      llvm::IRBuilderBase& b, const WgmmaShape& shape, llvm::Value* desc_a,
      llvm::Value* desc_b, const std::vector<llvm::Value*>& acc) = 0;
  /// wgmma.fence.sync.aligned: orders register accesses before the
  /// wgmma-s that follow. `acc` pass through and come back (use those), so
  /// that their last writes stay before the fence.
  virtual std::vector<llvm::Value*> WgmmaFence(
      llvm::IRBuilderBase& b, const std::vector<llvm::Value*>& acc) = 0;
  /// wgmma.commit_group.sync.aligned: closes the group of wgmma-s issued
  /// since the last commit.
  virtual void WgmmaCommit(llvm::IRBuilderBase& b) = 0;
  /// wgmma.wait_group.sync.aligned `pending`: waits until at most
  /// `pending` committed groups are in flight. `acc` (the accumulators of
  /// the wgmma-s waited for) pass through and come back, so that nothing
  /// reads them before the wait.
  virtual std::vector<llvm::Value*> WgmmaWait(
      llvm::IRBuilderBase& b, int64_t pending,
      const std::vector<llvm::Value*>& acc) = 0;
  /// fence.proxy.async.shared::cta: makes this thread's writes to shared
  /// memory (stores and landed cp.async-s) visible to what the async proxy
  /// (wgmma) reads after a following barrier.
  virtual void FenceProxyAsyncShared(llvm::IRBuilderBase& b) = 0;
  /// mbarrier.init of the 8-byte shared object at `bar` for `count`
  /// arrivals per phase, then fence.mbarrier_init; a barrier must follow
  /// before other threads use it.
  virtual void MbarrierInit(llvm::IRBuilderBase& b, llvm::Value* bar,
                            int64_t count) = 0;
  /// mbarrier.arrive.expect_tx: the current phase expects `bytes` more
  /// transaction bytes (bulk copies completing on it), and one arrival.
  virtual void MbarrierArriveExpectTx(llvm::IRBuilderBase& b, llvm::Value* bar,
                                      int64_t bytes) = 0;
  /// mbarrier.arrive: one arrival on the current phase of `bar` (release
  /// semantics: this thread's earlier reads and writes, its waited-for
  /// wgmma-s' included, happen before the phase completes).
  virtual void MbarrierArrive(llvm::IRBuilderBase& b, llvm::Value* bar) = 0;
  /// Waits until the phase of `bar` of parity `parity` (i32, 0 or 1) has
  /// completed (mbarrier.try_wait.parity until it holds); what its bulk
  /// copies wrote is then visible to the thread and to wgmma.
  virtual void MbarrierWait(llvm::IRBuilderBase& b, llvm::Value* bar,
                            llvm::Value* parity) = 0;
  /// cp.async.bulk.tensor (TMA, tile mode; sm_90): copies the box of the
  /// tensor map at `map` (a tensor_map kernel parameter) whose first
  /// element is at `coords` (i32, innermost first, one per dimension of the
  /// map) into shared memory at `dst` (128-byte aligned, 1024 with the
  /// 128-byte swizzle), completing its bytes on the mbarrier `bar`.
  /// Elements outside the tensor arrive as zeros.
  virtual void TensorMapLoad(llvm::IRBuilderBase& b, llvm::Value* dst,
                             llvm::Value* map,
                             const std::vector<llvm::Value*>& coords,
                             llvm::Value* bar) = 0;
  /// The i32 address of `pointer` (into a SharedArray or
  /// DynamicSharedArray) in the block's shared-memory window: what a
  /// wgmma descriptor holds.
  virtual llvm::Value* SharedAddress(llvm::IRBuilderBase& b,
                                     llvm::Value* pointer) = 0;

  // Blackwell's tensor cores (tcgen05, sm_100a): the accumulators live in
  // tensor memory, 128 lanes (rows) by 512 columns of 32 bits per SM,
  // addressed by an i32 (lane << 16 | column).
  /// tcgen05.alloc then relinquish_alloc_permit (cta_group::1): the warp
  /// (every lane taking part) allocates `columns` (a power of 2, 32 to
  /// 512) of tensor memory and writes their address to the 4 shared bytes
  /// at `slot`; the other threads read it after tcgen05 fences around a
  /// barrier (Tcgen05Fence).
  virtual void TmemAlloc(llvm::IRBuilderBase& b, llvm::Value* slot,
                         int64_t columns) = 0;
  /// tcgen05.dealloc by the warp that allocated `columns` at `address`
  /// (i32), once nothing reads them any more; before the kernel exits.
  virtual void TmemDealloc(llvm::IRBuilderBase& b, llvm::Value* address,
                           int64_t columns) = 0;
  /// tcgen05.mma.cta_group::1, issued by one thread: D (128 x shape.n, f32
  /// or s32 for kS8, lane i = row i from tensor-memory address `tmem`) =
  /// A (128 x K) . B (K x n) + (accumulate (i1) ? D : 0), both operands in
  /// shared memory through descriptors (Tcgen05Descriptor), K = 32 bytes
  /// of the kind as for wgmma; the instruction descriptor is
  /// Tcgen05InstructionDescriptor(shape). Asynchronous: Tcgen05Commit
  /// says when it is done.
  virtual void Tcgen05Mma(llvm::IRBuilderBase& b, const WgmmaShape& shape,
                          llvm::Value* tmem, llvm::Value* desc_a,
                          llvm::Value* desc_b, llvm::Value* accumulate) = 0;
  /// tcgen05.commit (mbarrier::arrive::one): one arrival on the mbarrier
  /// at `bar` once every tcgen05.mma this thread has issued is complete
  /// (its shared operands read, its D written).
  virtual void Tcgen05Commit(llvm::IRBuilderBase& b, llvm::Value* bar) = 0;
  /// tcgen05.ld.sync.aligned.32x32b.x`count` then tcgen05.wait::ld over
  /// the warp (every lane taking part): lane l gets `count` i32, the
  /// columns from `address`'s of tensor-memory lane (`address`'s lane +
  /// l). Warp w reaches lanes 32 (w % 4) to 32 (w % 4) + 31 only.
  virtual std::vector<llvm::Value*> Tcgen05Load(llvm::IRBuilderBase& b,
                                                llvm::Value* address,
                                                int64_t count) = 0;
  /// tcgen05.fence::before_thread_sync (`before`) or
  /// ::after_thread_sync: orders tcgen05 operations before a barrier or
  /// mbarrier wait with those after it.
  virtual void Tcgen05Fence(llvm::IRBuilderBase& b, bool before) = 0;

  /// A shuffle of any integer, float or i1 scalar up to 64 bits wide (in
  /// 32-bit pieces).
  absl::StatusOr<llvm::Value*> Shuffle(llvm::IRBuilderBase& b, ShuffleKind kind,
                                       llvm::Value* value, llvm::Value* offset);

  /// A block-scoped array of `bytes` bytes (aligned to `alignment`) in
  /// shared memory, for the kernel being emitted; the pointer may be in a
  /// non-generic address space. Kernel emitters report the total through
  /// SharedBytes().
  virtual llvm::Value* SharedArray(llvm::IRBuilderBase& b, int64_t bytes,
                                   int64_t alignment,
                                   absl::string_view name) = 0;
  /// A block-scoped array of `bytes` bytes (aligned to `alignment`, at
  /// most 16) in the kernel's dynamic shared memory (CUDA's `extern
  /// __shared__`), past kMaxStaticSharedBytes if need be; counted in
  /// SharedBytes() like SharedArray's. A kernel should keep all its arrays
  /// dynamic or all static: a launch gives it SharedBytes() less the
  /// static bytes the driver reports as dynamic.
  virtual llvm::Value* DynamicSharedArray(llvm::IRBuilderBase& b, int64_t bytes,
                                          int64_t alignment,
                                          absl::string_view name) = 0;
  /// The shared bytes the kernel `function` allocated, static and dynamic.
  int64_t SharedBytes(const llvm::Function* function) const;

  /// *address op= value atomically, on a global or shared address; returns
  /// the old value. Integers and floats (float max/min through
  /// compare-and-swap).
  absl::StatusOr<llvm::Value*> AtomicRmw(llvm::IRBuilderBase& b, AtomicOp op,
                                         bool is_signed, llvm::Value* address,
                                         llvm::Value* value);
  /// Compare-and-swap; returns the old value.
  llvm::Value* AtomicCompareExchange(llvm::IRBuilderBase& b,
                                     llvm::Value* address,
                                     llvm::Value* expected,
                                     llvm::Value* desired);

  /// The target function implementing the C math library function `name`
  /// ("expf", "atan2", ...), or an error for one the GPU has not.
  virtual absl::StatusOr<std::string> MathFunction(
      absl::string_view name) const = 0;

  /// Rewrites every call to an external function of `module` to its target
  /// function (MathFunction); an error names a function with none (the
  /// complex runtime helpers, for instance).
  absl::Status MapMathFunctions(llvm::Module& module) const;

  /// Whether `kernel`, and every function it calls, calls only external
  /// functions the target implements; else an error naming the first one.
  /// (Emitters check each kernel as it is made, so the refusal can name
  /// the instruction.)
  absl::Status CheckExternalCalls(const llvm::Function& kernel) const;

 protected:
  /// Bytes of shared memory allocated so far per kernel: static arrays
  /// (SharedBytesOf) and dynamic ones (DynamicSharedBytesOf).
  int64_t& SharedBytesOf(const llvm::Function* function);
  int64_t& DynamicSharedBytesOf(const llvm::Function* function);

 private:
  std::vector<std::pair<const llvm::Function*, int64_t>> shared_bytes_,
      dynamic_shared_bytes_;
};

/// The C math functions a GPU kernel may call ("exp", "expf", ...: those
/// libdevice implements as __nv_<name>).
bool IsGpuMathFunction(absl::string_view name);

}  // namespace xlite::codegen

#endif  // XLITE_CODEGEN_KERNEL_TARGET_H_
