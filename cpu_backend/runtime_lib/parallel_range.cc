// xlite_cpu_parallel_range (runtime_lib.h): the parts of a kernel that the
// CPU backend split at compile time, run on the runtime library's pool.

#include <algorithm>

#include "cpu_backend/runtime_lib/parallel_for.h"
#include "cpu_backend/runtime_lib/runtime_lib.h"

extern "C" void xlite_cpu_parallel_range(XliteKernelPart part,
                                         void** allocations, void* context,
                                         int64_t count, int64_t max_tasks) {
  const int64_t tasks = std::max<int64_t>(
      1, std::min({max_tasks, count, xlite::cpu::ContractionThreads()}));
  if (tasks == 1) {
    part(allocations, context, 0, count);
    return;
  }
  // Task t runs [t * count / tasks, (t + 1) * count / tasks).
  xlite::cpu::ParallelFor(tasks, [&](int64_t t) {
    part(allocations, context, t * count / tasks, (t + 1) * count / tasks);
  });
}
