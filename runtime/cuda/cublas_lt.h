#ifndef XLITE_RUNTIME_CUDA_CUBLAS_LT_H_
#define XLITE_RUNTIME_CUDA_CUBLAS_LT_H_

// GEMM thunks on a CUDA device with cuBLASLt, loaded at run time with
// dlopen (so hlo-run-gpu runs wherever a libcublasLt of any CUDA 12/13
// version is found, and needs none until an image has a GEMM): the
// library named by $XLITE_CUBLASLT, else libcublasLt.so.13, .so.12, .so.
// One handle; per GEMM a matmul descriptor, four matrix layouts
// (cublas_lt_params.h), the epilogue's bias/aux/scale/amax pointers, the
// call's workspace slice, and the first algorithm cublasLtMatmulAlgoGet-
// Heuristic proposes, run on the device's stream.
//
// Never run on a GPU yet (the machines this was written on have none): the
// parameter translation is unit-tested, this file only compiles.

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/cuda/cublas_lt_api.h"
#include "runtime/gemm_description.h"

namespace xlite::runtime::cuda {

/// The loaded library (once per process), or a FailedPrecondition naming
/// what was tried.
absl::StatusOr<const lt::Api*> LoadCublasLt();

/// Builds (and destroys) the matmul descriptor and matrix layouts of
/// `gemm` with null pointers: cuBLASLt checks every attribute's value and
/// size, which needs the library but no GPU.
absl::Status CheckCublasLtDescriptors(const GemmDescription& gemm);

class CublasLtRunner {
 public:
  /// Loads cuBLASLt and creates a handle (the context must be current).
  static absl::StatusOr<std::unique_ptr<CublasLtRunner>> Create();
  ~CublasLtRunner();

  /// Enqueues `gemm` on `stream` (a CUstream); `arguments` holds the
  /// device address of each operand, then of each result leaf, and
  /// `workspace_bytes` the size of the workspace leaf (0: none).
  absl::Status Run(const GemmDescription& gemm,
                   const std::vector<uint64_t>& arguments,
                   int64_t workspace_bytes, void* stream) const;

 private:
  CublasLtRunner(const lt::Api& api, lt::Handle* handle)
      : api_(api), handle_(handle) {}
  const lt::Api& api_;
  lt::Handle* handle_;
};

}  // namespace xlite::runtime::cuda

#endif  // XLITE_RUNTIME_CUDA_CUBLAS_LT_H_
