#ifndef XLITE_GPU_BACKEND_EMULATOR_EMULATOR_RUNTIME_H_
#define XLITE_GPU_BACKEND_EMULATOR_EMULATOR_RUNTIME_H_

// The emulator's run-time half: launches a kernel compiled for the host
// (by EmulatorTarget) as a grid of blocks, one block after another. The
// threads of a cooperative kernel (barriers, shuffles) are fibers of one
// host thread, switched only at barriers and shuffles:
//   - a barrier releases when every thread of the block has reached it;
//     a thread that exits while others wait at one is an error;
//   - a shuffle releases when every live lane of the warp has reached a
//     shuffle, and then exchanges their values;
//   - an ldmatrix releases likewise when all 32 lanes of the warp have
//     reached the same one, and reads shared memory then
//     (warp_ldmatrix.h);
//   - an mma (mma.sync) releases when all 32 lanes of the warp have
//     reached the same one (the same call site: mma.sync.aligned is
//     undefined in divergent code), and then computes the warp's product
//     (warp_mma.h); a wgmma is issued likewise when all 128 threads of
//     its warpgroup have reached it, and computed (warpgroup_mma.h) when
//     one of them waits for its commit group, reading shared memory then
//     (wgmma_queue.h: accumulators in flight read as NaN, and a cp.async
//     into bytes a wgmma in flight reads is an error);
//   - shared memory is one buffer per block, filled with 0xA5 bytes (a
//     GPU's starts undefined: a kernel reading what it never wrote fails
//     here instead of passing on zeros);
//   - asynchronous copies (cp.async) land only when their thread waits
//     for them (async_copy_queue.h), never at a barrier; bulk tensor
//     copies (TMA) land when a thread waits on their mbarrier after the
//     phase's arrivals (mbarrier_table.h), and a thread waiting on one
//     blocks like one at a barrier;
// threads run in order of their ids between switches, so runs are
// deterministic. Threads that can reach no barrier or shuffle together
// (a deadlock) are reported as an error, never a hang. Kernels that do not
// cooperate run their threads one after another, without fibers.
//
// Generated code calls the extern "C" functions xlite_emu_* below.

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"

extern "C" {
/// Special registers: 0-2 tid.xyz, 3-5 ctaid.xyz, 6-8 ntid.xyz,
/// 9-11 nctaid.xyz.
int32_t xlite_emu_sreg(int32_t which);
void xlite_emu_barrier();
/// kind 0: down, 1: xor.
int32_t xlite_emu_shfl(int32_t kind, int32_t value, int32_t offset);
void* xlite_emu_shared();
/// The lane's mma registers: a[4], b[2], c[4] in; d[4] out. `site`
/// numbers the call site (every lane of a warp must be at the same).
void xlite_emu_mma(int32_t kind, int32_t site, const int32_t* a,
                   const int32_t* b, const int32_t* c, int32_t* d);
/// The lane's part of a warp's ldmatrix of `count` 8x8 b16 matrices
/// (warp_ldmatrix.h): the address of its row, its `count` registers out.
/// `site` numbers the call site.
void xlite_emu_ldmatrix(int32_t count, int32_t site, const void* row,
                        int32_t* out);
/// The thread's part of a warpgroup's wgmma (warpgroup_mma.h): `op`
/// (WgmmaOpWord), the call site, both descriptors, its accumulators c in
/// and d out (N / 2 each).
void xlite_emu_wgmma(int32_t op, int32_t site, int64_t desc_a, int64_t desc_b,
                     const int32_t* c, int32_t* d);
/// wgmma.commit_group; wgmma.wait_group `pending`, the thread's `count`
/// accumulator registers `regs` in and out (wgmma_queue.h).
void xlite_emu_wgmma_commit();
void xlite_emu_wgmma_wait(int32_t pending, int32_t* regs, int32_t count);
/// cp.async of `bytes` from `src` to `dst` (zeros when `copy` is 0);
/// commit_group; wait_group `pending` (wait_all when negative).
void xlite_emu_cp_async(void* dst, const void* src, int32_t bytes,
                        int32_t copy);
void xlite_emu_cp_async_commit();
void xlite_emu_cp_async_wait(int32_t pending);
/// mbarrier.init with `count` arrivals; mbarrier.arrive.expect_tx of
/// `bytes`; mbarrier.arrive; a wait until the phase of `parity` has
/// completed (mbarrier_table.h).
void xlite_emu_mbarrier_init(void* bar, int32_t count);
void xlite_emu_mbarrier_arrive_expect_tx(void* bar, int32_t bytes);
void xlite_emu_mbarrier_arrive(void* bar);
void xlite_emu_mbarrier_wait(void* bar, int32_t parity);
/// cp.async.bulk.tensor of `map`'s (an EmulatedTensorMap) box at `coords`
/// into shared `dst`, completing on the mbarrier `bar` (tma_box.h).
void xlite_emu_tma_load(void* dst, const void* map, const int32_t* coords,
                        void* bar);
/// tcgen05 (tensor_memory.h): the warp's tcgen05.alloc of `columns`
/// writing the address to shared `slot`; its dealloc; one thread's
/// tcgen05.mma of `kind` (Tcgen05Kind) with instruction descriptor
/// `idesc`, D at `tmem`, both shared descriptors and `accumulate` (0: D
/// not added); tcgen05.commit arriving on `bar` once they are written;
/// the lane's tcgen05.ld of `count` columns into `out`.
void xlite_emu_tmem_alloc(void* slot, int32_t columns);
void xlite_emu_tmem_dealloc(int32_t address, int32_t columns);
void xlite_emu_tcgen05_mma(int32_t kind, int32_t idesc, int32_t tmem,
                           int64_t desc_a, int64_t desc_b, int32_t accumulate);
void xlite_emu_tcgen05_commit(void* bar);
void xlite_emu_tcgen05_ld(int32_t address, int32_t count, int32_t* out);
}

namespace xlite::gpu::emulator {

/// A kernel's host entry: takes the array of its pointer arguments.
using KernelEntry = void (*)(void** arguments);

struct EmulatedLaunch {
  int64_t grid = 1;
  int64_t block = 1;
  int64_t shared_bytes = 0;
  bool cooperative = false;
};

/// Runs `entry` on `arguments` over the whole grid.
absl::Status LaunchKernel(KernelEntry entry, const EmulatedLaunch& launch,
                          void** arguments);

/// The runtime's functions by name, for the JIT.
std::vector<std::pair<const char*, void*>> EmulatorRuntimeSymbols();

}  // namespace xlite::gpu::emulator

#endif  // XLITE_GPU_BACKEND_EMULATOR_EMULATOR_RUNTIME_H_
