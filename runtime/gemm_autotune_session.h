#ifndef XLITE_RUNTIME_GEMM_AUTOTUNE_SESSION_H_
#define XLITE_RUNTIME_GEMM_AUTOTUNE_SESSION_H_

// What --autotune and --autotune-cache do to a compiled module's GEMM
// thunks, the same in hlo-opt, hlo-run and hlo-run-gpu: read the cache
// file (a malformed one is an error even when nothing will be tuned, so
// it is found at once), tune on the device if there is one, and write the
// cache back when timing added entries.
//
// Without a device (the emulator, or no GPU) nothing is tuned and the
// cache is not applied either: which entries fit depends on the device
// and its cuBLASLt, which only the device can say, and an algorithm from
// another cuBLASLt build may not exist in this one. A CUDA device then
// runs each GEMM's first heuristic algorithm, as with --autotune=false
// (which does not read the cache at all).

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/gemm_autotuner.h"
#include "runtime/gpu_thunks.h"

namespace xlite::runtime {

struct GemmAutotuneOptions {
  /// --autotune: time candidates on the device (false: the heuristic's
  /// first algorithm, the cache unread).
  bool enabled = true;
  /// --autotune-cache: read before, written after ("" for none).
  std::string cache_path;
  /// Where the thunks come from ("m.hlo", "m.xlx"): tuning errors read
  /// "SOURCE: error: %dot.1: ...". Cache errors name the cache file.
  std::string source;
};

struct GemmAutotuneReport {
  /// A device was found and every GEMM got an algorithm.
  bool tuned = false;
  GemmAutotuneStats stats;
  /// One line for stderr ("" when there is nothing worth saying: no
  /// cache file asked for and nothing tuned).
  std::string note;
};

/// Makes the device to tune on, or says why there is none ("no CUDA
/// device: ...").
using GemmTuningDeviceFactory =
    std::function<absl::StatusOr<std::unique_ptr<GemmTuningDevice>>()>;

/// Autotunes the GEMM thunks of `thunks` as `options` say, on the device
/// `make_device` gives (asked only when there is a GEMM to tune). Errors:
/// a malformed or unwritable cache, a GEMM no candidate works for.
absl::StatusOr<GemmAutotuneReport> RunGemmAutotuning(
    ThunkSequence& thunks, const GemmAutotuneOptions& options,
    const GemmTuningDeviceFactory& make_device);

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_GEMM_AUTOTUNE_SESSION_H_
