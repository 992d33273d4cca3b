// The runtime library's thread pool (parallel_for.h), Eigen's
// non-blocking ThreadPool.

#include "cpu_backend/runtime_lib/parallel_for.h"

#define EIGEN_USE_THREADS
#include <algorithm>
#include <cstdlib>
#include <thread>
#include <utility>
#include <unsupported/Eigen/CXX11/ThreadPool>

#include "hlo/ir/denormal_mode.h"

namespace xlite::cpu {
namespace {

int64_t ReadThreads() {
  if (const char* s = std::getenv("XLITE_CPU_THREADS")) {
    const long v = std::strtol(s, nullptr, 10);
    if (v > 0) return v;
  }
  return std::max<int64_t>(1, std::thread::hardware_concurrency());
}

// The pool's workers: one fewer than the threads, the caller being one;
// not spinning when idle.
Eigen::ThreadPool& Pool() {
  static Eigen::ThreadPool pool(
      static_cast<int>(std::max<int64_t>(1, ContractionThreads() - 1)),
      /*allow_spinning=*/true);
  return pool;
}

// Queues `f` to run in the denormal mode of the thread queuing it: the
// compiled code flushes denormals, and so must the parts it hands over.
// The worker's own mode (which a thread inherits from the one that made
// it) is restored after.
void Schedule(Eigen::ThreadPool& pool, std::function<void()> f) {
  pool.Schedule([mode = CurrentDenormalMode(), f = std::move(f)] {
    ScopedDenormalMode scope(mode);
    f();
  });
}

}  // namespace

int64_t ContractionThreads() {
  static const int64_t threads = ReadThreads();
  return threads;
}

int64_t TasksFor(int64_t multiply_adds, int64_t limit) {
  const int64_t by_work = multiply_adds / kMinMultiplyAddsPerTask;
  return std::max<int64_t>(
      1, std::min({ContractionThreads(), by_work, limit}));
}

void ScheduleOnPool(std::function<void()> f) { Schedule(Pool(), std::move(f)); }

bool OnPoolThread() { return Pool().CurrentThreadId() != -1; }

void ParallelFor(int64_t tasks, const std::function<void(int64_t)>& f) {
  if (tasks <= 1) {
    f(0);
    return;
  }
  Eigen::ThreadPool& pool = Pool();
  // A worker waiting on tasks queued behind it could wait forever: a call
  // from inside the pool runs its tasks itself.
  if (pool.CurrentThreadId() != -1) {
    for (int64_t t = 0; t < tasks; ++t) f(t);
    return;
  }
  Eigen::Barrier done(static_cast<unsigned>(tasks - 1));
  for (int64_t t = 1; t < tasks; ++t) {
    Schedule(pool, [&f, &done, t] {
      f(t);
      done.Notify();
    });
  }
  f(0);
  done.Wait();
}

}  // namespace xlite::cpu
