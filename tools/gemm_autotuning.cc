#include "tools/gemm_autotuning.h"

#include <iostream>
#include <memory>

#include "runtime/cuda/cublas_lt_tuner.h"
#include "runtime/gemm_autotune_session.h"

namespace xlite {

absl::StatusOr<const gpu::GemmPathCache*> GemmPathCacheForTool(
    const std::string& path) {
  if (path.empty()) return nullptr;
  static const auto* const loaded =
      new absl::StatusOr<gpu::GemmPathCache>(gpu::GemmPathCache::Load(path));
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

absl::Status AutotuneGemmsForTool(runtime::ThunkSequence& thunks,
                                  const ToolAutotuning& autotuning) {
  const bool emulator = autotuning.emulator;
  absl::StatusOr<runtime::GemmAutotuneReport> report =
      runtime::RunGemmAutotuning(
          thunks,
          {autotuning.enabled, autotuning.cache_path, autotuning.source},
          [emulator]()
              -> absl::StatusOr<std::unique_ptr<runtime::GemmTuningDevice>> {
            if (emulator) {
              return absl::FailedPreconditionError(
                  "the gpu emulator runs GEMMs with a reference "
                  "implementation");
            }
            return runtime::cuda::CreateCublasLtTuningDevice();
          });
  if (!report.ok()) return report.status();
  if (!report->note.empty()) std::cerr << "note: " << report->note << "\n";
  return absl::OkStatus();
}

}  // namespace xlite
