#include "gpu_backend/emulator/emulator_runtime.h"

#include <ucontext.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gpu_backend/emulator/async_copy_queue.h"
#include "gpu_backend/emulator/mbarrier_table.h"
#include "gpu_backend/emulator/tensor_memory.h"
#include "gpu_backend/emulator/tma_box.h"
#include "gpu_backend/emulator/warp_ldmatrix.h"
#include "gpu_backend/emulator/warp_mma.h"
#include "gpu_backend/emulator/warpgroup_mma.h"
#include "gpu_backend/emulator/wgmma_queue.h"

namespace xlite::gpu::emulator {
namespace {

constexpr int kWarp = 32;
constexpr size_t kStackBytes = 128 * 1024;
constexpr int64_t kMaxBlock = 1024;

enum class FiberState {
  kReady,
  kBarrier,
  kShuffle,
  kLdMatrix,
  kMma,
  kWgmma,
  kMbarrier,
  kDone
};

struct Fiber {
  ucontext_t context;
  FiberState state = FiberState::kReady;
  int32_t kind = 0, value = 0, offset = 0, result = 0, site = 0;
  // At an mma: the lane's register arrays (on its own stack).
  const int32_t *mma_a = nullptr, *mma_b = nullptr, *mma_c = nullptr;
  int32_t* mma_d = nullptr;
  // At a wgmma: its descriptors (the accumulators in mma_c / mma_d).
  uint64_t desc_a = 0, desc_b = 0;
  // At an ldmatrix: the lane's row address and its registers out.
  const uint8_t* ld_row = nullptr;
  int32_t* ld_out = nullptr;
  // At an mbarrier wait: the barrier's shared offset and the parity.
  int64_t mbarrier = 0;
  int32_t parity = 0;
};

// The block being run on this host thread.
struct Block {
  KernelEntry entry = nullptr;
  void** arguments = nullptr;
  int64_t block_id = 0, grid = 1, block = 1;
  int64_t thread = 0;
  uint8_t* shared = nullptr;
  int64_t shared_bytes = 0;
  std::vector<Fiber>* fibers = nullptr;  // null: not cooperative
  std::vector<AsyncCopyQueue> copies;    // per thread
  std::vector<WgmmaQueue> wgmmas;        // per warpgroup
  std::vector<int64_t> wgmma_commits;    // per thread: groups committed
  MbarrierTable mbarriers;               // and the bulk copies on them
  TensorMemory tmem;                     // and the tcgen05.mma-s into it
  ucontext_t scheduler;
  std::string misuse;     // a barrier or shuffle in a non-cooperative kernel
  std::string mma_error;  // an mma some lanes of its warp cannot join
};

thread_local Block* current = nullptr;

// Fiber stacks, kept between launches.
std::vector<std::unique_ptr<char[]>>& Stacks() {
  thread_local std::vector<std::unique_ptr<char[]>> stacks;
  return stacks;
}

void FiberMain() {
  Block* b = current;
  b->entry(b->arguments);
  (*b->fibers)[b->thread].state = FiberState::kDone;
  // Returning resumes uc_link: the scheduler.
}

// Switches from the running fiber back to the scheduler.
void Yield(FiberState state) {
  Block* b = current;
  Fiber& f = (*b->fibers)[b->thread];
  f.state = state;
  swapcontext(&f.context, &b->scheduler);
}

// Releases warps whose live lanes all wait at a shuffle; true if any.
bool ReleaseShuffles(Block& b) {
  std::vector<Fiber>& fibers = *b.fibers;
  bool released = false;
  for (int64_t w = 0; w * kWarp < b.block; ++w) {
    const int64_t first = w * kWarp;
    const int64_t last = std::min<int64_t>(first + kWarp, b.block);
    bool any = false, all = true;
    for (int64_t t = first; t < last; ++t) {
      if (fibers[t].state == FiberState::kDone) continue;
      any = true;
      all &= fibers[t].state == FiberState::kShuffle;
    }
    if (!any || !all) continue;
    for (int64_t t = first; t < last; ++t) {
      Fiber& f = fibers[t];
      if (f.state != FiberState::kShuffle) continue;
      const int64_t lane = t - first;
      const int64_t source =
          f.kind == 0 ? lane + f.offset : (lane ^ (f.offset & (kWarp - 1)));
      const int64_t at = first + source;
      f.result = source < kWarp && at < last &&
                         fibers[at].state == FiberState::kShuffle
                     ? fibers[at].value
                     : f.value;
    }
    for (int64_t t = first; t < last; ++t) {
      if (fibers[t].state == FiberState::kShuffle) {
        fibers[t].state = FiberState::kReady;
      }
    }
    released = true;
  }
  return released;
}

// Runs `release(first)` for every warp (from lane `first`) whose 32
// lanes all wait in `state` at the same call site with the same `kind`,
// then readies them; true if any. A warp that is not whole or whose lanes
// disagree (divergent .sync.aligned code), or an error `release` returns,
// is an error naming `what`.
bool ReleaseWarps(Block& b, FiberState state, const char* what,
                  const std::function<std::string(int64_t first)>& release) {
  std::vector<Fiber>& fibers = *b.fibers;
  bool released = false;
  for (int64_t first = 0; first < b.block; first += kWarp) {
    const int64_t last = std::min<int64_t>(first + kWarp, b.block);
    int64_t waiting = 0;
    for (int64_t t = first; t < last; ++t) waiting += fibers[t].state == state;
    if (waiting == 0) continue;
    if (last - first < kWarp) {
      b.mma_error = absl::StrCat("an ", what, " in a warp of ", last - first,
                                 " threads (it needs 32)");
      return false;
    }
    if (waiting < kWarp) continue;
    for (int64_t l = 0; l < kWarp; ++l) {
      const Fiber& f = fibers[first + l];
      if (f.kind != fibers[first].kind || f.site != fibers[first].site) {
        b.mma_error =
            absl::StrCat("lanes 0 and ", l, " of a warp reached different ",
                         what, " instructions (divergent .sync code)");
        return false;
      }
    }
    if (std::string error = release(first); !error.empty()) {
      b.mma_error = error;
      return false;
    }
    for (int64_t t = first; t < last; ++t) fibers[t].state = FiberState::kReady;
    released = true;
  }
  return released;
}

// Loads the ldmatrix of every warp whose lanes all wait at one
// (warp_ldmatrix.h: bad row addresses are errors); true if any.
bool ReleaseLdMatrices(Block& b) {
  return ReleaseWarps(b, FiberState::kLdMatrix, "ldmatrix", [&](int64_t first) {
    int64_t rows[kWarp];
    int32_t* out[kWarp];
    for (int64_t l = 0; l < kWarp; ++l) {
      const Fiber& f = (*b.fibers)[first + l];
      rows[l] = f.ld_row - b.shared;
      out[l] = f.ld_out;
    }
    return ComputeWarpLdMatrix((*b.fibers)[first].kind, rows, b.shared,
                               b.shared_bytes, out);
  });
}

// Computes the mma of every warp whose lanes all wait at one; true if
// any (mma.sync needs the full warp).
bool ReleaseMmas(Block& b) {
  return ReleaseWarps(b, FiberState::kMma, "mma", [&](int64_t first) {
    const int32_t* a[kWarp];
    const int32_t* bv[kWarp];
    const int32_t* c[kWarp];
    int32_t* d[kWarp];
    for (int64_t l = 0; l < kWarp; ++l) {
      const Fiber& f = (*b.fibers)[first + l];
      a[l] = f.mma_a;
      bv[l] = f.mma_b;
      c[l] = f.mma_c;
      d[l] = f.mma_d;
    }
    ComputeWarpMma((*b.fibers)[first].kind, a, bv, c, d);
    return std::string();
  });
}

// An error when a cp.async of the block's threads that has not landed
// writes bytes the wgmma `f` reaches reads (its tile is not there yet:
// a race on a GPU), else "".
std::string UnlandedCopyInto(const Block& b, const Fiber& f) {
  WgmmaSpan spans[2];
  if (!WgmmaReadSpans(f.kind, f.desc_a, f.desc_b, spans).empty()) return "";
  for (int64_t t = 0; t < b.block; ++t) {
    const bool hit = b.copies[t].AnyPending([&](const uint8_t* dst,
                                                int32_t bytes) {
      const int64_t at = dst - b.shared;
      bool near = false;
      for (const WgmmaSpan& s : spans) near |= at < s.hi && at + bytes > s.lo;
      return near && WgmmaReadsAny(f.kind, f.desc_a, f.desc_b, at, at + bytes);
    });
    if (hit) {
      return absl::StrCat("a wgmma reads shared memory that thread ", t,
                          "'s cp.async has not landed in yet (no wait for "
                          "it before the barrier)");
    }
  }
  const bool bulk_hit = b.mbarriers.AnyPending([&](int64_t at, int32_t bytes) {
    bool near = false;
    for (const WgmmaSpan& s : spans) near |= at < s.hi && at + bytes > s.lo;
    return near && WgmmaReadsAny(f.kind, f.desc_a, f.desc_b, at, at + bytes);
  });
  if (bulk_hit) {
    return "a wgmma reads shared memory that a cp.async.bulk.tensor has not "
           "landed in yet (no wait on its mbarrier before the wgmma)";
  }
  return "";
}

// Releases the threads waiting on an mbarrier whose phase they wait for
// has completed (landing its bulk copies when every arrival is in); true
// if any.
bool ReleaseMbarrierWaits(Block& b) {
  bool released = false;
  for (Fiber& f : *b.fibers) {
    if (f.state != FiberState::kMbarrier) continue;
    std::string error;
    if (b.mbarriers.TryWait(f.mbarrier, f.parity, b.shared, error)) {
      f.state = FiberState::kReady;
      released = true;
    } else if (!error.empty()) {
      b.mma_error = error;
      return false;
    }
  }
  return released;
}

// Issues the wgmma of every warpgroup (4 warps from a multiple of 4)
// whose 128 threads all wait at the same one (wgmma_queue.h computes it
// when it is waited for); true if any. A warpgroup that is not whole,
// disagrees on the instruction or on the groups committed before it, or
// whose wgmma is bad (warpgroup_mma.h) is an error.
bool ReleaseWgmmas(Block& b) {
  constexpr int64_t kGroup = 4 * kWarp;
  std::vector<Fiber>& fibers = *b.fibers;
  bool released = false;
  for (int64_t first = 0; first < b.block; first += kGroup) {
    const int64_t last = std::min<int64_t>(first + kGroup, b.block);
    int64_t waiting = 0;
    for (int64_t t = first; t < last; ++t) {
      waiting += fibers[t].state == FiberState::kWgmma;
    }
    if (waiting == 0) continue;
    if (last - first < kGroup) {
      b.mma_error = absl::StrCat("a wgmma in a warpgroup of ", last - first,
                                 " threads (it needs 128)");
      return false;
    }
    if (waiting < kGroup) continue;
    const int32_t* c[kGroup];
    int32_t* d[kGroup];
    const Fiber& lead = fibers[first];
    for (int64_t l = 0; l < kGroup; ++l) {
      const Fiber& f = fibers[first + l];
      if (f.kind != lead.kind || f.site != lead.site ||
          f.desc_a != lead.desc_a || f.desc_b != lead.desc_b) {
        b.mma_error = absl::StrCat(
            "threads ", first, " and ", first + l,
            " of a warpgroup reached different wgmma instructions or "
            "descriptors");
        return false;
      }
      if (b.wgmma_commits[first + l] != b.wgmma_commits[first]) {
        b.mma_error = absl::StrCat(
            "threads ", first, " and ", first + l,
            " of a warpgroup reached a wgmma having committed different "
            "numbers of wgmma groups");
        return false;
      }
      c[l] = f.mma_c;
      d[l] = f.mma_d;
    }
    if (std::string e = UnlandedCopyInto(b, lead); !e.empty()) {
      b.mma_error = e;
      return false;
    }
    const std::string error = b.wgmmas[first / kGroup].Issue(
        lead.kind, lead.desc_a, lead.desc_b, b.wgmma_commits[first], b.shared,
        b.shared_bytes, c, d);
    if (!error.empty()) {
      b.mma_error = error;
      return false;
    }
    for (int64_t t = first; t < last; ++t) fibers[t].state = FiberState::kReady;
    released = true;
  }
  return released;
}

absl::Status RunCooperativeBlock(Block& b) {
  std::vector<std::unique_ptr<char[]>>& stacks = Stacks();
  while (static_cast<int64_t>(stacks.size()) < b.block) {
    stacks.push_back(std::make_unique<char[]>(kStackBytes));
  }
  std::vector<Fiber> fibers(b.block);
  b.fibers = &fibers;
  for (int64_t t = 0; t < b.block; ++t) {
    Fiber& f = fibers[t];
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = stacks[t].get();
    f.context.uc_stack.ss_size = kStackBytes;
    f.context.uc_link = &b.scheduler;
    makecontext(&f.context, FiberMain, 0);
  }
  for (int64_t round = 0;; ++round) {
    for (int64_t t = 0; t < b.block; ++t) {
      if (fibers[t].state != FiberState::kReady) continue;
      b.thread = t;
      swapcontext(&b.scheduler, &fibers[t].context);
    }
    int64_t done = 0, at_barrier = 0, at_shuffle = 0;
    for (const Fiber& f : fibers) {
      done += f.state == FiberState::kDone;
      at_barrier += f.state == FiberState::kBarrier;
      at_shuffle +=
          f.state == FiberState::kShuffle || f.state == FiberState::kLdMatrix ||
          f.state == FiberState::kMma || f.state == FiberState::kWgmma ||
          f.state == FiberState::kMbarrier;
    }
    // Errors the threads' calls found (a wgmma wait, a cp.async into a
    // wgmma's operands) before the block may end.
    if (!b.mma_error.empty()) {
      return absl::InternalError(
          absl::StrCat("block ", b.block_id, ": ", b.mma_error));
    }
    if (done == b.block) {
      const std::string leftover = b.tmem.Leftover();
      if (leftover.empty()) return absl::OkStatus();
      return absl::InternalError(
          absl::StrCat("block ", b.block_id, ": ", leftover));
    }
    // Every kind of wait that can end ends in the same round, so that a
    // thread released by an mbarrier (a producer warp) runs beside the
    // warps that go on multiplying, as on a GPU, not only once they block.
    bool progress = ReleaseShuffles(b);
    if (b.mma_error.empty()) progress |= ReleaseLdMatrices(b);
    progress |= ReleaseMmas(b);
    if (b.mma_error.empty()) progress |= ReleaseWgmmas(b);
    if (b.mma_error.empty()) progress |= ReleaseMbarrierWaits(b);
    if (progress && b.mma_error.empty()) continue;
    if (!b.mma_error.empty()) {
      return absl::InternalError(
          absl::StrCat("block ", b.block_id, ": ", b.mma_error));
    }
    if (at_barrier > 0 && at_shuffle == 0) {
      if (done > 0) {
        int64_t exited = 0;
        while (fibers[exited].state != FiberState::kDone) ++exited;
        return absl::InternalError(absl::StrCat(
            "block ", b.block_id, ": a barrier was reached by ", at_barrier,
            " of ", b.block, " threads; thread ", exited, " (and ", done - 1,
            " more) exited without reaching it"));
      }
      for (Fiber& f : fibers) f.state = FiberState::kReady;
      continue;
    }
    return absl::InternalError(absl::StrCat(
        "block ", b.block_id, ": threads deadlock: ", at_barrier,
        " wait at a barrier and ", at_shuffle,
        " at a warp shuffle, mma or wgmma that lanes of their warp (or "
        "warpgroup) never reach, or at an mbarrier whose phase never "
        "completes"));
  }
}

}  // namespace

absl::Status LaunchKernel(KernelEntry entry, const EmulatedLaunch& launch,
                          void** arguments) {
  if (launch.block < 1 || launch.block > kMaxBlock || launch.grid < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad launch: grid ", launch.grid, ", block ", launch.block));
  }
  Block b;
  b.entry = entry;
  b.arguments = arguments;
  b.grid = launch.grid;
  b.block = launch.block;
  b.copies.resize(launch.block);
  b.wgmmas.resize((launch.block + 127) / 128);
  b.wgmma_commits.resize(launch.block);
  std::vector<uint8_t> shared(std::max<int64_t>(launch.shared_bytes, 1));
  b.shared = shared.data();
  b.shared_bytes = static_cast<int64_t>(shared.size());
  Block* saved = current;
  current = &b;
  absl::Status status;
  for (int64_t g = 0; g < launch.grid && status.ok(); ++g) {
    b.block_id = g;
    // Not zeros: a GPU's shared memory starts undefined, and a kernel
    // that reads what it never wrote must not pass here by luck.
    std::memset(shared.data(), 0xA5, shared.size());
    for (AsyncCopyQueue& q : b.copies) q.Clear();
    for (WgmmaQueue& q : b.wgmmas) q.Clear();
    std::fill(b.wgmma_commits.begin(), b.wgmma_commits.end(), 0);
    b.mbarriers.Clear();
    b.tmem.Clear();
    if (launch.cooperative) {
      status = RunCooperativeBlock(b);
      continue;
    }
    for (int64_t t = 0; t < launch.block; ++t) {
      b.thread = t;
      entry(arguments);
    }
    if (!b.misuse.empty()) status = absl::InternalError(b.misuse);
  }
  current = saved;
  return status;
}

std::vector<std::pair<const char*, void*>> EmulatorRuntimeSymbols() {
  return {
      {"xlite_emu_sreg", reinterpret_cast<void*>(&xlite_emu_sreg)},
      {"xlite_emu_barrier", reinterpret_cast<void*>(&xlite_emu_barrier)},
      {"xlite_emu_shfl", reinterpret_cast<void*>(&xlite_emu_shfl)},
      {"xlite_emu_shared", reinterpret_cast<void*>(&xlite_emu_shared)},
      {"xlite_emu_mma", reinterpret_cast<void*>(&xlite_emu_mma)},
      {"xlite_emu_ldmatrix", reinterpret_cast<void*>(&xlite_emu_ldmatrix)},
      {"xlite_emu_wgmma", reinterpret_cast<void*>(&xlite_emu_wgmma)},
      {"xlite_emu_wgmma_commit",
       reinterpret_cast<void*>(&xlite_emu_wgmma_commit)},
      {"xlite_emu_wgmma_wait", reinterpret_cast<void*>(&xlite_emu_wgmma_wait)},
      {"xlite_emu_cp_async", reinterpret_cast<void*>(&xlite_emu_cp_async)},
      {"xlite_emu_cp_async_commit",
       reinterpret_cast<void*>(&xlite_emu_cp_async_commit)},
      {"xlite_emu_cp_async_wait",
       reinterpret_cast<void*>(&xlite_emu_cp_async_wait)},
      {"xlite_emu_mbarrier_init",
       reinterpret_cast<void*>(&xlite_emu_mbarrier_init)},
      {"xlite_emu_mbarrier_arrive_expect_tx",
       reinterpret_cast<void*>(&xlite_emu_mbarrier_arrive_expect_tx)},
      {"xlite_emu_mbarrier_arrive",
       reinterpret_cast<void*>(&xlite_emu_mbarrier_arrive)},
      {"xlite_emu_mbarrier_wait",
       reinterpret_cast<void*>(&xlite_emu_mbarrier_wait)},
      {"xlite_emu_tma_load", reinterpret_cast<void*>(&xlite_emu_tma_load)},
      {"xlite_emu_tmem_alloc", reinterpret_cast<void*>(&xlite_emu_tmem_alloc)},
      {"xlite_emu_tmem_dealloc",
       reinterpret_cast<void*>(&xlite_emu_tmem_dealloc)},
      {"xlite_emu_tcgen05_mma",
       reinterpret_cast<void*>(&xlite_emu_tcgen05_mma)},
      {"xlite_emu_tcgen05_commit",
       reinterpret_cast<void*>(&xlite_emu_tcgen05_commit)},
      {"xlite_emu_tcgen05_ld", reinterpret_cast<void*>(&xlite_emu_tcgen05_ld)},
  };
}

}  // namespace xlite::gpu::emulator

using xlite::gpu::emulator::current;
using xlite::gpu::emulator::FiberState;

extern "C" int32_t xlite_emu_sreg(int32_t which) {
  const auto* b = current;
  switch (which) {
    case 0:
      return static_cast<int32_t>(b->thread);
    case 3:
      return static_cast<int32_t>(b->block_id);
    case 6:
      return static_cast<int32_t>(b->block);
    case 9:
      return static_cast<int32_t>(b->grid);
    case 7:
    case 8:
    case 10:
    case 11:
      return 1;
    default:
      return 0;
  }
}

extern "C" void xlite_emu_barrier() {
  if (current->fibers == nullptr) {
    current->misuse = "a kernel launched without cooperation reached a barrier";
    return;
  }
  xlite::gpu::emulator::Yield(FiberState::kBarrier);
}

extern "C" int32_t xlite_emu_shfl(int32_t kind, int32_t value, int32_t offset) {
  if (current->fibers == nullptr) {
    current->misuse = "a kernel launched without cooperation shuffled";
    return value;
  }
  auto& f = (*current->fibers)[current->thread];
  f.kind = kind;
  f.value = value;
  f.offset = offset;
  xlite::gpu::emulator::Yield(FiberState::kShuffle);
  return (*current->fibers)[current->thread].result;
}

extern "C" void* xlite_emu_shared() { return current->shared; }

extern "C" void xlite_emu_mma(int32_t kind, int32_t site, const int32_t* a,
                              const int32_t* b, const int32_t* c, int32_t* d) {
  if (current->fibers == nullptr) {
    current->misuse = "a kernel launched without cooperation ran an mma";
    return;
  }
  auto& f = (*current->fibers)[current->thread];
  f.kind = kind;
  f.site = site;
  f.mma_a = a;
  f.mma_b = b;
  f.mma_c = c;
  f.mma_d = d;
  xlite::gpu::emulator::Yield(FiberState::kMma);
}

extern "C" void xlite_emu_ldmatrix(int32_t count, int32_t site, const void* row,
                                   int32_t* out) {
  if (current->fibers == nullptr) {
    current->misuse = "a kernel launched without cooperation ran an ldmatrix";
    return;
  }
  auto& f = (*current->fibers)[current->thread];
  f.kind = count;
  f.site = site;
  f.ld_row = static_cast<const uint8_t*>(row);
  f.ld_out = out;
  xlite::gpu::emulator::Yield(FiberState::kLdMatrix);
}

extern "C" void xlite_emu_wgmma(int32_t op, int32_t site, int64_t desc_a,
                                int64_t desc_b, const int32_t* c, int32_t* d) {
  if (current->fibers == nullptr) {
    current->misuse = "a kernel launched without cooperation ran a wgmma";
    return;
  }
  auto& f = (*current->fibers)[current->thread];
  f.kind = op;
  f.site = site;
  f.desc_a = static_cast<uint64_t>(desc_a);
  f.desc_b = static_cast<uint64_t>(desc_b);
  f.mma_c = c;
  f.mma_d = d;
  xlite::gpu::emulator::Yield(FiberState::kWgmma);
}

extern "C" void xlite_emu_wgmma_commit() {
  if (current->fibers == nullptr) {
    current->misuse = "a kernel launched without cooperation ran a wgmma";
    return;
  }
  ++current->wgmma_commits[current->thread];
}

extern "C" void xlite_emu_wgmma_wait(int32_t pending, int32_t* regs,
                                     int32_t count) {
  auto* b = current;
  if (b->fibers == nullptr) {
    b->misuse = "a kernel launched without cooperation ran a wgmma";
    return;
  }
  const std::string error = b->wgmmas[b->thread / 128].Wait(
      b->thread % 128, b->wgmma_commits[b->thread], pending, b->shared,
      b->shared_bytes, regs, count);
  if (!error.empty() && b->mma_error.empty()) {
    b->mma_error = absl::StrCat("thread ", b->thread, ": ", error);
  }
}

extern "C" void xlite_emu_cp_async(void* dst, const void* src, int32_t bytes,
                                   int32_t copy) {
  auto* b = current;
  const int64_t at = static_cast<uint8_t*>(dst) - b->shared;
  if (b->fibers != nullptr && at >= 0 && at < b->shared_bytes &&
      b->mma_error.empty()) {
    for (const xlite::gpu::emulator::WgmmaQueue& q : b->wgmmas) {
      if (!q.Reads(at, at + bytes)) continue;
      b->mma_error = absl::StrCat("thread ", b->thread,
                                  ": a cp.async writes shared bytes ", at, "..",
                                  at + bytes - 1,
                                  ", which a wgmma in flight (not yet waited "
                                  "for) reads");
      break;
    }
  }
  b->copies[b->thread].Issue(dst, copy != 0 ? src : nullptr, bytes);
}

extern "C" void xlite_emu_cp_async_commit() {
  current->copies[current->thread].Commit();
}

extern "C" void xlite_emu_cp_async_wait(int32_t pending) {
  xlite::gpu::emulator::AsyncCopyQueue& q = current->copies[current->thread];
  if (pending < 0) {
    q.WaitAll();
  } else {
    q.WaitGroup(pending);
  }
}

namespace {

// The shared offset of `p`, or an error naming `what` when it is not in
// the block's shared memory or the kernel does not cooperate.
bool SharedOffset(const void* p, const char* what, int64_t& at) {
  auto* b = current;
  at = static_cast<const uint8_t*>(p) - b->shared;
  if (b->fibers == nullptr) {
    b->misuse =
        absl::StrCat("a kernel launched without cooperation ran ", what);
    return false;
  }
  if (at < 0 || at >= b->shared_bytes) {
    if (b->mma_error.empty()) {
      b->mma_error = absl::StrCat("thread ", b->thread, ": ", what,
                                  " on an address outside shared memory");
    }
    return false;
  }
  return true;
}

void Report(const std::string& error) {
  auto* b = current;
  if (!error.empty() && b->mma_error.empty()) {
    b->mma_error = absl::StrCat("thread ", b->thread, ": ", error);
  }
}

}  // namespace

extern "C" void xlite_emu_mbarrier_init(void* bar, int32_t count) {
  int64_t at = 0;
  if (SharedOffset(bar, "mbarrier.init", at)) {
    Report(current->mbarriers.Init(at, count));
  }
}

extern "C" void xlite_emu_mbarrier_arrive_expect_tx(void* bar, int32_t bytes) {
  int64_t at = 0;
  if (SharedOffset(bar, "mbarrier.arrive.expect_tx", at)) {
    Report(current->mbarriers.ArriveExpectTx(at, bytes));
  }
}

extern "C" void xlite_emu_mbarrier_arrive(void* bar) {
  int64_t at = 0;
  if (SharedOffset(bar, "mbarrier.arrive", at)) {
    Report(current->mbarriers.Arrive(at));
  }
}

extern "C" void xlite_emu_mbarrier_wait(void* bar, int32_t parity) {
  int64_t at = 0;
  if (!SharedOffset(bar, "mbarrier.try_wait", at)) return;
  auto* b = current;
  std::string error;
  if (b->mbarriers.TryWait(at, parity, b->shared, error)) return;
  if (!error.empty()) {
    Report(error);
    return;
  }
  // Blocked until ReleaseMbarrierWaits finds the phase complete.
  auto& f = (*b->fibers)[b->thread];
  f.mbarrier = at;
  f.parity = parity;
  xlite::gpu::emulator::Yield(FiberState::kMbarrier);
}

extern "C" void xlite_emu_tma_load(void* dst, const void* map,
                                   const int32_t* coords, void* bar) {
  int64_t at = 0, bar_at = 0;
  if (!SharedOffset(dst, "cp.async.bulk.tensor", at) ||
      !SharedOffset(bar, "cp.async.bulk.tensor's mbarrier", bar_at)) {
    return;
  }
  auto* b = current;
  std::vector<xlite::gpu::emulator::MbarrierTable::Chunk> chunks;
  const auto& m =
      *static_cast<const xlite::gpu::emulator::EmulatedTensorMap*>(map);
  std::string error = xlite::gpu::emulator::GatherTmaBox(
      m, coords, at, b->shared_bytes, chunks);
  for (const auto& c : chunks) {
    if (!error.empty()) break;
    for (const xlite::gpu::emulator::WgmmaQueue& q : b->wgmmas) {
      if (!q.Reads(c.at, c.at + 16)) continue;
      error = absl::StrCat("a cp.async.bulk.tensor writes shared bytes ", c.at,
                           "..", c.at + 15,
                           ", which a wgmma in flight (not yet waited for) "
                           "reads");
      break;
    }
    if (error.empty() && b->tmem.Reads(c.at, c.at + 16)) {
      error = absl::StrCat("a cp.async.bulk.tensor writes shared bytes ", c.at,
                           "..", c.at + 15,
                           ", which a tcgen05.mma not yet complete reads (no "
                           "wait on its tcgen05.commit's mbarrier)");
    }
  }
  if (error.empty()) {
    error = b->mbarriers.AddCopy(bar_at, std::move(chunks));
  }
  Report(error);
}

extern "C" void xlite_emu_tmem_alloc(void* slot, int32_t columns) {
  int64_t at = 0;
  if (!SharedOffset(slot, "tcgen05.alloc", at)) return;
  auto* b = current;
  // The warp allocates once; its first lane stands for it.
  if (b->thread % 32 != 0) return;
  uint32_t address = 0;
  if (std::string e = b->tmem.Alloc(columns, address); !e.empty()) {
    Report(e);
    return;
  }
  if (at + 4 > b->shared_bytes) {
    Report("tcgen05.alloc's address slot runs past shared memory");
    return;
  }
  std::memcpy(b->shared + at, &address, 4);
}

extern "C" void xlite_emu_tmem_dealloc(int32_t address, int32_t columns) {
  auto* b = current;
  if (b->thread % 32 != 0) return;
  Report(b->tmem.Dealloc(static_cast<uint32_t>(address), columns));
}

extern "C" void xlite_emu_tcgen05_mma(int32_t kind, int32_t idesc, int32_t tmem,
                                      int64_t desc_a, int64_t desc_b,
                                      int32_t accumulate) {
  auto* b = current;
  Report(b->tmem.Issue(
      static_cast<xlite::gpu::emulator::Tcgen05Kind>(kind),
      static_cast<uint32_t>(idesc), static_cast<uint32_t>(tmem),
      static_cast<uint64_t>(desc_a), static_cast<uint64_t>(desc_b),
      accumulate != 0, b->thread, b->shared, b->shared_bytes));
}

extern "C" void xlite_emu_tcgen05_commit(void* bar) {
  int64_t at = 0;
  if (!SharedOffset(bar, "tcgen05.commit", at)) return;
  auto* b = current;
  const int64_t through = b->tmem.Issued();
  Report(b->mbarriers.ArriveOnCompletion(at, [b, through]() {
    return b->tmem.CompleteThrough(through, b->shared, b->shared_bytes);
  }));
}

extern "C" void xlite_emu_tcgen05_ld(int32_t address, int32_t count,
                                     int32_t* out) {
  auto* b = current;
  Report(b->tmem.Load(b->thread / 32, b->thread % 32,
                      static_cast<uint32_t>(address), count, out));
}
