#include "gpu_backend/emulator/async_copy_queue.h"

#include <algorithm>
#include <cstring>

namespace xlite::gpu::emulator {

void AsyncCopyQueue::Issue(void* dst, const void* src, int32_t bytes) {
  Copy c;
  c.dst = static_cast<uint8_t*>(dst);
  c.bytes = std::clamp<int32_t>(bytes, 0, kMaxBytes);
  if (src != nullptr) std::memcpy(c.data.data(), src, c.bytes);
  open_.push_back(c);
}

void AsyncCopyQueue::Commit() {
  committed_.push_back(std::move(open_));
  open_.clear();
}

void AsyncCopyQueue::WaitGroup(int64_t pending) {
  while (static_cast<int64_t>(committed_.size()) >
         std::max<int64_t>(pending, 0)) {
    Land(committed_.front());
    committed_.pop_front();
  }
}

void AsyncCopyQueue::WaitAll() {
  Commit();
  WaitGroup(0);
}

void AsyncCopyQueue::Clear() {
  open_.clear();
  committed_.clear();
}

void AsyncCopyQueue::Land(const std::vector<Copy>& group) {
  for (const Copy& c : group) std::memcpy(c.dst, c.data.data(), c.bytes);
}

bool AsyncCopyQueue::AnyPending(
    const std::function<bool(const uint8_t* dst, int32_t bytes)>& hits) const {
  auto any = [&](const std::vector<Copy>& group) {
    for (const Copy& c : group) {
      if (hits(c.dst, c.bytes)) return true;
    }
    return false;
  };
  if (any(open_)) return true;
  for (const std::vector<Copy>& group : committed_) {
    if (any(group)) return true;
  }
  return false;
}

}  // namespace xlite::gpu::emulator
