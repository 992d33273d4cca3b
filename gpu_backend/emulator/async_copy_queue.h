#ifndef XLITE_GPU_BACKEND_EMULATOR_ASYNC_COPY_QUEUE_H_
#define XLITE_GPU_BACKEND_EMULATOR_ASYNC_COPY_QUEUE_H_

// One emulated thread's asynchronous copies (cp.async) that have not
// landed. A copy is recorded when issued, with its source's bytes as they
// are then (sources are read-only inputs, which the hardware may read at
// any time before the copy lands), and reaches its destination only when
// the thread waits for it: wait_group n lands the oldest committed groups
// until at most n remain, wait_all lands every copy, committed or not. A
// barrier lands nothing, so a kernel that reads a stage before waiting for
// it reads the shared memory's fill or stale data, here as on a GPU
// where it would be a race.

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

namespace xlite::gpu::emulator {

class AsyncCopyQueue {
 public:
  /// The largest copy (cp.async copies 4, 8 or 16 bytes).
  static constexpr int32_t kMaxBytes = 16;

  /// Records a copy of `bytes` (at most kMaxBytes) to `dst`: of `src`'s
  /// bytes now, or zeros when `src` is null; it joins the open group.
  void Issue(void* dst, const void* src, int32_t bytes);
  /// Closes the open group (maybe empty) as the newest committed one.
  void Commit();
  /// Lands the oldest committed groups until at most `pending` remain.
  void WaitGroup(int64_t pending);
  /// Lands every copy, committed or not.
  void WaitAll();
  /// Forgets every copy (a new block).
  void Clear();
  /// Whether `hits(dst, bytes)` holds for a copy not landed yet.
  bool AnyPending(
      const std::function<bool(const uint8_t* dst, int32_t bytes)>& hits) const;

 private:
  struct Copy {
    uint8_t* dst = nullptr;
    int32_t bytes = 0;
    std::array<uint8_t, kMaxBytes> data{};
  };
  static void Land(const std::vector<Copy>& group);

  std::vector<Copy> open_;
  std::deque<std::vector<Copy>> committed_;
};

}  // namespace xlite::gpu::emulator

#endif  // XLITE_GPU_BACKEND_EMULATOR_ASYNC_COPY_QUEUE_H_
