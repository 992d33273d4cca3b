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

// Warps an SM needs resident to issue tensor (or FMA) work at its peak:
// two per sub-partition.
constexpr double kWarpsForPeak = 8;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The spec's peak of `type` in FLOP/s; s8 runs at the f8 rate where the
// spec has no s8 figure, and a type without a figure at the f32 one.
double PeakFlops(const GpuTargetSpec& spec, const std::string& type) {
  for (const std::string& key :
       {type, std::string(type == "s8" ? "f8" : ""), std::string("f32")}) {
    if (auto it = spec.peak_tflops.find(key);
        it != spec.peak_tflops.end() && it->second > 0) {
      return it->second * 1e12;
    }
  }
  return FusionTargetFor(spec).peak_flops_per_second;
}

// Seconds for `tiles` output tiles of `tile_flops` each, blocks of `warps`
// warps and at most `resident` blocks per SM, at `peak` (the whole GPU's):
// the SM given the most tiles decides.
double TileSeconds(int64_t tiles, double tile_flops, int64_t warps,
                   int64_t resident, double peak, const GpuTargetSpec& spec) {
  const int64_t sms = std::max<int64_t>(1, spec.sm_count);
  const int64_t per_sm = CeilDiv(std::max<int64_t>(1, tiles), sms);
  const int64_t concurrent = std::min(per_sm, std::max<int64_t>(1, resident));
  const double occupancy =
      std::min(1.0, static_cast<double>(concurrent * warps) / kWarpsForPeak);
  return per_sm * tile_flops / (peak / sms * occupancy);
}

double Roofline(double compute_seconds, double bytes,
                const GpuTargetSpec& spec) {
  const GpuFusionTarget target = FusionTargetFor(spec);
  return target.kernel_launch_seconds +
         std::max(compute_seconds, bytes / target.hbm_bytes_per_second);
}

const HloInstruction* FusedDot(const HloInstruction& fusion) {
  for (const HloInstruction* h : fusion.fused_computation()->instructions()) {
    if (h->opcode() == HloOpcode::kDot) return h;
  }
  return nullptr;
}

// The tensor-core rate key of a tiled kernel's mma input.
std::string MmaRateType(TensorCoreInput input) {
  switch (input) {
    case TensorCoreInput::kF16:
      return "f16";
    case TensorCoreInput::kBF16:
      return "bf16";
    case TensorCoreInput::kTF32:
      return "tf32";
    case TensorCoreInput::kS8:
      return "s8";
  }
  return "f32";
}

// Blocks of `c` one SM holds at once, by threads and shared memory.
int64_t ResidentBlocks(const TiledGemmConfig& c, int64_t shared_bytes,
                       const GpuTargetSpec& spec) {
  int64_t resident =
      std::min<int64_t>(32, 2048 / std::max<int64_t>(1, c.threads()));
  const int64_t sm_shared = spec.shared_memory_per_sm > 0
                                ? spec.shared_memory_per_sm
                                : spec.shared_memory_per_block;
  if (shared_bytes > 0 && sm_shared > 0) {
    resident = std::min(resident, sm_shared / shared_bytes);
  }
  return std::max<int64_t>(1, resident);
}

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

double LibraryGemmEfficiency(const GpuTargetSpec& spec) {
  return spec.compute_capability_major >= 9 ? 0.75 : 0.8;
}

double TiledGemmEfficiency(const GpuTargetSpec& spec, bool tensor_cores) {
  if (!tensor_cores) return 0.5;
  return spec.compute_capability_major >= 9 ? 0.35 : 0.55;
}

double TiledGemmSeconds(const HloInstruction& fusion,
                        const GpuTargetSpec& spec) {
  const HloInstruction* dot = FusedDot(fusion);
  const std::optional<TiledGemmConfig> c = TiledGemmConfigOf(fusion);
  if (dot == nullptr || !c.has_value()) return kInfinite;
  const codegen::gpu::TiledGemmSizes s = codegen::gpu::TiledGemmSizesOf(*dot);
  double peak = PeakFlops(spec, "f32");
  if (c->tensor_cores()) {
    if (std::optional<TensorCoreInput> input = TensorCoreInputOf(*dot)) {
      peak = PeakFlops(spec, MmaRateType(*input));
    }
  }
  peak *= TiledGemmEfficiency(spec, c->tensor_cores());
  const int64_t tiles =
      s.batch * CeilDiv(s.m, c->block_m) * CeilDiv(s.n, c->block_n);
  const double tile_flops =
      2.0 * c->block_m * c->block_n * CeilDiv(s.k, c->block_k) * c->block_k;
  const int64_t resident =
      ResidentBlocks(*c, codegen::gpu::TiledGemmSharedBytes(fusion), spec);
  const double compute = TileSeconds(
      tiles, tile_flops, CeilDiv(c->threads(), 32), resident, peak, spec);
  // Each operand read once (re-reads of a tile hit the L2), the result
  // written once.
  double bytes =
      fusion.shape().IsArray() ? fusion.shape().ByteSizeOfElements() : 0;
  for (const HloInstruction* o : fusion.operands()) {
    if (o->shape().IsArray()) bytes += o->shape().ByteSizeOfElements();
  }
  return Roofline(compute, bytes, spec);
}

double GemmCallSeconds(const HloInstruction& call, const GpuTargetSpec& spec) {
  absl::StatusOr<runtime::GemmDescription> gemm = DescribeGemmCall(call);
  if (!gemm.ok()) return kInfinite;
  absl::StatusOr<runtime::GemmMatrices> m = runtime::GemmMatricesFor(*gemm);
  if (!m.ok()) return kInfinite;
  const runtime::ThunkCost cost = GemmThunkCost(*gemm);
  const double peak =
      PeakFlops(spec, cost.flop_type) * LibraryGemmEfficiency(spec);
  // The library's own choice among its tiles (warps per block, blocks per
  // SM), splitting K while the tiles leave SMs idle.
  struct LibraryTile {
    int64_t m, n, warps, resident;
  };
  double best = kInfinite;
  for (const LibraryTile& t :
       {LibraryTile{128, 256, 8, 1}, LibraryTile{128, 128, 8, 2},
        LibraryTile{64, 128, 4, 2}, LibraryTile{64, 64, 4, 2}}) {
    const int64_t tiles = m->batch * CeilDiv(m->m, t.m) * CeilDiv(m->n, t.n);
    const int64_t splits =
        std::clamp<int64_t>(std::max<int64_t>(1, spec.sm_count) / tiles, 1,
                            std::max<int64_t>(1, m->k / 256));
    const double tile_flops = 2.0 * t.m * t.n * CeilDiv(m->k, splits);
    double seconds = TileSeconds(tiles * splits, tile_flops, t.warps,
                                 t.resident, peak, spec);
    if (splits > 1) {  // the partial results, written and summed
      seconds += 2.0 * splits * m->batch * m->m * m->n * 4 /
                 FusionTargetFor(spec).hbm_bytes_per_second;
    }
    best = std::min(best, seconds);
  }
  return Roofline(best, static_cast<double>(cost.bytes), spec);
}

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
