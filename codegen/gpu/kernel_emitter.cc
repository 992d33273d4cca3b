#include "codegen/gpu/kernel_emitter.h"

#include "codegen/complex_helpers_ir.h"
#include "codegen/elemental.h"
#include "codegen/gpu/kernel_common.h"
#include "codegen/gpu/kernels.h"
#include "hlo/ir/opcode.h"

namespace xlite::codegen::gpu {

const HloInstruction* ComputedRootOf(const HloInstruction* hlo) {
  return ComputedRoot(hlo);
}

std::string KernelKind(const HloInstruction* hlo) {
  if (hlo->opcode() == HloOpcode::kSort) return "sort";
  std::optional<ReductionShape> reduction = ClassifyReduction(hlo);
  if (!reduction.has_value()) return "loop";
  return reduction->is_row ? "row-reduction" : "column-reduction";
}

namespace {

absl::StatusOr<LaunchDims> EmitAnyKernel(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params) {
  if (hlo->opcode() == HloOpcode::kSort) {
    return EmitSortKernel(target, module, hlo, name, params);
  }
  if (std::optional<ReductionShape> reduction = ClassifyReduction(hlo)) {
    return reduction->is_row
               ? EmitRowReduction(target, module, hlo, *reduction, name,
                                  params)
               : EmitColumnReduction(target, module, hlo, *reduction, name,
                                     params);
  }
  return EmitLoopKernel(target, module, hlo, name, params);
}

}  // namespace

absl::StatusOr<LaunchDims> EmitKernel(KernelTarget& target,
                                      llvm::Module& module,
                                      const HloInstruction* hlo,
                                      const std::string& name,
                                      const std::vector<KernelParam>& params) {
  absl::StatusOr<LaunchDims> launch =
      EmitAnyKernel(target, module, hlo, name, params);
  if (!launch.ok()) return launch.status();
  // Complex math calls host helpers on the CPU; a kernel gets them as IR.
  if (absl::Status s = DefineComplexHelpers(module); !s.ok()) return s;
  return launch;
}

}  // namespace xlite::codegen::gpu
