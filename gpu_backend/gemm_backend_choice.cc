#include "gpu_backend/gemm_backend_choice.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_format.h"
#include "codegen/gpu/kernel_emitter.h"
#include "gpu_backend/fusion_target.h"
#include "gpu_backend/gemm_path_cache.h"
#include "gpu_backend/gemm_thunks.h"
#include "gpu_backend/thunk_cost.h"
#include "gpu_backend/tiled_gemm_tiling.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/opcode.h"
#include "passes/fusion_builder.h"
#include "passes/gemm_rewriter.h"
#include "passes/gpu_kernel_model.h"
#include "passes/priority_fusion.h"
#include "passes/tiled_gemm_fusion.h"
#include "passes/tiled_gemm_split_k.h"
#include "runtime/gemm_matrices.h"

namespace xlite::gpu {
namespace {

constexpr double kInfinite = std::numeric_limits<double>::infinity();

// LibrarySeconds of a dot the GEMM rewriter leaves.
constexpr double kLeftToEmitters = -1;

// The seconds of one instruction of a region's module after either path.
double InstructionSeconds(const HloInstruction& h, const GpuTargetSpec& spec) {
  if (IsTiledGemmFusion(h)) return TiledGemmSeconds(h, spec);
  if (h.opcode() == HloOpcode::kCustomCall && RunsAsGemmThunk(h)) {
    return GemmCallSeconds(h, spec);
  }
  return UnfusedSeconds(h, FusionTargetFor(spec));
}

double ModuleSeconds(const HloModule& module, const GpuTargetSpec& spec) {
  double seconds = 0;
  for (const HloInstruction* h : module.entry_computation()->instructions()) {
    seconds += InstructionSeconds(*h, spec);
  }
  return seconds;
}

struct Region {
  std::unique_ptr<HloModule> module;
  HloInstruction* dot = nullptr;
};

// The plan's members in the order a walk from its root meets them
// (operands first, in operand order): the same for equal regions whatever
// the program around them.
std::vector<HloInstruction*> CanonicalOrder(const TiledGemmFusionPlan& plan) {
  const absl::flat_hash_set<const HloInstruction*> members(plan.members.begin(),
                                                           plan.members.end());
  absl::flat_hash_set<const HloInstruction*> seen;
  std::vector<HloInstruction*> order;
  std::function<void(HloInstruction*)> visit = [&](HloInstruction* h) {
    if (!members.contains(h) || !seen.insert(h).second) return;
    for (HloInstruction* o : h->operands()) visit(o);
    order.push_back(h);
  };
  visit(plan.root);
  return order;
}

Region CopyRegion(HloInstruction* dot) {
  const TiledGemmFusionPlan plan = PlanTiledGemmFusion(dot);
  Region region;
  // Named and numbered by a walk from the root, stripped of metadata,
  // sharding and frontend attributes, so that its text (and fingerprint)
  // holds nothing of the program it came from.
  region.module = std::make_unique<HloModule>("gemm_region");
  HloModule& module = *region.module;
  auto body = std::make_unique<HloComputation>("region");
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> copies;
  auto add = [&](std::unique_ptr<HloInstruction> h, const char* name) {
    h->set_name(module.NewInstructionName(name));
    h->set_metadata(OpMetadata());
    h->clear_sharding();
    h->set_frontend_attributes(FrontendAttributes());
    return body->AddInstruction(std::move(h));
  };
  int64_t parameters = 0;
  auto value_of = [&](HloInstruction* v) {
    auto [it, inserted] = copies.try_emplace(v, nullptr);
    if (inserted) {
      auto p = HloInstruction::Create(HloOpcode::kParameter, v->shape());
      p->set_index(parameters++);
      it->second = add(std::move(p), "p");
    }
    return it->second;
  };
  for (HloInstruction* member : CanonicalOrder(plan)) {
    std::vector<HloInstruction*> operands;
    for (HloInstruction* o : member->operands()) {
      operands.push_back(value_of(o));
    }
    HloInstruction* copy =
        add(member->CloneWithNewOperands(member->shape(), operands), "x");
    copies[member] = copy;
    if (member == dot) region.dot = copy;
  }
  body->set_root_instruction(copies.at(plan.root));
  module.AddEntryComputation(std::move(body));
  return region;
}

// The library path's seconds for a copy of the region.
absl::StatusOr<double> LibrarySeconds(HloInstruction* dot,
                                      const GpuTargetSpec& spec) {
  Region region = CopyRegion(dot);
  GemmRewriterOptions gemm;
  gemm.compute_capability_major = spec.compute_capability_major;
  gemm.compute_capability_minor = spec.compute_capability_minor;
  if (absl::StatusOr<bool> r = RunGemmRewriter(*region.module, gemm); !r.ok()) {
    return r.status();
  }
  for (const HloInstruction* h :
       region.module->entry_computation()->instructions()) {
    if (h->opcode() == HloOpcode::kDot) return kLeftToEmitters;
    // A call no GEMM thunk runs (SiLU epilogue, s8) becomes a tiled
    // fusion in the pipeline whatever is decided here.
    if (IsGemmCall(*h) && !RunsAsGemmThunk(*h)) return kInfinite;
  }
  if (absl::StatusOr<bool> r = ExpandGemmCallsWithoutThunks(*region.module);
      !r.ok()) {
    return r.status();
  }
  if (absl::StatusOr<bool> r =
          RunPriorityFusion(*region.module, FusionTargetFor(spec));
      !r.ok()) {
    return r.status();
  }
  return ModuleSeconds(*region.module, spec);
}

// The tiled path's seconds for a copy of the region (infinite when no
// tiling fits); `tiling` gets the fusion's.
absl::StatusOr<double> TiledSeconds(
    HloInstruction* dot, const GpuTargetSpec& spec,
    const std::optional<TiledGemmConfig>& forced,
    std::optional<TiledGemmConfig>& tiling) {
  Region region = CopyRegion(dot);
  if (absl::StatusOr<HloInstruction*> fusion =
          FuseTiledGemmDot(region.dot, spec);
      !fusion.ok()) {
    return fusion.status();
  }
  if (absl::Status s = AssignTiledGemmConfigs(*region.module, spec, forced);
      !s.ok()) {
    if (absl::IsResourceExhausted(s)) return kInfinite;
    return s;
  }
  if (absl::StatusOr<bool> r =
          RunPriorityFusion(*region.module, FusionTargetFor(spec));
      !r.ok()) {
    return r.status();
  }
  for (const HloInstruction* h :
       region.module->entry_computation()->instructions()) {
    if (IsTiledGemmFusion(*h)) tiling = TiledGemmConfigOf(*h);
  }
  return ModuleSeconds(*region.module, spec);
}

}  // namespace

std::unique_ptr<HloModule> ExtractTiledGemmRegion(HloInstruction* dot) {
  return CopyRegion(dot).module;
}

std::string GemmPathEstimate::ToString() const {
  if (!library_call) return "left to the emitters";
  return absl::StrFormat("tiled %.2fus (%s) vs library %.2fus",
                         tiled_seconds * 1e6,
                         tiling.has_value() ? tiling->ToString() : "no tiling",
                         library_seconds * 1e6);
}

absl::StatusOr<GemmPathEstimate> EstimateGemmPaths(
    HloInstruction* dot, const GpuTargetSpec& spec,
    const std::optional<TiledGemmConfig>& forced) {
  GemmPathEstimate estimate;
  absl::StatusOr<double> library = LibrarySeconds(dot, spec);
  if (!library.ok()) return library.status();
  if (*library == kLeftToEmitters) {
    estimate.library_call = false;
    return estimate;
  }
  estimate.library_seconds = *library;
  estimate.tf32_stays = std::isfinite(*library) &&
                        TensorCoreInputOf(*dot) == TensorCoreInput::kTF32;
  absl::StatusOr<double> tiled =
      TiledSeconds(dot, spec, forced, estimate.tiling);
  if (!tiled.ok()) return tiled.status();
  estimate.tiled_seconds = *tiled;
  return estimate;
}

absl::StatusOr<HloInstruction*> FuseTiledGemmDot(HloInstruction* dot,
                                                 const GpuTargetSpec& spec) {
  if (const int64_t splits = ChooseSplitK(*dot, spec); splits > 1) {
    absl::StatusOr<HloInstruction*> partial = SplitK(dot, splits);
    if (!partial.ok()) return partial.status();
    dot = *partial;
  }
  return FuseTiledGemm(dot);
}

absl::StatusOr<GemmPathStats> FuseTiledGemmsByCost(
    HloModule& module, const GpuTargetSpec& spec,
    const GemmPathOptions& options) {
  GemmPathStats stats;
  // Equal regions (a model's layers) are estimated once.
  absl::flat_hash_map<std::string, GemmPathEstimate> estimates;
  for (HloComputation* c : SequentialComputations(module)) {
    std::vector<HloInstruction*> dots;
    for (HloInstruction* h : c->MakeInstructionPostOrder()) {
      if (IsTiledGemmCandidate(*h)) dots.push_back(h);
    }
    for (HloInstruction* dot : dots) {
      std::unique_ptr<HloModule> region = ExtractTiledGemmRegion(dot);
      const std::string fingerprint = GemmRegionFingerprint(*region);
      auto [it, inserted] = estimates.try_emplace(fingerprint);
      if (inserted) {
        absl::StatusOr<GemmPathEstimate> e =
            EstimateGemmPaths(dot, spec, options.forced);
        // A region the estimate cannot copy through the passes keeps the
        // library path, which the pipeline proper then runs or refuses.
        if (e.ok()) {
          it->second = *e;
        } else {
          it->second.tiled_seconds = kInfinite;
          ++stats.unestimated;
        }
      }
      const GemmPathEstimate& estimate = it->second;
      if (!estimate.library_call) continue;
      // A choice to measure and cache: both paths exist.
      const bool choice = std::isfinite(estimate.library_seconds) &&
                          std::isfinite(estimate.tiled_seconds) &&
                          !estimate.tf32_stays;
      const GemmPathEntry* cached =
          choice && options.cache != nullptr
              ? options.cache->Find(spec.name, fingerprint)
              : nullptr;
      if (choice && options.regions != nullptr) {
        options.regions->push_back(std::move(region));
      }
      if (cached != nullptr) ++stats.cached;
      if (cached != nullptr ? !cached->tiling.has_value() : !estimate.tiled()) {
        continue;
      }
      absl::StatusOr<HloInstruction*> fusion = FuseTiledGemmDot(dot, spec);
      if (!fusion.ok()) return fusion.status();
      if (cached != nullptr)
        stats.measured[(*fusion)->name()] = *cached->tiling;
      ++stats.tiled;
    }
  }
  return stats;
}

}  // namespace xlite::gpu
