#include "gpu_backend/gpu_pipeline.h"

#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "gpu_backend/fusion_target.h"
#include "passes/layout_consistency.h"
#include "passes/multi_output_fusion.h"
#include "passes/priority_fusion.h"
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

absl::Status PrepareForGpu(HloModule& module, const GpuTargetSpec& spec,
                           bool fuse) {
  // Hook: the GEMM rewriter (dots -> __cublas$lt$matmul custom calls), by
  // its registered name, once it exists.
  if (absl::Status s = RunIfRegistered(module, spec, {"gemm-rewriter"});
      !s.ok()) {
    return s;
  }
  // Kernels index each array by its own shape's layout: every view of a
  // buffer (while/conditional boundaries, tuples) must agree.
  if (absl::StatusOr<bool> changed = MakeLayoutsConsistent(module);
      !changed.ok()) {
    return changed.status();
  }
  // Producer-consumer fusion, then multi-output fusion, with the spec's
  // bandwidth, SM count and shared-memory figures.
  if (fuse) {
    const GpuFusionTarget fusion_target = FusionTargetFor(spec);
    if (absl::StatusOr<bool> fused = RunPriorityFusion(module, fusion_target);
        !fused.ok()) {
      return fused.status();
    }
    if (absl::StatusOr<bool> fused =
            RunGpuMultiOutputFusion(module, fusion_target);
        !fused.ok()) {
      return fused.status();
    }
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
