// xlite_cpu_matmul (see runtime_lib.h): batched Eigen GEMM, as the
// evaluator's MatMul (hlo/evaluator/dot_kernels.cc) for the same types,
// with the kernels of the best instruction set the CPU has
// (contraction_kernels.h). A large call splits over threads
// (parallel_for.h): by batch when there are enough matrices, else by
// output rows or columns, whichever are more; each output element is still
// one GEMM's sum over all of k.

#include <algorithm>
#include <cstring>

#include "cpu_backend/runtime_lib/contraction_kernels.h"
#include "cpu_backend/runtime_lib/parallel_for.h"
#include "cpu_backend/runtime_lib/runtime_lib.h"

namespace xlite::cpu {
namespace {

// Output rows or columns a task keeps at least when one matrix splits.
constexpr int64_t kMinSliceWidth = 16;

int64_t ElementBytes(int32_t type) {
  switch (type) {
    case kTypeF32:
      return 4;
    case kTypeF64:
    case kTypeC64:
      return 8;
    case kTypeC128:
      return 16;
    default:
      return 0;
  }
}

// Splits `whole` `tasks` ways and runs the parts on the pool.
void RunSplit(const MatMulBlock& whole, int64_t tasks) {
  const ContractionKernels& kernels = BestContractionKernels();
  if (tasks <= 1) {
    kernels.matmul(whole);
    return;
  }
  const int64_t batch = whole.batch_end;
  const bool by_batch = batch >= tasks;
  const bool by_rows = whole.m >= whole.n;
  ParallelFor(tasks, [&](int64_t t) {
    MatMulBlock part = whole;
    if (by_batch) {
      part.batch_begin = batch * t / tasks;
      part.batch_end = batch * (t + 1) / tasks;
    } else if (by_rows) {
      part.row_begin = whole.m * t / tasks;
      part.row_end = whole.m * (t + 1) / tasks;
    } else {
      part.col_begin = whole.n * t / tasks;
      part.col_end = whole.n * (t + 1) / tasks;
    }
    kernels.matmul(part);
  });
}

}  // namespace

// C linkage: the global function runtime_lib.h declares.
extern "C" int32_t xlite_cpu_matmul(int32_t type, const void* lhs,
                                    const void* rhs, void* out, int64_t batch,
                                    int64_t m, int64_t k, int64_t n,
                                    int32_t transpose_lhs,
                                    int32_t transpose_rhs) {
  if (batch < 0 || m < 0 || k < 0 || n < 0) return kStatusInvalidArgument;
  if (batch * m * n == 0) return kStatusOk;
  const int64_t bytes = ElementBytes(type);
  if (bytes == 0) return kStatusUnsupportedType;
  if (out == nullptr || (k > 0 && (lhs == nullptr || rhs == nullptr))) {
    return kStatusInvalidArgument;
  }
  if (k == 0) {
    std::memset(out, 0, batch * m * n * bytes);
    return kStatusOk;
  }
  const MatMulBlock whole = {type, lhs, rhs, out, m, k, n,
                             transpose_lhs != 0, transpose_rhs != 0,
                             0, batch, 0, m, 0, n};
  const int64_t slices =
      batch * std::max<int64_t>(1, std::max(m, n) / kMinSliceWidth);
  // Complex products do four real multiply-adds each.
  const int64_t real_factor = type == kTypeC64 || type == kTypeC128 ? 4 : 1;
  RunSplit(whole, TasksFor(batch * m * n * k * real_factor, slices));
  return kStatusOk;
}

}  // namespace xlite::cpu
