#ifndef XLITE_TOOLS_GEMM_AUTOTUNING_H_
#define XLITE_TOOLS_GEMM_AUTOTUNING_H_

// --autotune and --autotune-cache as hlo-opt, hlo-run and hlo-run-gpu
// apply them to a compiled module's thunks (runtime/gemm_autotune_session.h
// says what they do): on the CUDA device through cuBLASLt, never on the
// emulator (its GEMMs are a reference implementation); the session's note
// goes to stderr.

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gpu_backend/gemm_path_cache.h"
#include "runtime/gpu_thunks.h"

namespace xlite {

struct ToolAutotuning {
  bool enabled = true;     // --autotune
  std::string cache_path;  // --autotune-cache
  /// The input file, for messages.
  std::string source;
  /// --platform=gpu-emulator: nothing to tune on.
  bool emulator = false;
};

/// --gemm-path-cache=FILE, read on first use ("" for none): the cache, or
/// null for none; a malformed file is a located error.
absl::StatusOr<const gpu::GemmPathCache*> GemmPathCacheForTool(
    const std::string& path);

/// Tunes the GEMM thunks of `thunks`; errors are located (in the cache
/// file, or "SOURCE: error: %instruction: ...").
absl::Status AutotuneGemmsForTool(runtime::ThunkSequence& thunks,
                                  const ToolAutotuning& autotuning);

}  // namespace xlite

#endif  // XLITE_TOOLS_GEMM_AUTOTUNING_H_
