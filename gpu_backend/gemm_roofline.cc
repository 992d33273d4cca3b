#include "gpu_backend/gemm_roofline.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "codegen/gpu/kernel_emitter.h"
#include "gpu_backend/fusion_target.h"
#include "gpu_backend/gemm_thunks.h"
#include "gpu_backend/thunk_cost.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/opcode.h"
#include "runtime/gemm_matrices.h"

namespace xlite::gpu {
namespace {

constexpr double kInfinite = std::numeric_limits<double>::infinity();

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
  int64_t resident = std::min<int64_t>(
      32, 2048 / std::max<int64_t>(1, c.launch_threads(true)));
  const int64_t sm_shared = spec.shared_memory_per_sm > 0
                                ? spec.shared_memory_per_sm
                                : spec.shared_memory_per_block;
  if (shared_bytes > 0 && sm_shared > 0) {
    resident = std::min(resident, sm_shared / shared_bytes);
  }
  return std::max<int64_t>(1, resident);
}

}  // namespace

double LibraryGemmEfficiency(const GpuTargetSpec& spec) {
  return spec.compute_capability_major >= 9 ? 0.75 : 0.8;
}

double TiledGemmEfficiency(const GpuTargetSpec& spec,
                           const TiledGemmConfig& c) {
  if (!c.tensor_cores()) return 0.5;
  // wgmma: both tiles read from shared memory by the tensor cores, but
  // each step waited for and no warp specialization or TMA.
  if (c.warpgroups()) return 0.6;
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
      peak = PeakFlops(spec, codegen::gpu::TiledGemmTakesF8(*dot, *c)
                                 ? "f8"
                                 : MmaRateType(*input));
    }
  }
  peak *= TiledGemmEfficiency(spec, *c);
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

}  // namespace xlite::gpu
