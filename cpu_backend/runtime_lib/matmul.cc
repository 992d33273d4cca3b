// xlite_cpu_matmul and xlite_cpu_matmul_strided (see runtime_lib.h):
// batched Eigen GEMM, as the
// evaluator's MatMul (hlo/evaluator/dot_kernels.cc) for the same types,
// with the kernels of the best instruction set the CPU has
// (contraction_kernels.h). A large call splits over threads
// (parallel_for.h): by batch when there are enough matrices, else by
// output rows or columns, whichever are more; each output element is still
// one GEMM's sum over all of k.

#include <algorithm>
#include <cstring>
#include <utility>

#include "cpu_backend/runtime_lib/contraction_kernels.h"
#include "cpu_backend/runtime_lib/parallel_for.h"
#include "cpu_backend/runtime_lib/runtime_lib.h"

namespace xlite::cpu {
namespace {

static_assert(kMatMulStridedMaxBatchRank == kMatMulMaxBatchRank);

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

// Runs `whole` (its batch_end is the batch size), split over threads when
// large.
void Run(const MatMulBlock& whole) {
  const int64_t batch = whole.batch_end, m = whole.m, n = whole.n;
  const int64_t slices =
      batch * std::max<int64_t>(1, std::max(m, n) / kMinSliceWidth);
  // Complex products do four real multiply-adds each.
  const int64_t real_factor =
      whole.type == kTypeC64 || whole.type == kTypeC128 ? 4 : 1;
  RunSplit(whole, TasksFor(batch * m * n * whole.k * real_factor, slices));
}

// One operand of xlite_cpu_matmul_strided, a rows x cols matrix at
// (row_stride, col_stride), as the row-major matrix it is stored as: itself
// (`transposed` false) or its transpose, with leading dimension `ld`.
// False when it is neither. The stride of an extent of at most 1 is
// ignored.
bool Orient(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride,
            bool& transposed, int64_t& ld) {
  if (rows <= 1) row_stride = col_stride == 1 ? std::max<int64_t>(cols, 1) : 1;
  if (cols <= 1) col_stride = row_stride == 1 ? std::max<int64_t>(rows, 1) : 1;
  if (col_stride == 1 && row_stride >= std::max<int64_t>(cols, 1)) {
    transposed = false;
    ld = row_stride;
    return true;
  }
  if (row_stride == 1 && col_stride >= std::max<int64_t>(rows, 1)) {
    transposed = true;
    ld = col_stride;
    return true;
  }
  return false;
}

// Fills `block`'s batch from xlite_cpu_matmul_strided's `batch` argument;
// false when a size or stride is out of range.
bool SetBatch(int64_t batch_rank, const int64_t* batch, MatMulBlock& block) {
  block.batch_rank = static_cast<int32_t>(batch_rank);
  int64_t total = 1;
  for (int64_t d = 0; d < batch_rank; ++d) {
    const int64_t* dim = batch + 4 * d;
    if (dim[0] < 0 || dim[1] < 0 || dim[2] < 0 || dim[3] < 0) return false;
    // Distinct output matrices must not share elements' addresses.
    if (dim[0] > 1 && dim[3] == 0) return false;
    block.batch_sizes[d] = dim[0];
    block.lhs_batch_strides[d] = dim[1];
    block.rhs_batch_strides[d] = dim[2];
    block.out_batch_strides[d] = dim[3];
    total *= dim[0];
  }
  block.batch_begin = 0;
  block.batch_end = total;
  return true;
}

}  // namespace

MatMulBlock DenseMatMulBlock(int32_t type, const void* lhs, const void* rhs,
                             void* out, int64_t batch, int64_t m, int64_t k,
                             int64_t n, bool transpose_lhs,
                             bool transpose_rhs) {
  MatMulBlock b{};
  b.type = type;
  b.lhs = lhs;
  b.rhs = rhs;
  b.out = out;
  b.m = m;
  b.k = k;
  b.n = n;
  b.transpose_lhs = transpose_lhs;
  b.transpose_rhs = transpose_rhs;
  b.lhs_ld = transpose_lhs ? m : k;
  b.rhs_ld = transpose_rhs ? k : n;
  b.out_ld = n;
  b.batch_rank = 1;
  b.batch_sizes[0] = batch;
  b.lhs_batch_strides[0] = m * k;
  b.rhs_batch_strides[0] = k * n;
  b.out_batch_strides[0] = m * n;
  b.batch_begin = 0;
  b.batch_end = batch;
  b.row_end = m;
  b.col_end = n;
  return b;
}

// C linkage: the global functions runtime_lib.h declares.
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
  Run(DenseMatMulBlock(type, lhs, rhs, out, batch, m, k, n, transpose_lhs != 0,
                       transpose_rhs != 0));
  return kStatusOk;
}

extern "C" int32_t xlite_cpu_matmul_strided(int32_t type, const void* lhs,
                                            const void* rhs, void* out,
                                            int64_t m, int64_t k, int64_t n,
                                            const int64_t* matrix_strides,
                                            int64_t batch_rank,
                                            const int64_t* batch) {
  if (m < 0 || k < 0 || n < 0 || matrix_strides == nullptr || batch_rank < 0 ||
      batch_rank > kMatMulStridedMaxBatchRank ||
      (batch_rank > 0 && batch == nullptr)) {
    return kStatusInvalidArgument;
  }
  MatMulBlock b{};
  if (!SetBatch(batch_rank, batch, b)) return kStatusInvalidArgument;
  if (b.batch_end * m * n == 0) return kStatusOk;
  if (ElementBytes(type) == 0) return kStatusUnsupportedType;
  if (out == nullptr || (k > 0 && (lhs == nullptr || rhs == nullptr))) {
    return kStatusInvalidArgument;
  }
  const int64_t* s = matrix_strides;
  bool out_transposed = false;
  if (!Orient(m, k, s[0], s[1], b.transpose_lhs, b.lhs_ld) ||
      !Orient(k, n, s[2], s[3], b.transpose_rhs, b.rhs_ld) ||
      !Orient(m, n, s[4], s[5], out_transposed, b.out_ld)) {
    return kStatusInvalidArgument;
  }
  b.type = type;
  b.lhs = lhs;
  b.rhs = rhs;
  b.out = out;
  b.m = m;
  b.k = k;
  b.n = n;
  if (out_transposed) {
    // out^T = rhs^T lhs^T, with out^T row-major.
    std::swap(b.lhs, b.rhs);
    std::swap(b.m, b.n);
    std::swap(b.lhs_ld, b.rhs_ld);
    const bool tl = b.transpose_lhs;
    b.transpose_lhs = !b.transpose_rhs;
    b.transpose_rhs = !tl;
    std::swap(b.lhs_batch_strides, b.rhs_batch_strides);
  }
  b.row_end = b.m;
  b.col_end = b.n;
  Run(b);
  return kStatusOk;
}

}  // namespace xlite::cpu
