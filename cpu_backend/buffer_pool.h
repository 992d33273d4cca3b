#ifndef XLITE_CPU_BACKEND_BUFFER_POOL_H_
#define XLITE_CPU_BACKEND_BUFFER_POOL_H_

// The memory a compiled module runs in: aligned blocks (transparent huge
// pages for the large ones), and a pool that keeps the blocks of one run
// for the next, as XLA's device allocators keep theirs, so that a module
// run again does not map, fault in and zero its buffers every time.

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"

namespace xlite::cpu {

/// A 64-byte aligned block of bytes, zeroed when made. Blocks of 2 MiB
/// and more are aligned to 2 MiB and asked to live in huge pages (one
/// page fault per 2 MiB instead of 512).
class AlignedBuffer {
 public:
  explicit AlignedBuffer(int64_t size);
  ~AlignedBuffer();
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  uint8_t* data() const { return data_; }
  int64_t size() const { return size_; }

 private:
  uint8_t* data_;
  int64_t size_;
};

/// One buffer per allocation of a run (null where the run brings its own).
using BufferSet = std::vector<std::unique_ptr<AlignedBuffer>>;

/// Sets of buffers of fixed sizes, handed to one run at a time: Take gives
/// a kept set (its contents are whatever the last run left) or a fresh
/// one; Give keeps a set for a later run. Concurrent runs each get their
/// own. At most kKept sets are kept.
class BufferPool {
 public:
  static constexpr int kKept = 2;

  /// `sizes[i]` bytes for allocation i; a negative size: no buffer.
  explicit BufferPool(std::vector<int64_t> sizes) : sizes_(std::move(sizes)) {}

  BufferSet Take();
  void Give(BufferSet set);

 private:
  const std::vector<int64_t> sizes_;
  absl::Mutex mu_;
  std::vector<BufferSet> kept_ ABSL_GUARDED_BY(mu_);
};

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_BUFFER_POOL_H_
