#include "gpu_backend/emulator/wgmma_queue.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace xlite::gpu::emulator {

void WgmmaQueue::Clear() {
  pending_.clear();
  regs_ = 0;
  acc_.clear();
  owed_.clear();
}

std::string WgmmaQueue::Issue(int32_t op, uint64_t desc_a, uint64_t desc_b,
                              int64_t group, const uint8_t* shared,
                              int64_t shared_bytes, const int32_t* const c[128],
                              int32_t* const d[128]) {
  Pending p{op, desc_a, desc_b, group, {}, {}};
  if (std::string e = WgmmaReadSpans(op, desc_a, desc_b, p.spans); !e.empty()) {
    return e;
  }
  const int64_t regs = ((op >> 8) & 0xfff) / 2;
  if (pending_.empty()) {  // a new chain: C from the registers
    regs_ = regs;
    acc_.assign(128 * regs_, 0);
    for (int t = 0; t < 128; ++t) {
      std::copy(c[t], c[t] + regs_, acc_.begin() + t * regs_);
    }
  } else if (regs != regs_) {
    return absl::StrCat("a wgmma with ", regs,
                        " accumulator registers per thread was issued "
                        "while one with ",
                        regs_,
                        " was in flight (the emulator models one "
                        "chain of accumulators per warpgroup)");
  } else if (group < pending_.back().group) {
    return "wgmma commit groups went backwards";
  } else {
    for (int t = 0; t < 128; ++t) {
      for (int64_t i = 0; i < regs_; ++i) {
        if (c[t][i] == kWgmmaInFlight) continue;
        return absl::StrCat(
            "a wgmma issued while others are in flight takes accumulators "
            "(thread ",
            t, " register ", i,
            ") that are not theirs (another accumulator set, which the "
            "emulator does not model, or registers changed in flight)");
      }
    }
  }
  p.read = WgmmaReadBytes(op, desc_a, desc_b, shared, shared_bytes);
  pending_.push_back(std::move(p));
  owed_.assign(128, true);
  for (int t = 0; t < 128; ++t) std::fill(d[t], d[t] + regs_, kWgmmaInFlight);
  return "";
}

std::string WgmmaQueue::Wait(int64_t lane, int64_t committed, int64_t pending,
                             const uint8_t* shared, int64_t shared_bytes,
                             int32_t* regs, int64_t count) {
  const int64_t done_before = committed - std::max<int64_t>(pending, 0);
  while (!pending_.empty() && pending_.front().group < done_before) {
    const Pending& p = pending_.front();
    const int32_t* c[128];
    int32_t* d[128];
    for (int t = 0; t < 128; ++t) c[t] = d[t] = acc_.data() + t * regs_;
    if (WgmmaReadBytes(p.op, p.desc_a, p.desc_b, shared, shared_bytes) !=
        p.read) {
      return "shared memory that a wgmma in flight reads changed between "
             "its issue and the wait for it";
    }
    if (std::string e = ComputeWarpgroupMma(p.op, p.desc_a, p.desc_b, shared,
                                            shared_bytes, c, d);
        !e.empty()) {
      return e;
    }
    pending_.pop_front();
  }
  if (count == 0 || acc_.empty()) return "";
  if (count != regs_) {
    return absl::StrCat("a wgmma wait passes ", count,
                        " accumulator registers; the wgmma-s waited for have ",
                        regs_);
  }
  if (!pending_.empty()) {
    std::fill(regs, regs + count, kWgmmaInFlight);
  } else if (owed_[lane]) {
    std::copy(acc_.begin() + lane * regs_, acc_.begin() + (lane + 1) * regs_,
              regs);
    owed_[lane] = false;
  }
  return "";
}

bool WgmmaQueue::Reads(int64_t lo, int64_t hi) const {
  for (const Pending& p : pending_) {
    for (const WgmmaSpan& s : p.spans) {
      if (s.lo < hi && lo < s.hi &&
          WgmmaReadsAny(p.op, p.desc_a, p.desc_b, lo, hi)) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace xlite::gpu::emulator
