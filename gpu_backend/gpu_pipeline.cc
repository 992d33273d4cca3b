#include "gpu_backend/gpu_pipeline.h"

#include <map>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "gpu_backend/fusion_target.h"
#include "gpu_backend/gemm_backend_choice.h"
#include "gpu_backend/gemm_thunks.h"
#include "gpu_backend/tiled_gemm_tiling.h"
#include "passes/annotation_calls.h"
#include "passes/async_to_sync.h"
#include "passes/batch_norm_expander.h"
#include "passes/blocked_scans.h"
#include "passes/fusion_builder.h"
#include "passes/gemm_call_expansion.h"
#include "passes/gemm_rewriter.h"
#include "passes/layout_consistency.h"
#include "passes/multi_output_fusion.h"
#include "passes/priority_fusion.h"
#include "passes/registry.h"
#include "passes/scan_to_while.h"
#include "passes/single_device_collectives.h"
#include "passes/tiled_gemm_fusion.h"
#include "passes/tiled_gemm_split_k.h"
#include "passes/while_trip_count.h"
#include "runtime/buffer_assignment.h"

namespace xlite::gpu {

absl::string_view GemmBackendName(GemmBackend backend) {
  switch (backend) {
    case GemmBackend::kAuto:
      return "auto";
    case GemmBackend::kTiled:
      return "tiled";
    case GemmBackend::kCublasLt:
      return "cublaslt";
  }
  return "auto";
}

std::optional<GemmBackend> ParseGemmBackend(absl::string_view name) {
  for (GemmBackend b :
       {GemmBackend::kAuto, GemmBackend::kTiled, GemmBackend::kCublasLt}) {
    if (name == GemmBackendName(b)) return b;
  }
  return std::nullopt;
}

bool AbslParseFlag(absl::string_view text, GemmBackend* backend,
                   std::string* error) {
  std::optional<GemmBackend> parsed = ParseGemmBackend(text);
  if (!parsed.has_value()) {
    *error = "expected auto, tiled or cublaslt";
    return false;
  }
  *backend = *parsed;
  return true;
}

std::string AbslUnparseFlag(GemmBackend backend) {
  return std::string(GemmBackendName(backend));
}

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

// Gives every __cudnn$blockScaledDot with an empty workspace `bytes` of
// it, when only get-tuple-elements of its result read the call.
void SizeCudnnWorkspaces(HloModule& module, int64_t bytes) {
  if (bytes <= 0) return;
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* hlo : computation->instructions()) {
      if (hlo->opcode() != HloOpcode::kCustomCall ||
          hlo->attrs().custom_call->target != "__cudnn$blockScaledDot" ||
          !hlo->shape().IsTuple() || hlo->shape().tuple_shapes_size() != 2) {
        continue;
      }
      Shape& workspace = hlo->mutable_shape()->mutable_tuple_shapes()[1];
      if (workspace.rank() != 1 || workspace.dimensions(0) != 0) continue;
      bool only_elements = true;
      for (const HloInstruction* user : hlo->users()) {
        only_elements =
            only_elements && user->opcode() == HloOpcode::kGetTupleElement;
      }
      if (only_elements) workspace.set_dimension(0, bytes);
    }
  }
}

// Every tiled GEMM candidate of the module's sequential computations.
absl::Status FuseAllTiledGemms(HloModule& module, const GpuTargetSpec& spec) {
  for (HloComputation* c : SequentialComputations(module)) {
    std::vector<HloInstruction*> dots;
    for (HloInstruction* h : c->MakeInstructionPostOrder()) {
      if (IsTiledGemmCandidate(*h)) dots.push_back(h);
    }
    for (HloInstruction* dot : dots) {
      if (absl::StatusOr<HloInstruction*> f = FuseTiledGemmDot(dot, spec);
          !f.ok()) {
        return f.status();
      }
    }
  }
  return absl::OkStatus();
}

// Writes back the GEMM calls no GEMM thunk runs as dots and epilogues, and
// makes each of those dots the tiled kernel computes a tiled GEMM fusion.
// The dots the GEMM rewriter left (too small for a GEMM library call, as
// XLA decides) stay elemental.
absl::Status FuseGemmCallsWithoutThunks(HloModule& module,
                                        const GpuTargetSpec& spec) {
  absl::flat_hash_set<const HloInstruction*> dots;
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* hlo : computation->instructions()) {
      if (hlo->opcode() == HloOpcode::kDot) dots.insert(hlo);
    }
  }
  if (absl::StatusOr<bool> expanded = ExpandGemmCallsWithoutThunks(module);
      !expanded.ok()) {
    return expanded.status();
  }
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* hlo : computation->MakeInstructionPostOrder()) {
      if (dots.contains(hlo) || !IsTiledGemmCandidate(*hlo)) continue;
      if (absl::StatusOr<HloInstruction*> f = FuseTiledGemmDot(hlo, spec);
          !f.ok()) {
        return f.status();
      }
    }
  }
  return absl::OkStatus();
}

absl::Status PrepareForGpu(HloModule& module, const GpuTargetSpec& spec,
                           const GpuPipelineOptions& options) {
  SizeCudnnWorkspaces(module, options.cudnn_workspace_bytes);
  // One stream and one device: async pairs become their synchronous ops,
  // scans loops, collectives and device ids what one device computes,
  // annotation calls copies, batch norms reductions and elementwise ops.
  // What stays needs more than this backend has, and is refused at thunk
  // emission with the reason.
  for (auto* pass : {&ConvertAsyncToSync, &ConvertScanToWhile,
                     &RewriteSingleDeviceCollectives, &RemoveAnnotationCalls,
                     &ExpandBatchNorms}) {
    if (absl::StatusOr<bool> changed = (*pass)(module); !changed.ok()) {
      return changed.status();
    }
  }
  // Scans longer than 16 in XLA's blocked order (XLA:GPU runs the same
  // reduce-window rewrite): in narrow floats the order decides the bits.
  if (absl::StatusOr<bool> rewritten = RewriteScansAsBlocks(module);
      !rewritten.ok()) {
    return rewritten.status();
  }
  // --gemm-backend=tiled: every dot the tiled kernel computes, with its
  // producers and epilogue, becomes one tiled GEMM fusion first, so the
  // GEMM rewriter never sees it.
  // --gemm-backend=auto: those whose tiled path the cost model finds
  // faster than the library's (gpu_backend/gemm_backend_choice.h).
  std::map<std::string, TiledGemmConfig> measured;  // --gemm-path-cache's
  if (options.gemm_backend == GemmBackend::kTiled) {
    if (absl::Status s = FuseAllTiledGemms(module, spec); !s.ok()) return s;
  } else if (options.gemm_backend == GemmBackend::kAuto &&
             !options.expand_gemm_calls) {
    GemmPathOptions paths;
    paths.forced = options.tiled_gemm_config;
    paths.cache = options.gemm_path_cache;
    paths.regions = options.gemm_regions;
    absl::StatusOr<GemmPathStats> fused =
        FuseTiledGemmsByCost(module, spec, paths);
    if (!fused.ok()) return fused.status();
    measured = std::move(fused->measured);
  }
  // Dots -> cuBLAS / cuBLASLt custom calls with their epilogues, as XLA's
  // GEMM rewriter decides for the spec's compute capability.
  GemmRewriterOptions gemm;
  gemm.compute_capability_major = spec.compute_capability_major;
  gemm.compute_capability_minor = spec.compute_capability_minor;
  if (absl::StatusOr<bool> rewritten = RunGemmRewriter(module, gemm);
      !rewritten.ok()) {
    return rewritten.status();
  }
  // --gemm-backend=auto: the calls no GEMM thunk runs become tiled GEMM
  // fusions too.
  if (options.gemm_backend == GemmBackend::kAuto &&
      !options.expand_gemm_calls) {
    if (absl::Status s = FuseGemmCallsWithoutThunks(module, spec); !s.ok()) {
      return s;
    }
  }
  // Each tiled GEMM fusion's tiling: the heuristic's first proposal that
  // fits the spec's shared memory.
  if (absl::Status s =
          AssignTiledGemmConfigs(module, spec, options.tiled_gemm_config,
                                 options.tiled_gemm_spilled, measured);
      !s.ok()) {
    return s;
  }
  // Kernels index each array by its own shape's layout: every view of a
  // buffer (while/conditional boundaries, tuples) must agree.
  if (absl::StatusOr<bool> changed = MakeLayoutsConsistent(module);
      !changed.ok()) {
    return changed.status();
  }
  // Counted loops carry their trip count (XLA's known_trip_count),
  // found before fusion hides the counter's update: the
  // device then runs the body that often and reads no predicate back.
  if (absl::StatusOr<bool> annotated = AnnotateWhileTripCounts(module);
      !annotated.ok()) {
    return annotated.status();
  }
  // Producer-consumer fusion, then multi-output fusion, with the spec's
  // bandwidth, SM count and shared-memory figures.
  if (options.fuse) {
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
  // GEMM calls no GEMM thunk runs (or all, when asked) become a dot and
  // its epilogue as the call defines them, run as emitted kernels. The
  // fusion decisions around the calls are the device's.
  if (absl::StatusOr<bool> expanded =
          options.expand_gemm_calls ? RunGemmCallExpansion(module)
                                    : ExpandGemmCallsWithoutThunks(module);
      !expanded.ok()) {
    return expanded.status();
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
