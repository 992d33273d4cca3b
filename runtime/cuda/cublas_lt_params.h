#ifndef XLITE_RUNTIME_CUDA_CUBLAS_LT_PARAMS_H_
#define XLITE_RUNTIME_CUDA_CUBLAS_LT_PARAMS_H_

// A GEMM description (runtime/gemm_description.h) as cuBLASLt parameters:
// a pure translation, tested without a GPU. cuBLASLt is column-major: a
// row-major d is computed as its transpose, d^T = b^T a^T (a and b trade
// places), and each operand stored row-major is described as the
// column-major transpose it is, with op T. Every matrix layout is then
// CUBLASLT_ORDER_COL with its leading dimension, batch count and stride.
// Compute and scale types follow XLA's choice: f32 accumulation for
// f16/bf16/f8 (f32 scale), f64 for f64, complex scale for c64/c128, and
// TF32 tensor cores for f32 when no operand asks for more than DEFAULT
// precision (nor the config's algorithm for f32 passes).

#include <cstdint>

#include "absl/status/statusor.h"
#include "runtime/gemm_description.h"

namespace xlite::runtime::cuda {

/// One cublasLtMatrixLayout_t (column-major).
struct CublasLtMatrix {
  int32_t type = 0;  // cudaDataType_t
  uint64_t rows = 0;
  uint64_t cols = 0;
  int64_t leading_dim = 0;
  int32_t batch_count = 1;
  int64_t batch_stride = 0;  // elements
};

struct CublasLtGemmParams {
  int32_t compute_type = 0;  // cublasComputeType_t
  int32_t scale_type = 0;    // cudaDataType_t of alpha and beta
  int32_t trans_a = 0;       // cublasOperation_t
  int32_t trans_b = 0;
  int32_t epilogue = 0;  // cublasLtEpilogue_t
  /// d was row-major: cuBLASLt's A is the call's b and its B the call's a.
  bool swapped = false;
  /// Operand numbers feeding cuBLASLt's A and B.
  int64_t a_operand = 0;
  int64_t b_operand = 1;
  CublasLtMatrix a, b, c, d;
  double alpha_real = 1;
  double alpha_imag = 0;
  double beta = 0;
  /// The aux output (GELU_AUX) is laid out as d.
  int64_t aux_leading_dim = 0;
  int64_t aux_batch_stride = 0;
  /// The bias vector's cudaDataType_t (-1: no bias).
  int32_t bias_type = -1;
};

/// The parameters of `gemm`; an error when a GEMM thunk does not run it
/// (runtime::CheckGemmThunkSupport).
absl::StatusOr<CublasLtGemmParams> CublasLtParamsFor(
    const GemmDescription& gemm);

/// cudaDataType_t of an element type; -1 when cuBLASLt has none we use.
int32_t CudaDataType(PrimitiveType type);

}  // namespace xlite::runtime::cuda

#endif  // XLITE_RUNTIME_CUDA_CUBLAS_LT_PARAMS_H_
