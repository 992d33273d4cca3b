#include "gpu_backend/tiled_gemm_tiling.h"

#include <algorithm>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "codegen/gpu/kernel_emitter.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/opcode.h"
#include "passes/tiled_gemm_split_k.h"

namespace xlite::gpu {
namespace {

using Sizes = codegen::gpu::TiledGemmSizes;

TiledGemmConfig Mma(int64_t bm, int64_t bn, int64_t bk, int64_t wm,
                    int64_t wn) {
  TiledGemmConfig c;
  c.block_m = bm;
  c.block_n = bn;
  c.block_k = bk;
  c.warps_m = wm;
  c.warps_n = wn;
  return c;
}

TiledGemmConfig Simt(int64_t bm, int64_t bn, int64_t bk, int64_t tm,
                     int64_t tn) {
  TiledGemmConfig c;
  c.block_m = bm;
  c.block_n = bn;
  c.block_k = bk;
  c.thread_m = tm;
  c.thread_n = tn;
  return c;
}

// Warpgroups of 64 x bn / gn each (wgmma, sm_90a).
TiledGemmConfig Wgmma(int64_t bm, int64_t bn, int64_t bk, int64_t gm,
                      int64_t gn) {
  TiledGemmConfig c = Mma(bm, bn, bk, gm, gn);
  c.wgmma = 1;
  return c;
}

std::vector<TiledGemmConfig> TensorCoreProposals(const HloInstruction& dot,
                                                 const Sizes& s,
                                                 const std::string& shape,
                                                 bool warpgroups) {
  // On sm_90a, large GEMMs try warpgroup tilings first (64 rows per
  // warpgroup would mostly pad smaller ones), 128 bytes of K per tile
  // row: 64 16-bit elements, or 128 f8 ones where wgmma takes them as
  // they are.
  if (warpgroups && shape == "large") {
    const int64_t bk =
        codegen::gpu::TiledGemmTakesF8(dot, Wgmma(128, 128, 64, 2, 1)) ? 128
                                                                       : 64;
    return {Wgmma(128, 128, bk, 2, 1), Wgmma(128, 256, bk, 2, 1),
            Mma(128, 128, 32, 2, 2), Mma(128, 64, 32, 2, 2)};
  }
  if (shape == "skinny") {
    if (s.m <= 16) {
      return {Mma(16, 64, 64, 1, 2), Mma(16, 32, 64, 1, 1),
              Mma(16, 16, 64, 1, 1)};
    }
    return {Mma(64, 16, 64, 2, 1), Mma(32, 16, 64, 1, 1),
            Mma(16, 16, 64, 1, 1)};
  }
  if (shape == "small") {
    return {Mma(32, 64, 32, 1, 2), Mma(64, 32, 32, 2, 1),
            Mma(32, 32, 32, 1, 1)};
  }
  if (shape == "large") {
    return {Mma(128, 128, 32, 2, 2), Mma(128, 64, 32, 2, 2),
            Mma(64, 64, 32, 2, 2)};
  }
  return {Mma(64, 128, 32, 2, 2), Mma(64, 64, 32, 2, 2), Mma(32, 32, 32, 1, 1)};
}

std::vector<TiledGemmConfig> CudaCoreProposals(const Sizes& s,
                                               const std::string& shape) {
  if (shape == "skinny") {
    if (s.m <= 16) return {Simt(16, 64, 32, 1, 4), Simt(16, 32, 32, 1, 2)};
    return {Simt(64, 16, 32, 4, 1), Simt(32, 16, 32, 2, 1)};
  }
  return {Simt(64, 64, 16, 4, 4), Simt(32, 32, 16, 2, 2)};
}

bool HasTiling(const HloInstruction& fusion) {
  return absl::StrContains(fusion.backend_config(), "\"block_m\"");
}

const HloInstruction* FusedDot(const HloInstruction& fusion) {
  for (const HloInstruction* h : fusion.fused_computation()->instructions()) {
    if (h->opcode() == HloOpcode::kDot) return h;
  }
  return nullptr;
}

// The first of `configs` whose tiles fit, set on `fusion`.
absl::Status Assign(HloInstruction& fusion, const GpuTargetSpec& spec,
                    const std::vector<TiledGemmConfig>& configs) {
  // Tiles past 48 KiB are dynamic shared memory, which the launch opts in
  // to up to the spec's per-block limit; 48 KiB where the spec has none.
  const int64_t limit = spec.shared_memory_per_block > 0
                            ? spec.shared_memory_per_block
                            : kStaticSharedMemoryLimit;
  std::string tried;
  for (const TiledGemmConfig& c : configs) {
    fusion.set_backend_config(TiledGemmBackendConfig(c));
    const int64_t bytes = codegen::gpu::TiledGemmSharedBytes(fusion);
    if (bytes <= limit) return absl::OkStatus();
    absl::StrAppend(&tried, tried.empty() ? "" : "; ", c.ToString(), ": ",
                    bytes, " bytes");
  }
  return absl::ResourceExhaustedError(
      absl::StrCat("%", fusion.name(), ": no GEMM tiling fits the ", limit,
                   " bytes of shared memory a block may have on ", spec.name,
                   " (", tried, ")"));
}

// Whether the GPU runs `c`'s tensor-core instructions: wgmma needs sm_90a
// (Hopper; Blackwell runs sm_90 PTX, without the "a" features), tcgen05
// sm_100a (compute capability 10: b200, gb200).
bool RunsWarpgroupKind(const TiledGemmConfig& c, const GpuTargetSpec& spec) {
  if (c.blackwell_mma()) return spec.compute_capability_major == 10;
  return !c.warpgroups() || spec.compute_capability_major == 9;
}

// A warpgroup tiling the GPU cannot run is an error naming the fusion.
absl::Status CheckWarpgroups(const HloInstruction& fusion,
                             const std::optional<TiledGemmConfig>& c,
                             const GpuTargetSpec& spec) {
  if (!c.has_value() || RunsWarpgroupKind(*c, spec)) return absl::OkStatus();
  if (c->blackwell_mma()) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", fusion.name(), ": the GEMM tiling ", c->ToString(),
                     " runs tcgen05, which needs sm_100a (b200, gb200); ",
                     spec.name, " is ", spec.SmName()));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("%", fusion.name(), ": the GEMM tiling ", c->ToString(),
                   " runs wgmma, which needs sm_90a (h100, h200); ", spec.name,
                   " is ", spec.SmName()));
}

}  // namespace

bool TilingSuits(const HloInstruction& dot, const TiledGemmConfig& c,
                 const GpuTargetSpec& spec) {
  if (!c.IsValid()) return false;
  if (!c.tensor_cores()) return c.stages <= 2;
  if (!RunsWarpgroupKind(c, spec)) return false;
  const std::optional<TensorCoreInput> input = TensorCoreInputOf(dot);
  if (spec.compute_capability_major < 8 || !input.has_value() ||
      c.block_k % TensorCoreK(*input) != 0) {
    return false;
  }
  return c.stages <= 2 || codegen::gpu::TiledGemmCopiesTilesAsync(dot, c);
}

const char* GemmShapeClass(int64_t m, int64_t n, int64_t k) {
  if (std::min(m, n) <= 16) return "skinny";
  if (std::min(m, n) <= 64) return "small";
  if (m >= 128 && n >= 128 && k >= 64) return "large";
  return "medium";
}

std::vector<TiledGemmConfig> ProposeTiledGemmConfigs(
    const HloInstruction& dot, const GpuTargetSpec& spec) {
  const Sizes s = codegen::gpu::TiledGemmSizesOf(dot);
  const std::string shape = GemmShapeClass(s.m, s.n, s.k);
  std::vector<TiledGemmConfig> configs =
      spec.compute_capability_major >= 8 && TensorCoreInputOf(dot).has_value()
          ? TensorCoreProposals(dot, s, shape,
                                spec.compute_capability_major == 9)
          : CudaCoreProposals(s, shape);
  // Tiles more than twice the GEMM (rounded up to the tile's steps) along
  // M or N mostly compute padding: they go last.
  auto oversized = [&](const TiledGemmConfig& c) {
    const int64_t step_m = !c.tensor_cores()   ? c.thread_m
                           : c.blackwell_mma() ? 128
                           : c.warpgroups()    ? 64 * c.warps_m
                                               : 16 * c.warps_m;
    const int64_t step_n = c.tensor_cores() ? 8 * c.warps_n : c.thread_n;
    auto round_up = [](int64_t x, int64_t step) {
      return (x + step - 1) / step * step;
    };
    return c.block_m > 2 * round_up(s.m, step_m) ||
           c.block_n > 2 * round_up(s.n, step_n);
  };
  std::stable_partition(
      configs.begin(), configs.end(),
      [&](const TiledGemmConfig& c) { return !oversized(c); });
  // Each tiling with the most stages first, then fewer should they not
  // fit: double-buffered where K takes more than one step; for medium and
  // large tensor-core GEMMs whose tiles both arrive by cp.async, 4 and 3
  // stages first where K takes at least that many steps.
  const bool deep = shape == "large" || shape == "medium";
  std::vector<TiledGemmConfig> staged;
  for (TiledGemmConfig c : configs) {
    const int64_t steps = (s.k + c.block_k - 1) / c.block_k;
    const bool pipelined =
        deep && codegen::gpu::TiledGemmCopiesTilesAsync(dot, c);
    for (int64_t stages = 4; stages >= 1; --stages) {
      if (stages > 2 && !pipelined) continue;
      if (stages > 1 && steps < stages) continue;
      c.stages = stages;
      staged.push_back(c);
    }
  }
  return staged;
}

int64_t ChooseSplitK(const HloInstruction& dot, const GpuTargetSpec& spec) {
  if (!CanSplitK(dot) || spec.sm_count <= 0) return 1;
  const std::vector<TiledGemmConfig> configs =
      ProposeTiledGemmConfigs(dot, spec);
  if (configs.empty()) return 1;
  const TiledGemmConfig& c = configs.front();
  const Sizes s = codegen::gpu::TiledGemmSizesOf(dot);
  const int64_t tiles = s.batch * ((s.m + c.block_m - 1) / c.block_m) *
                        ((s.n + c.block_n - 1) / c.block_n);
  int64_t splits = 1;
  // Each part keeps at least 8 steps of block_k and 512 of K: shorter
  // parts would not repay the second kernel's launch and traffic.
  const int64_t min_part = std::max<int64_t>(8 * c.block_k, 512);
  while (splits < 16 && 2 * tiles * splits <= spec.sm_count &&
         s.k / (splits * 2) >= min_part) {
    splits *= 2;
  }
  return splits;
}

absl::Status AssignTiledGemmConfigs(
    HloModule& module, const GpuTargetSpec& spec,
    const std::optional<TiledGemmConfig>& forced,
    const std::map<std::string, std::vector<TiledGemmConfig>>& ruled_out,
    const std::map<std::string, TiledGemmConfig>& preferred) {
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* h : computation->instructions()) {
      if (!IsTiledGemmFusion(*h)) continue;
      if (HasTiling(*h)) {
        if (absl::Status s = CheckWarpgroups(*h, TiledGemmConfigOf(*h), spec);
            !s.ok()) {
          return s;
        }
        continue;
      }
      if (absl::Status s = CheckWarpgroups(*h, forced, spec); !s.ok()) {
        return s;
      }
      const HloInstruction* dot = FusedDot(*h);
      if (dot == nullptr) continue;  // the emitter refuses it, located
      std::vector<TiledGemmConfig> configs =
          forced.has_value() ? std::vector<TiledGemmConfig>{*forced}
                             : ProposeTiledGemmConfigs(*dot, spec);
      if (auto it = preferred.find(h->name());
          !forced.has_value() && it != preferred.end() &&
          TilingSuits(*dot, it->second, spec)) {
        configs.insert(configs.begin(), it->second);
      }
      if (auto it = ruled_out.find(h->name()); it != ruled_out.end()) {
        std::vector<TiledGemmConfig> kept;
        for (const TiledGemmConfig& c : configs) {
          if (std::find(it->second.begin(), it->second.end(), c) ==
              it->second.end()) {
            kept.push_back(c);
          }
        }
        if (!kept.empty()) configs = std::move(kept);
      }
      if (absl::Status s = Assign(*h, spec, configs); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace xlite::gpu
