#ifndef XLITE_CPU_BACKEND_RUNTIME_LIB_PARALLEL_FOR_H_
#define XLITE_CPU_BACKEND_RUNTIME_LIB_PARALLEL_FOR_H_

// Internal to the runtime library: the thread pool that large matrix
// products and convolutions split over. One pool per process, made on
// first use, with one thread per core (the caller works too); a call
// splits only when each task keeps at least kMinMultiplyAddsPerTask, about
// 100 us of one core's GEMM, so small calls stay inline. Idle workers
// sleep rather than spin, so that they leave the cores to the emitted code
// between library calls.

#include <cstdint>
#include <functional>

namespace xlite::cpu {

/// Multiply-adds one task must keep for a call to split: 2^23, about
/// 120 us at 70 G multiply-adds/s, one core's AVX-512 f32 GEMM rate
/// (hlo-run --profile on the benchmark programs' dots).
inline constexpr int64_t kMinMultiplyAddsPerTask = int64_t{1} << 23;

/// Chunks per thread of a split kernel (xlite_cpu_parallel_range): taken
/// in turn, so that one slow thread does not hold up the rest.
inline constexpr int64_t kChunksPerThread = 4;

/// Threads a call may use: the machine's cores, or XLITE_CPU_THREADS when
/// that is a positive number (read once).
int64_t ContractionThreads();

/// Tasks for a call of `multiply_adds` split at most `limit` ways: as many
/// as ContractionThreads() allows with kMinMultiplyAddsPerTask each, at
/// least 1.
int64_t TasksFor(int64_t multiply_adds, int64_t limit);

/// Runs `f` on a pool worker, later, in the calling thread's denormal mode
/// (hlo/ir/denormal_mode.h); returns at once.
void ScheduleOnPool(std::function<void()> f);

/// True on one of the pool's workers.
bool OnPoolThread();

/// Runs f(0) ... f(tasks - 1), f(0) on the calling thread, the others on
/// the pool in the calling thread's denormal mode, and returns when all
/// have.
void ParallelFor(int64_t tasks, const std::function<void(int64_t)>& f);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_RUNTIME_LIB_PARALLEL_FOR_H_
