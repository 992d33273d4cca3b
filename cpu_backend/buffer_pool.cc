#include "cpu_backend/buffer_pool.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>

namespace xlite::cpu {
namespace {

constexpr int64_t kHugePage = int64_t{2} << 20;

}  // namespace

AlignedBuffer::AlignedBuffer(int64_t size) : size_(size) {
  const int64_t wanted = size > 0 ? size : 1;
  const int64_t alignment = wanted >= kHugePage ? kHugePage : 64;
  const int64_t rounded = (wanted + alignment - 1) / alignment * alignment;
  data_ = static_cast<uint8_t*>(std::aligned_alloc(alignment, rounded));
  if (alignment == kHugePage) {
    // Advice only: where huge pages are off, this fails and changes nothing.
    madvise(data_, rounded, MADV_HUGEPAGE);
  }
  std::memset(data_, 0, rounded);
}

AlignedBuffer::~AlignedBuffer() { std::free(data_); }

BufferSet BufferPool::Take() {
  {
    absl::MutexLock lock(&mu_);
    if (!kept_.empty()) {
      BufferSet set = std::move(kept_.back());
      kept_.pop_back();
      return set;
    }
  }
  BufferSet set(sizes_.size());
  for (size_t i = 0; i < sizes_.size(); ++i) {
    if (sizes_[i] >= 0) set[i] = std::make_unique<AlignedBuffer>(sizes_[i]);
  }
  return set;
}

void BufferPool::Give(BufferSet set) {
  absl::MutexLock lock(&mu_);
  if (kept_.size() < kKept) kept_.push_back(std::move(set));
}

}  // namespace xlite::cpu
