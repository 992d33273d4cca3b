#ifndef XLITE_RUNTIME_CUDA_CUBLAS_LT_H_
#define XLITE_RUNTIME_CUDA_CUBLAS_LT_H_

// GEMM thunks on a CUDA device with cuBLASLt, loaded at run time with
// dlopen (so hlo-run-gpu runs wherever a libcublasLt of any CUDA 12/13
// version is found, and needs none until an image has a GEMM): the
// library named by $XLITE_CUBLASLT, else libcublasLt.so.13, .so.12, .so.
// One handle; per GEMM a matmul descriptor, four matrix layouts
// (cublas_lt_params.h), the epilogue's bias/aux/scale/amax pointers, the
// call's workspace slice, and the algorithm the autotuner chose or else
// the first one cublasLtMatmulAlgoGetHeuristic proposes, run on the
// device's stream. The autotuner (cublas_lt_tuner.h) asks the same
// heuristic for its top candidates.
//
// Never run on a GPU yet (the machines this was written on have none): the
// parameter translation is unit-tested, this file only compiles.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/cuda/cublas_lt_api.h"
#include "runtime/gemm_algorithm.h"
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
  /// `workspace_bytes` the size of the workspace leaf (0: none). With
  /// `algorithm`, that one runs; without, the heuristic's first.
  absl::Status Run(const GemmDescription& gemm,
                   const std::vector<uint64_t>& arguments,
                   int64_t workspace_bytes, void* stream,
                   const GemmAlgorithm* algorithm = nullptr) const;

  /// cublasLtMatmulAlgoGetHeuristic's best `count` algorithms for `gemm`
  /// within `workspace_bytes`, best first (only those it says work).
  absl::StatusOr<std::vector<lt::HeuristicResult>> Heuristics(
      const GemmDescription& gemm, const std::vector<uint64_t>& arguments,
      int64_t workspace_bytes, int count) const;

  /// cublasLtGetVersion() ("130100"), or "unknown".
  std::string version() const;
  /// "id=21 tile=20 stages=8 splitk=1 reduction=0 swizzle=0 custom=0
  /// inner=0 cluster=0" from the algorithm's configuration; its words in
  /// hex when the library cannot say.
  std::string Describe(const lt::MatmulAlgo& algorithm) const;

 private:
  CublasLtRunner(const lt::Api& api, lt::Handle* handle)
      : api_(api), handle_(handle) {}
  const lt::Api& api_;
  lt::Handle* handle_;
};

}  // namespace xlite::runtime::cuda

#endif  // XLITE_RUNTIME_CUDA_CUBLAS_LT_H_
