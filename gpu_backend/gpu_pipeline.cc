#include "gpu_backend/gpu_pipeline.h"

#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "passes/registry.h"
#include "runtime/buffer_assignment.h"

namespace xlite::gpu {
namespace {

// Runs the registered passes `names` (those registered; a pass not yet in
// the table is skipped) with the spec's target options.
absl::Status RunIfRegistered(HloModule& module, const GpuTargetSpec& spec,
                             std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (PassRegistry::Global().Find(name) == nullptr) continue;
    std::map<std::string, std::string> defaults = {
        {"cudnn_version", spec.cudnn.ToString()},
        {"compute_capability", absl::StrCat(spec.compute_capability_major, ".",
                                            spec.compute_capability_minor)}};
    absl::StatusOr<Pipeline> pipeline =
        PassRegistry::Global().BuildPipeline(name, "transforms", defaults);
    if (!pipeline.ok()) return pipeline.status();
    if (absl::Status s = pipeline->Run(module).status(); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunGpuSimplification(HloModule& module,
                                  const GpuTargetSpec& spec) {
  std::map<std::string, std::string> defaults = {
      {"cudnn_version", spec.cudnn.ToString()},
      {"compute_capability", absl::StrCat(spec.compute_capability_major, ".",
                                          spec.compute_capability_minor)}};
  absl::StatusOr<Pipeline> pipeline =
      PassRegistry::Global().BuildPipeline("", "gpu", defaults);
  if (!pipeline.ok()) return pipeline.status();
  return pipeline->Run(module).status();
}

absl::Status PrepareForGpu(HloModule& module, const GpuTargetSpec& spec) {
  // Hook: the GEMM rewriter (dots -> __cublas$lt$matmul custom calls) and
  // the fusion passes, by their registered names, once they exist.
  if (absl::Status s = RunIfRegistered(
          module, spec,
          {"gemm-rewriter", "priority-fusion", "multi-output-fusion"});
      !s.ok()) {
    return s;
  }
  if (absl::StatusOr<bool> changed = runtime::InsertCopies(module);
      !changed.ok()) {
    return changed.status();
  }
  for (HloComputation* computation : module.computations()) {
    computation->Resequence();
  }
  return absl::OkStatus();
}

}  // namespace xlite::gpu
