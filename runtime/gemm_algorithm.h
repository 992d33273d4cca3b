#ifndef XLITE_RUNTIME_GEMM_ALGORITHM_H_
#define XLITE_RUNTIME_GEMM_ALGORITHM_H_

// How a GEMM thunk runs, once the autotuner (runtime/gemm_autotuner.h) has
// chosen: cuBLASLt's algorithm as the library hands it out (the opaque
// eight words of a cublasLtMatmulAlgo_t), a description for people, and
// the device and cuBLASLt version it was chosen on. An algorithm is only
// meaningful to the library build that proposed it, on the device it was
// proposed for: a runtime elsewhere ignores it and asks cuBLASLt's
// heuristic again, so a .xlx tuned on one machine still runs on another.

#include <array>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace xlite::runtime {

struct GemmAlgorithm {
  /// cublasLtMatmulAlgo_t's words, exactly as cuBLASLt filled them.
  std::array<uint64_t, 8> data{};
  /// "id=21 tile=20 stages=8 ...": what the words mean, for dumps and the
  /// autotuning cache (never read back into `data`).
  std::string label;
  /// GemmAlgorithmScope() of the device and library it was chosen on.
  std::string tuned_for;

  bool operator==(const GemmAlgorithm&) const = default;
};

/// The part of a platform a cuBLASLt algorithm depends on: "DEVICE;
/// cuBLASLt VERSION" (cuDNN does not change which cuBLASLt algorithms
/// exist, so it is not part of it).
std::string GemmAlgorithmScope(absl::string_view device,
                               absl::string_view cublaslt_version);

/// The words as 8 comma-separated hex numbers ("15,0,2a,0,0,0,0,0"): the
/// autotuning cache's spelling of `data`.
std::string GemmAlgorithmWords(const GemmAlgorithm& algorithm);

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_GEMM_ALGORITHM_H_
