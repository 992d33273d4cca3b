#ifndef XLITE_RUNTIME_GEMM_AUTOTUNER_H_
#define XLITE_RUNTIME_GEMM_AUTOTUNER_H_

// The GEMM autotuner, independent of any device: a GemmTuningDevice lists
// a GEMM's candidate algorithms (cuBLASLt's top heuristic results) and
// runs each on fixed inputs; the tuner keeps the fastest whose result
// matches the reference (the first candidate that ran, i.e. what an
// untuned run computes). When none works, the error names the
// instruction and lists every candidate with the reason it failed —
// never a bare "no config". AutotuneGemmThunks does this for each GEMM
// thunk of a sequence, consulting and filling a GemmAutotuneCache first,
// so a GEMM already tuned on this platform costs no time; a GEMM that
// appears twice is timed once. The CUDA implementation is
// runtime/cuda/cublas_lt_tuner.h; tests use fakes.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/gemm_algorithm.h"
#include "runtime/gemm_autotune_cache.h"
#include "runtime/gemm_description.h"
#include "runtime/gpu_thunks.h"

namespace xlite::runtime {

/// What a candidate's run gave.
struct GemmMeasurement {
  /// The mean time of one run.
  double microseconds = 0;
  /// d's bytes (in d's layout), compared against the reference.
  std::string result;
};

/// One GEMM on the device: inputs in place, its candidates, and runs.
class GemmTrial {
 public:
  virtual ~GemmTrial() = default;
  /// The algorithms worth timing, best guess first (`tuned_for` empty).
  virtual absl::StatusOr<std::vector<GemmAlgorithm>> Candidates() = 0;
  /// Runs `candidate` (a few warm-up runs, then timed ones); an error
  /// says why it cannot run (workspace too small, a cuBLASLt status, ...).
  virtual absl::StatusOr<GemmMeasurement> Measure(
      const GemmAlgorithm& candidate) = 0;
};

/// The platform tuned on: what keys the cache besides the GEMM.
struct GemmTuningPlatform {
  std::string device;
  std::string cublaslt;
  std::string cudnn;
};

class GemmTuningDevice {
 public:
  virtual ~GemmTuningDevice() = default;
  virtual const GemmTuningPlatform& platform() const = 0;
  /// Allocates and fills `gemm`'s operands and results on the device.
  virtual absl::StatusOr<std::unique_ptr<GemmTrial>> StartTrial(
      const GemmDescription& gemm) = 0;
};

/// The winner of one tuning.
struct GemmTuning {
  GemmAlgorithm algorithm;  // `tuned_for` not set
  double microseconds = 0;
  /// Its place in the candidate list (0: what an untuned run picks).
  int64_t index = 0;
};

/// Times every candidate of `trial` and picks the fastest whose result
/// matches the reference; `instruction` and `gemm` name the GEMM in
/// errors. With none working: an error listing each candidate and why.
absl::StatusOr<GemmTuning> SelectGemmAlgorithm(GemmTrial& trial,
                                               absl::string_view instruction,
                                               const GemmDescription& gemm);

struct GemmAutotuneStats {
  int64_t gemms = 0;       // GEMM thunks seen
  int64_t cache_hits = 0;  // of which the cache answered
  int64_t timed = 0;       // of which were timed now (and cached)
};

/// Sets the algorithm of every GEMM thunk in `thunks` (nested sequences
/// included): from `cache` when it has the GEMM for `device`'s platform,
/// else by timing on `device` (the result goes into `cache`). The first
/// GEMM no candidate works for fails the whole call.
absl::StatusOr<GemmAutotuneStats> AutotuneGemmThunks(ThunkSequence& thunks,
                                                     GemmTuningDevice& device,
                                                     GemmAutotuneCache& cache);

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_GEMM_AUTOTUNER_H_
