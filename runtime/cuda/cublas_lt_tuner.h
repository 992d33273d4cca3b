#ifndef XLITE_RUNTIME_CUDA_CUBLAS_LT_TUNER_H_
#define XLITE_RUNTIME_CUDA_CUBLAS_LT_TUNER_H_

// GEMM autotuning on the CUDA device with cuBLASLt: the GemmTuningDevice
// of runtime/gemm_autotuner.h. A trial allocates the GEMM's operands and
// results on device 0 (operands uniform in [-1, 1) from a fixed seed,
// scalar operands — the f8 scales — 1), asks cublasLtMatmulAlgoGet-
// Heuristic for its top candidates within the call's workspace, and
// times each: one checked run whose d is read back for the result check,
// warm-up runs, then repetitions between two CUDA events (the host's
// clock after a stream synchronize where the driver has no events).
// Kept thin: the selection, its errors and the cache are the runtime's.
//
// Never run on a GPU yet (the machines this was written on have none):
// it only compiles here; without a device Create says "no CUDA device".

#include <memory>

#include "absl/status/statusor.h"
#include "runtime/gemm_autotuner.h"

namespace xlite::runtime::cuda {

struct CublasLtTunerOptions {
  /// Heuristic results to time per GEMM.
  int candidates = 8;
  int warmup_runs = 2;
  int timed_runs = 10;
};

/// The tuning device on CUDA device 0 (its primary context, a stream of
/// its own, a cuBLASLt handle), or why there is none.
absl::StatusOr<std::unique_ptr<GemmTuningDevice>> CreateCublasLtTuningDevice(
    const CublasLtTunerOptions& options = {});

}  // namespace xlite::runtime::cuda

#endif  // XLITE_RUNTIME_CUDA_CUBLAS_LT_TUNER_H_
