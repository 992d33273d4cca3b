#ifndef XLITE_PASSES_TILED_GEMM_FUSION_H_
#define XLITE_PASSES_TILED_GEMM_FUSION_H_

// tiled-gemm-fusion: a dot, the producers of its operands that the tiled
// GEMM kernel applies while it loads its tiles, and the elementwise
// consumers it applies to its accumulators before the store, become one
// fusion of kind kCustom marked as a tiled GEMM (hlo/ir/tiled_gemm_config.h),
// which the GPU kernel emitters compute with one tiled kernel
// (codegen/gpu/tiled_gemm_kernel.cc). Guarantees:
//  - Only a dot the kernel computes is fused: any batch, contracting and
//    free dimensions, none of them empty; operands f32, f16, bf16,
//    f8e4m3fn or f8e5m2 and result f32, f16 or bf16 (accumulated in f32),
//    or s8 x s8 -> s32 (in s32); no control edges. Every other dot is
//    left alone.
//  - Producers fused (per operand, transitively): convert, bitcast,
//    reshape, copy, broadcast, transpose, pad (split-K's), multiply (per
//    tensor scales, and per block: the block-scaling expansion's
//    dequantization, so an MXFP8/NVFP4 dot is one kernel) and divide by a
//    broadcast scalar; each only when all its users are already in the
//    fusion (a scalar constant, or a broadcast of one, may be copied).
//  - Consumers fused: elementwise instructions of the dot's dimensions
//    (bias add, max with 0, the tanh/logistic of GELU and SiLU, scales,
//    convert) reached from the dot, whose other operands do not depend on
//    the dot (broadcasts of them and scalar constants are fused, anything
//    else becomes a fusion operand), as long as one instruction of the
//    result is read outside; else only a chain of single-user consumers.
//  - Dots inside fusions are not looked at; fusions this pass makes are
//    not fusible by priority or multi-output fusion.

#include <vector>

#include "absl/status/statusor.h"
#include "hlo/ir/instruction.h"
#include "hlo/ir/module.h"

namespace xlite {

/// Whether the tiled GEMM kernel computes `dot` (the first guarantee).
bool IsTiledGemmCandidate(const HloInstruction& dot);

/// What FuseTiledGemm(dot) would put in the fusion: its members in post
/// order (operands first) and the one whose value the fusion gives.
struct TiledGemmFusionPlan {
  std::vector<HloInstruction*> members;
  HloInstruction* root = nullptr;
};

/// The plan for the candidate `dot`, without changing anything.
TiledGemmFusionPlan PlanTiledGemmFusion(HloInstruction* dot);

/// Fuses every candidate dot of the module's sequential computations;
/// true if any.
absl::StatusOr<bool> RunTiledGemmFusion(HloModule& module);

/// The same for the one dot `dot` (a candidate); returns the fusion.
absl::StatusOr<HloInstruction*> FuseTiledGemm(HloInstruction* dot);

}  // namespace xlite

#endif  // XLITE_PASSES_TILED_GEMM_FUSION_H_
