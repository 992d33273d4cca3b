#include "gpu_backend/thunk_cost.h"

#include "absl/strings/str_cat.h"
#include "hlo/analysis/cost_model.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/opcode.h"
#include "runtime/gemm_matrices.h"

namespace xlite::gpu {
namespace {

// The tensor-core rate a dot of `type` operands compares with; "" for
// types the spec has no tensor rate of.
std::string TensorType(PrimitiveType type, bool allows_tf32) {
  switch (type) {
    case PrimitiveType::kF64:
    case PrimitiveType::kC128:
      return "f64";
    case PrimitiveType::kF32:
    case PrimitiveType::kC64:
      return allows_tf32 ? "tf32" : "f32";
    case PrimitiveType::kBF16:
      return "bf16";
    case PrimitiveType::kF16:
      return "f16";
    case PrimitiveType::kF4E2M1FN:
      return "f4";
    default:
      return IsNarrowFloat(type) ? "f8" : "";
  }
}

bool IsContraction(HloOpcode op) {
  return op == HloOpcode::kDot || op == HloOpcode::kScaledDot ||
         op == HloOpcode::kConvolution;
}

// The first dot or convolution `hlo` computes (itself or fused), or null.
const HloInstruction* ContractionOf(const HloInstruction& hlo) {
  if (IsContraction(hlo.opcode())) return &hlo;
  if (hlo.opcode() != HloOpcode::kFusion) return nullptr;
  for (const HloInstruction* i : hlo.fused_computation()->instructions()) {
    if (IsContraction(i->opcode())) return i;
  }
  return nullptr;
}

// The element type of `shape`'s first array leaf.
PrimitiveType FirstLeafType(const Shape& shape) {
  if (shape.IsTuple()) {
    return shape.tuple_shapes_size() > 0 ? FirstLeafType(shape.tuple_shapes(0))
                                         : PrimitiveType::kF32;
  }
  return shape.IsArray() ? shape.element_type() : PrimitiveType::kF32;
}

std::string KernelFlopType(const HloInstruction& hlo) {
  if (const HloInstruction* dot = ContractionOf(hlo)) {
    const PrimitiveType type = dot->operand(0)->shape().element_type();
    // Emitted dots of f32 and wider run on CUDA cores.
    if (IsNarrowFloat(type)) return TensorType(type, false);
  }
  const PrimitiveType type = FirstLeafType(hlo.shape());
  return type == PrimitiveType::kF64 || type == PrimitiveType::kC128 ? "f64"
                                                                     : "f32";
}

int64_t ArrayBytes(const Shape& shape) {
  return shape.IsArray() ? shape.ByteSizeOfElements() : 0;
}

}  // namespace

std::string KernelLabel(const HloInstruction& hlo) {
  if (hlo.opcode() != HloOpcode::kFusion) {
    return std::string(HloOpcodeString(hlo.opcode()));
  }
  return absl::StrCat(
      "fusion:", FusionKindString(hlo.attrs().fusion_kind), ":",
      HloOpcodeString(hlo.fused_computation()->root_instruction()->opcode()));
}

runtime::ThunkCost KernelThunkCost(const HloInstruction& hlo,
                                   bool updates_in_place) {
  const HloCost cost = CostOf(hlo, updates_in_place);
  return {cost.bytes(), cost.flops, KernelFlopType(hlo), KernelLabel(hlo)};
}

runtime::ThunkCost InitLaunchCost(const HloInstruction& hlo, int64_t bytes) {
  return {bytes, 0, KernelFlopType(hlo),
          absl::StrCat(KernelLabel(hlo), ":init")};
}

runtime::ThunkCost GemmThunkCost(const runtime::GemmDescription& gemm) {
  runtime::ThunkCost cost;
  cost.label = "gemm";
  for (const Shape& operand : gemm.operands) cost.bytes += ArrayBytes(operand);
  const std::vector<Shape> results = gemm.ResultLeaves();
  for (size_t i = 0; i < results.size(); ++i) {
    if (gemm.layout.workspace >= 0 &&
        static_cast<int64_t>(i) == gemm.layout.workspace) {
      continue;  // scratch, not data
    }
    cost.bytes += ArrayBytes(results[i]);
  }
  if (absl::StatusOr<runtime::GemmMatrices> m = runtime::GemmMatricesFor(gemm);
      m.ok()) {
    cost.flops = 2 * m->batch * m->m * m->n * m->k;
  }
  const PrimitiveType a = gemm.operands.empty()
                              ? PrimitiveType::kF32
                              : gemm.operands[0].element_type();
  cost.flop_type = TensorType(a, runtime::GemmAllowsTf32(gemm.config));
  if (cost.flop_type.empty()) cost.flop_type = "f32";
  return cost;
}

runtime::ThunkCost BlockScaledDotThunkCost(
    const runtime::BlockScaledDotDescription& dot) {
  runtime::ThunkCost cost;
  cost.label = "cudnn:block-scaled-dot";
  for (const Shape& operand : dot.operands) cost.bytes += ArrayBytes(operand);
  cost.bytes += ArrayBytes(dot.out());
  cost.flops = 2 * dot.batch * dot.m * dot.n * dot.k;
  cost.flop_type = dot.block_size == 16 ? "f4" : "f8";
  return cost;
}

}  // namespace xlite::gpu
