#include "passes/gpu_fusion_rules.h"

#include "absl/strings/str_cat.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/opcode.h"

namespace xlite {
namespace {

using O = HloOpcode;

bool SameDimensions(const Shape& a, const Shape& b) {
  return a.IsArray() && b.IsArray() && a.dimensions() == b.dimensions();
}

bool IsFusibleOpcode(const HloInstruction& hlo) {
  switch (hlo.opcode()) {
    case O::kBitcast: case O::kBroadcast: case O::kConcatenate:
    case O::kDynamicSlice: case O::kDynamicUpdateSlice: case O::kGather:
    case O::kIota: case O::kPad: case O::kReduce: case O::kReduceWindow:
    case O::kReshape: case O::kReverse: case O::kSlice: case O::kTranspose:
    case O::kScatter: case O::kConstant:
      return true;
    case O::kBitcastConvert:
      return SameDimensions(hlo.shape(), hlo.operand(0)->shape());
    case O::kFusion:
      return hlo.attrs().fusion_kind == FusionKind::kLoop ||
             hlo.attrs().fusion_kind == FusionKind::kInput;
    default:
      return IsElementwiseOpcode(hlo.opcode()) && hlo.shape().IsArray();
  }
}

// The instruction that writes a fusion's (or a plain op's) result.
const HloInstruction* RootOf(const HloInstruction& hlo) {
  return hlo.opcode() == O::kFusion ? hlo.fused_computation()->root_instruction()
                                    : &hlo;
}

// Operand numbers of `consumer` updated in place by its root.
bool IsInPlaceOperand(const HloInstruction& consumer, int64_t i) {
  const HloInstruction* root = RootOf(consumer);
  int64_t operand = i;
  if (consumer.opcode() == O::kFusion) {
    // The fused parameter for operand i must not be the updated buffer.
    const HloInstruction* param =
        consumer.fused_computation()->parameter_instruction(i);
    for (int64_t k = 0; k < root->operand_count(); ++k) {
      if (root->operand(k) != param) continue;
      if (root->opcode() == O::kDynamicUpdateSlice && k == 0) return true;
      if (root->opcode() == O::kScatter && k < root->operand_count() / 2) {
        return true;
      }
    }
    return false;
  }
  if (root->opcode() == O::kDynamicUpdateSlice) return operand == 0;
  if (root->opcode() == O::kScatter) return operand < root->operand_count() / 2;
  return false;
}

}  // namespace

bool IsGpuFusible(const HloInstruction& hlo) {
  if (hlo.HasSideEffect() || !hlo.control_predecessors().empty() ||
      !hlo.control_successors().empty()) {
    return false;
  }
  if (hlo.opcode() == O::kConstant) {
    return hlo.shape().IsArray() && hlo.shape().ElementCount() <= 1;
  }
  return IsFusibleOpcode(hlo);
}

bool IsGpuFusibleProducer(const HloInstruction& hlo) {
  if (!IsGpuFusible(hlo) || !hlo.shape().IsArray() ||
      hlo.parent()->root_instruction() == &hlo) {
    return false;
  }
  const O root = RootOf(hlo)->opcode();
  return root != O::kDynamicUpdateSlice && root != O::kScatter &&
         root != O::kTuple;
}

std::string FitsGpuBudget(const KernelAnalysis& kernel,
                          const GpuFusionTarget& target) {
  if (kernel.operands + kernel.results > target.max_operands_and_outputs) {
    return absl::StrCat("the fusion would have ", kernel.operands,
                        " operands and ", kernel.results, " results (limit ",
                        target.max_operands_and_outputs, ")");
  }
  if (kernel.shared_memory_bytes > target.shared_memory_per_block) {
    return absl::StrCat("the fusion would use ", kernel.shared_memory_bytes,
                        " bytes of shared memory (limit ",
                        target.shared_memory_per_block, ")");
  }
  if (kernel.instructions > target.max_fused_instructions) {
    return absl::StrCat("the fusion would hold ", kernel.instructions,
                        " instructions");
  }
  return "";
}

std::string CanFuseOnGpu(const HloInstruction& producer,
                         const HloInstruction& consumer,
                         const GpuFusionTarget& target,
                         KernelAnalysis* fused) {
  if (!IsGpuFusibleProducer(producer)) return "the producer is not fusible";
  if (!IsGpuFusible(consumer)) return "the consumer is not fusible";
  if (consumer.opcode() == O::kBitcast) return "the consumer is a lone bitcast";
  for (int64_t i = 0; i < consumer.operand_count(); ++i) {
    if (consumer.operand(i) == &producer && IsInPlaceOperand(consumer, i)) {
      return "the producer is a buffer the consumer updates in place";
    }
  }
  KernelView alone{{&producer}, {&producer}};
  const KernelAnalysis producer_kernel = AnalyzeKernel(alone);
  KernelView consumer_view{{&consumer}, {&consumer}};
  const KernelAnalysis consumer_kernel = AnalyzeKernel(consumer_view);
  if (producer_kernel.has_significant_reduce &&
      consumer_kernel.has_significant_reduce) {
    return "both the producer and the consumer hold a reduce";
  }
  KernelView view{{&producer, &consumer}, {&consumer}};
  KernelAnalysis analysis = AnalyzeKernel(view);
  if (producer_kernel.emitter == KernelEmitter::kReduction &&
      analysis.emitter != KernelEmitter::kReduction) {
    return "fusing into a reduction's output would make a loop fusion";
  }
  if (std::string budget = FitsGpuBudget(analysis, target); !budget.empty()) {
    return budget;
  }
  if (fused != nullptr) *fused = std::move(analysis);
  return "";
}

}  // namespace xlite
