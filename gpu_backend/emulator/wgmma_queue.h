#ifndef XLITE_GPU_BACKEND_EMULATOR_WGMMA_QUEUE_H_
#define XLITE_GPU_BACKEND_EMULATOR_WGMMA_QUEUE_H_

// The wgmma-s one warpgroup has issued and not yet waited for, for the
// emulator's runtime: wgmma.mma_async is asynchronous, so the emulator
// computes each one as late as the PTX ISA lets a GPU, when a thread of
// its warpgroup waits for its commit group (wgmma.wait_group). Until then
// its accumulators are undefined: the registers a wgmma or a wait that
// leaves it in flight gives back are a NaN pattern, so a kernel that
// reads them early computes a wrong answer on the emulator as it may on a
// GPU. A GPU may read the operands at any time between the issue and the
// wait, so shared memory a wgmma reads must not change in between: the
// bytes are kept at the issue and compared when it is computed, copies
// (cp.async) into them are reported at once (Reads), and the runtime
// refuses a wgmma whose operands a cp.async has yet to land in.
//
// The wgmma-s in flight form one chain of accumulators (as in a GEMM's
// main loop): the first takes its C from the threads' registers, each
// later one the chain's D. A wgmma on another accumulator shape while one
// is in flight is an error (not modelled).

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "gpu_backend/emulator/warpgroup_mma.h"

namespace xlite::gpu::emulator {

/// What the registers of an accumulator in flight read as: an f32 NaN
/// (and an unlikely s32).
inline constexpr int32_t kWgmmaInFlight = 0x7fbadbad;

class WgmmaQueue {
 public:
  /// Forgets everything (a new block).
  void Clear();

  /// The warpgroup's wgmma `op` (WgmmaOpWord) with its descriptors, in
  /// commit group `group` (the groups its threads committed before it),
  /// reading the block's `shared` memory. Thread i's accumulators c[i]
  /// become C when no wgmma is in flight, else must be what the last
  /// wgmma gave back (kWgmmaInFlight: the same chain); d[i] (which may be
  /// c[i]) read kWgmmaInFlight after. Returns an error message or "".
  std::string Issue(int32_t op, uint64_t desc_a, uint64_t desc_b, int64_t group,
                    const uint8_t* shared, int64_t shared_bytes,
                    const int32_t* const c[128], int32_t* const d[128]);

  /// Thread `lane` (0..127) of the warpgroup waits until at most
  /// `pending` of its `committed` groups are in flight: the wgmma-s of
  /// older groups are computed (in issue order) from `shared` as it is
  /// now (an error if those bytes changed since its issue). Its `count`
  /// registers `regs` then hold the chain's D, or kWgmmaInFlight while any
  /// wgmma is still in flight (unchanged once it was given D). Returns an
  /// error message (a bad wgmma, registers that are not the chain's) or
  /// "".
  std::string Wait(int64_t lane, int64_t committed, int64_t pending,
                   const uint8_t* shared, int64_t shared_bytes, int32_t* regs,
                   int64_t count);

  /// Whether a wgmma in flight reads any of bytes [lo, hi) of shared
  /// memory.
  bool Reads(int64_t lo, int64_t hi) const;

 private:
  struct Pending {
    int32_t op = 0;
    uint64_t desc_a = 0, desc_b = 0;
    int64_t group = 0;
    WgmmaSpan spans[2];
    std::vector<uint8_t> read;  // the bytes it reads, at the issue
  };
  std::deque<Pending> pending_;
  int64_t regs_ = 0;          // registers per thread of the chain (N / 2)
  std::vector<int32_t> acc_;  // 128 x regs_: D of the last computed
  std::vector<bool> owed_;    // per thread: D not yet given back
};

}  // namespace xlite::gpu::emulator

#endif  // XLITE_GPU_BACKEND_EMULATOR_WGMMA_QUEUE_H_
