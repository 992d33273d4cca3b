#include "hlo/analysis/cost_model.h"

#include <algorithm>
#include <cmath>

#include "hlo/ir/computation.h"
#include "hlo/ir/opcode.h"

namespace xlite {

namespace {

// Bytes of every array leaf of `shape`.
int64_t ArrayBytes(const Shape& shape) {
  if (shape.IsTuple()) {
    int64_t sum = 0;
    for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
      sum += ArrayBytes(shape.tuple_shapes(i));
    }
    return sum;
  }
  return shape.IsArray() ? shape.ByteSizeOfElements() : 0;
}

// Elements of an array, or of a tuple's first leaf (variadic reduce,
// sort): the iteration space.
int64_t Elements(const Shape& shape) {
  if (shape.IsTuple()) {
    return shape.tuple_shapes_size() > 0 ? Elements(shape.tuple_shapes(0)) : 0;
  }
  return shape.IsArray() ? shape.ElementCount() : 0;
}

int64_t OperandBytes(const HloInstruction& hlo, int64_t from, int64_t to) {
  int64_t sum = 0;
  for (int64_t i = from; i < std::min(to, hlo.operand_count()); ++i) {
    sum += ArrayBytes(hlo.operand(i)->shape());
  }
  return sum;
}

int64_t AppliedFlops(const HloComputation* computation) {
  return computation ? ScalarComputationFlops(*computation) : 1;
}

int64_t WindowElements(const HloInstruction& hlo) {
  int64_t n = 1;
  if (!hlo.attrs().window) return n;
  for (const WindowDimension& d : hlo.attrs().window->dimensions) n *= d.size;
  return n;
}

int64_t DotFlops(const HloInstruction& hlo) {
  const Shape& lhs = hlo.operand(0)->shape();
  int64_t contracted = 1;
  for (int64_t d : hlo.attrs().dot->dnums.lhs_contracting_dimensions) {
    if (d >= 0 && d < lhs.rank()) contracted *= lhs.dimensions(d);
  }
  return 2 * Elements(hlo.shape()) * contracted;
}

int64_t ConvolutionFlops(const HloInstruction& hlo) {
  const auto& dnums = hlo.attrs().conv->dnums;
  if (!dnums) return 0;
  const Shape& kernel = hlo.operand(1)->shape();
  // The kernel's input-feature dimension already holds the features of one
  // group (input features / feature_group_count).
  int64_t per_output = kernel.dimensions(dnums->kernel_input_feature_dimension);
  for (int64_t d : dnums->kernel_spatial_dimensions) {
    per_output *= kernel.dimensions(d);
  }
  return 2 * Elements(hlo.shape()) * per_output;
}

int64_t FftFlops(const HloInstruction& hlo) {
  int64_t n = 1;
  for (int64_t l : hlo.attrs().fft_length) n *= l;
  if (n <= 1) return 0;
  const int64_t elements =
      std::max(Elements(hlo.shape()), Elements(hlo.operand(0)->shape()));
  const int64_t transforms = std::max<int64_t>(1, elements / n);
  return static_cast<int64_t>(5.0 * n * std::log2(static_cast<double>(n))) *
         transforms;
}

// The trailing square matrix of `shape` ([..., n, n]): n and the batch.
std::pair<int64_t, int64_t> SquareAndBatch(const Shape& shape) {
  if (shape.rank() < 2) return {1, 1};
  const int64_t n = shape.dimensions(shape.rank() - 1);
  return {n, n > 0 ? shape.ElementCount() / (n * n) : 0};
}

int64_t SortFlops(const HloInstruction& hlo) {
  const Shape& keys = hlo.operand(0)->shape();
  if (hlo.dimensions().empty() || keys.rank() == 0) return 0;
  const int64_t n = keys.dimensions(hlo.dimensions(0));
  const int64_t depth =
      n > 1 ? static_cast<int64_t>(std::ceil(std::log2(static_cast<double>(n))))
            : 0;
  return keys.ElementCount() * depth * AppliedFlops(hlo.to_apply());
}

// Arithmetic of instructions other than plain element-wise ones.
int64_t StructuredFlops(const HloInstruction& hlo) {
  const HloOpcode op = hlo.opcode();
  switch (op) {
    case HloOpcode::kReduce:
      return Elements(hlo.operand(0)->shape()) * AppliedFlops(hlo.to_apply());
    case HloOpcode::kReduceWindow:
      return Elements(hlo.shape()) * WindowElements(hlo) *
             AppliedFlops(hlo.to_apply());
    case HloOpcode::kMap:
    case HloOpcode::kAllReduce:
    case HloOpcode::kReduceScatter:
      return Elements(hlo.operand(0)->shape()) * AppliedFlops(hlo.to_apply());
    case HloOpcode::kDot:
    case HloOpcode::kScaledDot:
      return DotFlops(hlo);
    case HloOpcode::kConvolution:
      return ConvolutionFlops(hlo);
    case HloOpcode::kSort:
      return SortFlops(hlo);
    case HloOpcode::kScatter: {
      const int64_t n = (hlo.operand_count() - 1) / 2;
      return Elements(hlo.operand(n + 1)->shape()) *
             AppliedFlops(hlo.to_apply());
    }
    case HloOpcode::kSelectAndScatter: {
      const auto& called = hlo.called_computations();
      const int64_t source = Elements(hlo.operand(1)->shape());
      return source * WindowElements(hlo) *
                 AppliedFlops(called.empty() ? nullptr : called[0]) +
             source * AppliedFlops(called.size() < 2 ? nullptr : called[1]);
    }
    case HloOpcode::kFft:
      return FftFlops(hlo);
    case HloOpcode::kCholesky: {
      auto [n, batch] = SquareAndBatch(hlo.operand(0)->shape());
      return batch * n * n * n / 3;
    }
    case HloOpcode::kTriangularSolve: {
      auto [m, batch] = SquareAndBatch(hlo.operand(0)->shape());
      return Elements(hlo.operand(1)->shape()) * m;
    }
    case HloOpcode::kTopK:
      return Elements(hlo.operand(0)->shape());
    case HloOpcode::kCustomCall:
      return hlo.attrs().custom_call->target == "TopK" &&
                     hlo.operand_count() > 0
                 ? Elements(hlo.operand(0)->shape())
                 : 0;
    default:
      return 0;
  }
}

int64_t Flops(const HloInstruction& hlo) {
  const HloOpcode op = hlo.opcode();
  if (op == HloOpcode::kFusion) {
    int64_t sum = 0;
    for (const HloInstruction* i : hlo.fused_computation()->instructions()) {
      sum += Flops(*i);
    }
    return sum;
  }
  const OpcodeFamily family = HloOpcodeFamily(op);
  if (op != HloOpcode::kBitcastConvert &&
      (family == OpcodeFamily::kElementwise ||
       family == OpcodeFamily::kConversion)) {
    return Elements(hlo.shape());
  }
  return StructuredFlops(hlo);
}

// Only `operand_index` of `user` is `operand`.
bool UsedOnlyAt(const HloInstruction& user, const HloInstruction* operand,
                int64_t operand_index) {
  for (int64_t i = 0; i < user.operand_count(); ++i) {
    if ((user.operand(i) == operand) != (i == operand_index)) return false;
  }
  return true;
}

// Bytes of the scatter's updates (its last operands).
int64_t ScatterUpdateBytes(const HloInstruction& scatter) {
  const int64_t n = (scatter.operand_count() - 1) / 2;
  return OperandBytes(scatter, n + 1, scatter.operand_count());
}

// What a fused parameter's users read of it: their slices when each user
// reads part of it, everything otherwise.
int64_t FusedParameterBytesRead(const HloInstruction& parameter,
                                bool updates_in_place) {
  const int64_t full = ArrayBytes(parameter.shape());
  int64_t partial = 0;
  for (const HloInstruction* user : parameter.users()) {
    const HloOpcode op = user->opcode();
    if (!UsedOnlyAt(*user, &parameter, 0)) return full;
    if (op == HloOpcode::kSlice || op == HloOpcode::kDynamicSlice ||
        op == HloOpcode::kGather) {
      partial += ArrayBytes(user->shape());
    } else if (updates_in_place && user->IsRoot() &&
               op == HloOpcode::kDynamicUpdateSlice) {
      // The old values stay where they are.
    } else if (updates_in_place && user->IsRoot() &&
               op == HloOpcode::kScatter && user->operand_count() == 3) {
      partial += ScatterUpdateBytes(*user);  // the old values under updates
    } else {
      return full;
    }
  }
  return std::min(partial, full);
}

// In place, a DUS or scatter root on a parameter writes only its updates.
int64_t FusionBytesWritten(const HloInstruction& fusion,
                           bool updates_in_place) {
  const HloInstruction* root = fusion.fused_computation()->root_instruction();
  const bool on_parameter = root->operand_count() > 0 &&
                            root->operand(0)->opcode() == HloOpcode::kParameter;
  if (updates_in_place && on_parameter) {
    if (root->opcode() == HloOpcode::kDynamicUpdateSlice) {
      return ArrayBytes(root->operand(1)->shape());
    }
    if (root->opcode() == HloOpcode::kScatter && root->operand_count() == 3) {
      return ScatterUpdateBytes(*root);
    }
  }
  return ArrayBytes(fusion.shape());
}

HloCost FusionBytes(const HloInstruction& fusion, bool updates_in_place) {
  HloCost cost;
  const auto& parameters = fusion.fused_computation()->parameter_instructions();
  for (size_t i = 0; i < parameters.size(); ++i) {
    cost.bytes_read +=
        FusedParameterBytesRead(*parameters[i], updates_in_place);
  }
  cost.bytes_written = FusionBytesWritten(fusion, updates_in_place);
  return cost;
}

bool CostsNothing(HloOpcode op) {
  if (OnlyNamesBuffers(op)) return true;
  switch (op) {
    case HloOpcode::kWhile:
    case HloOpcode::kConditional:
    case HloOpcode::kCall:
      return true;
    default:
      return false;
  }
}

// Bytes of an instruction that is not a fusion.
HloCost InstructionBytes(const HloInstruction& hlo, bool updates_in_place) {
  HloCost cost;
  cost.bytes_read = OperandBytes(hlo, 0, hlo.operand_count());
  cost.bytes_written = ArrayBytes(hlo.shape());
  const int64_t result = cost.bytes_written;
  switch (hlo.opcode()) {
    case HloOpcode::kSlice:
      cost.bytes_read = result;
      break;
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kGather:
      cost.bytes_read = result + OperandBytes(hlo, 1, hlo.operand_count());
      break;
    case HloOpcode::kDynamicUpdateSlice:
      if (updates_in_place) {
        cost.bytes_read = OperandBytes(hlo, 1, hlo.operand_count());
        cost.bytes_written = ArrayBytes(hlo.operand(1)->shape());
      }
      break;
    case HloOpcode::kScatter:
      if (updates_in_place) {
        const int64_t n = (hlo.operand_count() - 1) / 2;
        const int64_t updates = ScatterUpdateBytes(hlo);
        cost.bytes_read = OperandBytes(hlo, n, n + 1) + 2 * updates;
        cost.bytes_written = updates;
      }
      break;
    default:
      break;
  }
  return cost;
}

}  // namespace

int64_t ScalarComputationFlops(const HloComputation& computation) {
  int64_t n = 0;
  for (const HloInstruction* i : computation.instructions()) {
    if (!CostsNothing(i->opcode())) ++n;
  }
  return std::max<int64_t>(n, 1);
}

HloCost CostOf(const HloInstruction& hlo, bool updates_in_place) {
  if (CostsNothing(hlo.opcode())) return {};
  HloCost cost = hlo.opcode() == HloOpcode::kFusion
                     ? FusionBytes(hlo, updates_in_place)
                     : InstructionBytes(hlo, updates_in_place);
  cost.flops = Flops(hlo);
  return cost;
}

}  // namespace xlite
