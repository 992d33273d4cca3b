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
  if (IsTiledGemmKernel(hlo)) return "tiled-gemm";
  if (ComputedRoot(hlo)->opcode() == HloOpcode::kScatter) return "scatter";
  if (hlo->opcode() == HloOpcode::kSelectAndScatter) {
    return "select-and-scatter";
  }
  if (hlo->opcode() == HloOpcode::kRngBitGenerator) return "rng-bit-generator";
  if (IsTopK(hlo)) return "top-k";
  if (hlo->opcode() == HloOpcode::kFft) return "fft";
  if (IsLinalg(hlo)) return "linalg";
  if (IsInPlaceDynamicUpdateSlice(hlo)) return "dynamic-update-slice";
  std::optional<ReductionShape> reduction = ClassifyReduction(hlo);
  if (!reduction.has_value()) {
    if (TiledTransposeOf(hlo).has_value()) return "transpose";
    if (IsConcatenateKernel(hlo)) return "concatenate";
    return "loop";
  }
  return reduction->is_row ? "row-reduction" : "column-reduction";
}

namespace {

absl::StatusOr<LaunchDims> EmitAnyKernel(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params) {
  if (IsTiledGemmKernel(hlo)) {
    return EmitTiledGemmKernel(target, module, hlo, name, params);
  }
  if (hlo->opcode() == HloOpcode::kSort) {
    return EmitSortKernel(target, module, hlo, name, params);
  }
  if (hlo->opcode() == HloOpcode::kRngBitGenerator) {
    return EmitRngBitGeneratorKernel(target, module, hlo, name, params);
  }
  if (IsTopK(hlo)) return EmitTopKKernel(target, module, hlo, name, params);
  if (hlo->opcode() == HloOpcode::kFft) {
    return EmitFftKernel(target, module, hlo, name, params);
  }
  if (IsLinalg(hlo)) return EmitLinalgKernel(target, module, hlo, name, params);
  if (std::optional<ReductionShape> reduction = ClassifyReduction(hlo)) {
    return reduction->is_row
               ? EmitRowReduction(target, module, hlo, *reduction, name,
                                  params)
               : EmitColumnReduction(target, module, hlo, *reduction, name,
                                     params);
  }
  if (std::optional<TransposeTiling> tiling = TiledTransposeOf(hlo)) {
    return EmitTransposeKernel(target, module, hlo, *tiling, name, params);
  }
  if (IsConcatenateKernel(hlo)) {
    return EmitConcatenateKernel(target, module, hlo, name, params);
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

absl::StatusOr<std::vector<KernelLaunch>> EmitKernels(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params) {
  const std::string kind = KernelKind(hlo);
  if (kind != "scatter" && kind != "select-and-scatter" &&
      kind != "dynamic-update-slice") {
    absl::StatusOr<LaunchDims> dims =
        EmitKernel(target, module, hlo, name, params);
    if (!dims.ok()) return dims.status();
    return std::vector<KernelLaunch>{{name, *dims, {}}};
  }
  absl::StatusOr<std::vector<KernelLaunch>> launches =
      kind == "scatter" ? EmitScatterKernels(target, module, hlo, name, params)
      : kind == "dynamic-update-slice"
          ? EmitInPlaceDusKernels(target, module, hlo, name, params)
          : EmitSelectAndScatterKernels(target, module, hlo, name, params);
  if (!launches.ok()) return launches.status();
  if (absl::Status s = DefineComplexHelpers(module); !s.ok()) return s;
  return launches;
}

bool IsKernelCustomCall(const HloInstruction* hlo) {
  return hlo->opcode() == HloOpcode::kCustomCall &&
         (IsTopK(hlo) || IsLinalg(hlo));
}

bool ReadsOperandInPlace(const HloInstruction* hlo, int64_t operand_number) {
  const std::string kind = KernelKind(hlo);
  if (kind == "scatter") return ScatterReadsInPlace(hlo, operand_number);
  if (kind == "linalg") return LinalgReadsInPlace(hlo, operand_number);
  if (kind == "dynamic-update-slice" &&
      InPlaceDusReadsInPlace(hlo, operand_number)) {
    return true;
  }
  // The loop kernel's thread reads and writes each element; the sort
  // kernel's thread reads its row before sorting it.
  if (kind == "loop" || kind == "sort") return true;
  // The transpose and concatenate kernels read the epilogue's other inputs
  // at the element they write.
  if ((kind == "transpose" || kind == "concatenate") &&
      ReadOnlyAtRootIndex(hlo, operand_number)) {
    return true;
  }
  // Any kernel is safe with an operand it never reads (a fusion parameter
  // nothing uses).
  return hlo->opcode() == HloOpcode::kFusion && operand_number >= 0 &&
         operand_number < hlo->operand_count() &&
         hlo->fused_computation()
             ->parameter_instruction(operand_number)
             ->users()
             .empty();
}

}  // namespace xlite::codegen::gpu
