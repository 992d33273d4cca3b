// Instructions the CPU backend compiles outside the elemental kernels:
// runtime library calls (fft, top-k, rng-bit-generator, linear algebra,
// batch normalization, the block-scaled custom calls),
// select-and-scatter's emitted kernel, and the instructions that pass
// their operands through (identity custom calls, one-device collectives).
// Each is native code; anything else fails at compile time, naming the
// instruction.

#include "absl/strings/str_cat.h"
#include "codegen/elemental.h"
#include "cpu_backend/emitter_context.h"
#include "cpu_backend/library_calls.h"
#include "hlo/ir/opcode.h"
#include "passes/annotation_calls.h"

namespace xlite::cpu {

absl::Status EmitLibraryCall(EmitterContext& ctx, llvm::IRBuilderBase& b,
                             const HloInstruction* hlo) {
  switch (hlo->opcode()) {
    case HloOpcode::kFft:
      return EmitFftCall(ctx, b, hlo);
    case HloOpcode::kTopK:
      return EmitTopKCall(ctx, b, hlo);
    case HloOpcode::kRngBitGenerator:
      return EmitRngBitGeneratorCall(ctx, b, hlo);
    case HloOpcode::kCholesky:
    case HloOpcode::kTriangularSolve:
      return EmitLinalgCall(ctx, b, hlo);
    case HloOpcode::kSelectAndScatter:
      return EmitSelectAndScatterKernel(ctx, b, hlo);
    case HloOpcode::kBatchNormTraining:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormGrad:
      return EmitBatchNormCall(ctx, b, hlo);
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllGather:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kCollectiveReduce:
      return EmitPassThrough(ctx, b, hlo);
    case HloOpcode::kCustomCall:
      break;
    default:
      return codegen::Unsupported(hlo, "no library function");
  }
  const std::string& target = hlo->attrs().custom_call->target;
  if (target == "TopK") return EmitTopKCall(ctx, b, hlo);
  if (IsLinalgTarget(target)) return EmitLinalgCall(ctx, b, hlo);
  if (target == "__op$block_scaled_dot" || target == "__cudnn$blockScaledDot") {
    return EmitBlockScaledDotCall(ctx, b, hlo);
  }
  if (target == "__op$dequantize") return EmitDequantizeCall(ctx, b, hlo);
  if (target == "__op$quantize") return EmitQuantizeCall(ctx, b, hlo);
  if (IsPassThroughTarget(target) || target == "AllocateBuffer") {
    return EmitPassThrough(ctx, b, hlo);
  }
  return codegen::Unsupported(
      hlo, absl::StrCat("unknown custom-call target \"", target, "\""));
}

}  // namespace xlite::cpu
