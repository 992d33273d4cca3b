#ifndef XLITE_CPU_BACKEND_RUNTIME_LIB_CONTRACTION_KERNELS_H_
#define XLITE_CPU_BACKEND_RUNTIME_LIB_CONTRACTION_KERNELS_H_

// Internal to the runtime library: the Eigen GEMM kernels behind
// xlite_cpu_matmul(_strided) and xlite_cpu_conv, compiled once per instruction
// set (contraction_variant.cc; baseline x86-64, AVX2+FMA, AVX-512). Each
// variant computes one block of a call's output, so that matmul.cc and
// conv.cc can split a large call over threads; the variant is chosen once
// per process, the best the host's CPU supports.

#include <cstdint>
#include <vector>

#include "cpu_backend/runtime_lib/conv_geometry.h"

namespace xlite::cpu {

/// Most batch dimensions a MatMulBlock walks.
inline constexpr int kMatMulMaxBatchRank = 4;

/// Output block [row_begin, row_end) x [col_begin, col_end) of the
/// matrices [batch_begin, batch_end) of a batched product out = op(lhs) *
/// op(rhs) (xlite_cpu_matmul, xlite_cpu_matmul_strided; type already
/// checked, k >= 0: k = 0 writes zeros). Every matrix is stored row-major
/// with a leading dimension (elements between rows, at least its stored
/// column count): out m x n; lhs m x k, or k x m when `transpose_lhs`; rhs
/// k x n, or n x k when `transpose_rhs`. Batch index i (0 <= i <
/// product of batch_sizes) is the row-major flattening of an index over
/// `batch_rank` dimensions; matrix i of each operand starts at the sum of
/// its index times that operand's batch strides (elements).
struct MatMulBlock {
  int32_t type;
  const void* lhs;
  const void* rhs;
  void* out;
  int64_t m, k, n;
  bool transpose_lhs, transpose_rhs;
  int64_t lhs_ld, rhs_ld, out_ld;
  int32_t batch_rank;
  int64_t batch_sizes[kMatMulMaxBatchRank];
  int64_t lhs_batch_strides[kMatMulMaxBatchRank];
  int64_t rhs_batch_strides[kMatMulMaxBatchRank];
  int64_t out_batch_strides[kMatMulMaxBatchRank];
  int64_t batch_begin, batch_end;
  int64_t row_begin, row_end;
  int64_t col_begin, col_end;
};

/// The whole of a dense xlite_cpu_matmul call: `batch` matrices stored one
/// after another, each densely.
MatMulBlock DenseMatMulBlock(int32_t type, const void* lhs, const void* rhs,
                             void* out, int64_t batch, int64_t m, int64_t k,
                             int64_t n, bool transpose_lhs, bool transpose_rhs);

/// One instruction set's kernels.
struct ContractionKernels {
  /// "baseline", "avx2" or "avx512".
  const char* isa;
  /// Computes the block; the type is f32, f64, c64 or c128.
  void (*matmul)(const MatMulBlock& block);
  /// Output rows [row_begin, row_end) (ConvGeometry::rows()) of an
  /// xlite_cpu_conv call of type f32 (`f64` false) or f64 whose depth is
  /// not zero.
  void (*conv)(const ConvGeometry& g, bool f64, const void* input,
               const void* kernel, void* out, int64_t row_begin,
               int64_t row_end);
};

/// The kernels of the best instruction set this CPU supports, chosen on
/// the first call.
const ContractionKernels& BestContractionKernels();

/// Every variant this CPU can run, baseline first, best last.
std::vector<const ContractionKernels*> SupportedContractionKernels();

/// The supported variant named `cap` ("baseline", "avx2", "avx512"), or the
/// best one when `cap` is null or names none (BestContractionKernels reads
/// `cap` from the environment variable XLITE_CPU_ISA).
const ContractionKernels& ChooseContractionKernels(const char* cap);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_RUNTIME_LIB_CONTRACTION_KERNELS_H_
