// xlite_cpu_parallel_range (runtime_lib.h): the parts of a kernel that the
// CPU backend split at compile time, run on the runtime library's pool.

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "cpu_backend/runtime_lib/parallel_for.h"
#include "cpu_backend/runtime_lib/runtime_lib.h"

namespace {

// One split kernel's chunks, shared by the caller and the workers it
// woke; a worker that starts after the caller returned finds no chunk left
// and touches nothing else.
struct Chunks {
  XliteKernelPart part;
  void** allocations;
  void* context;
  int64_t count;
  int64_t chunks;
  std::atomic<int64_t> next{0};
  std::mutex mu;
  std::condition_variable all_done;
  int64_t done = 0;  // under mu

  // Runs chunks until none is left to take.
  void Work() {
    for (int64_t c = next.fetch_add(1, std::memory_order_relaxed); c < chunks;
         c = next.fetch_add(1, std::memory_order_relaxed)) {
      part(allocations, context, c * count / chunks, (c + 1) * count / chunks);
      std::lock_guard<std::mutex> lock(mu);
      if (++done == chunks) all_done.notify_all();
    }
  }
};

}  // namespace

extern "C" void xlite_cpu_parallel_range(XliteKernelPart part,
                                         void** allocations, void* context,
                                         int64_t count, int64_t max_tasks) {
  using xlite::cpu::ContractionThreads;
  using xlite::cpu::kChunksPerThread;
  const int64_t threads = std::min({max_tasks, count, ContractionThreads()});
  // From inside the pool (a nested call), waiting on the pool could wait
  // forever: run whole.
  if (threads <= 1 || xlite::cpu::OnPoolThread()) {
    part(allocations, context, 0, count);
    return;
  }
  // More chunks than threads, each taken by whichever thread is free: a
  // worker that starts late (its core busy with another process) leaves
  // its share to the others, and the caller waits only for chunks under
  // way, never for a worker to start. Chunk c is
  // [c * count / chunks, (c + 1) * count / chunks).
  auto state = std::make_shared<Chunks>();
  state->part = part;
  state->allocations = allocations;
  state->context = context;
  state->count = count;
  state->chunks = std::min({max_tasks, count, threads * kChunksPerThread});
  for (int64_t t = 1; t < threads; ++t) {
    xlite::cpu::ScheduleOnPool([state] { state->Work(); });
  }
  state->Work();
  std::unique_lock<std::mutex> lock(state->mu);
  state->all_done.wait(lock, [&] { return state->done == state->chunks; });
}
