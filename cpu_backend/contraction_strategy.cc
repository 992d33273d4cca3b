#include "cpu_backend/contraction_strategy.h"

#include <algorithm>

#include "hlo/ir/computation.h"
#include "hlo/ir/opcode.h"

namespace xlite::cpu {

namespace {

bool IsLibraryRealType(PrimitiveType t) {
  return t == PrimitiveType::kF16 || t == PrimitiveType::kBF16 ||
         t == PrimitiveType::kF32 || t == PrimitiveType::kF64;
}

bool HasZeroDimension(const Shape& shape) {
  for (int64_t d : shape.dimensions()) {
    if (d <= 0) return true;
  }
  return false;
}

// Every array of a contraction: present, static-rank arrays with no
// zero-sized dimension.
bool NonEmptyArrays(const HloInstruction& hlo) {
  if (hlo.operand_count() != 2 || !hlo.shape().IsArray() ||
      HasZeroDimension(hlo.shape())) {
    return false;
  }
  for (int64_t i = 0; i < 2; ++i) {
    const Shape& s = hlo.operand(i)->shape();
    if (!s.IsArray() || HasZeroDimension(s)) return false;
  }
  return true;
}

// Product of the sizes of `dims` of `shape`.
int64_t Product(const Shape& shape, const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= shape.dimensions(d);
  return p;
}

// True when the dot's dimension numbers are in range and distinct.
bool ValidDotNumbers(const HloInstruction& dot) {
  const DotDimensionNumbers& d = dot.attrs().dot->dnums;
  if (d.lhs_batch_dimensions.size() != d.rhs_batch_dimensions.size() ||
      d.lhs_contracting_dimensions.size() !=
          d.rhs_contracting_dimensions.size()) {
    return false;
  }
  auto valid = [](const Shape& s, const std::vector<int64_t>& a,
                  const std::vector<int64_t>& b) {
    std::vector<int64_t> all(a);
    all.insert(all.end(), b.begin(), b.end());
    std::sort(all.begin(), all.end());
    if (std::adjacent_find(all.begin(), all.end()) != all.end()) return false;
    return all.empty() || (all.front() >= 0 && all.back() < s.rank());
  };
  return valid(dot.operand(0)->shape(), d.lhs_batch_dimensions,
               d.lhs_contracting_dimensions) &&
         valid(dot.operand(1)->shape(), d.rhs_batch_dimensions,
               d.rhs_contracting_dimensions);
}

// batch * m * n * k of a dot: the result's element count times the
// contracted size.
int64_t DotMultiplyAdds(const HloInstruction& dot) {
  const DotDimensionNumbers& d = dot.attrs().dot->dnums;
  return dot.shape().ElementCount() *
         Product(dot.operand(0)->shape(), d.lhs_contracting_dimensions);
}

// True when `hlo` (a fused dot's operand) reaches a fusion parameter through
// copies and transposes, then bitcasts only.
bool ReachesParameter(const HloInstruction* hlo) {
  while (hlo->opcode() == HloOpcode::kCopy ||
         hlo->opcode() == HloOpcode::kTranspose) {
    hlo = hlo->operand(0);
  }
  while (hlo->opcode() == HloOpcode::kBitcast) hlo = hlo->operand(0);
  return hlo->opcode() == HloOpcode::kParameter;
}

}  // namespace

std::optional<PrimitiveType> LibraryComputeType(PrimitiveType lhs,
                                                PrimitiveType rhs,
                                                PrimitiveType result) {
  if (IsLibraryRealType(lhs) && IsLibraryRealType(rhs) &&
      IsLibraryRealType(result)) {
    const bool wide = lhs == PrimitiveType::kF64 ||
                      rhs == PrimitiveType::kF64 ||
                      result == PrimitiveType::kF64;
    return wide ? PrimitiveType::kF64 : PrimitiveType::kF32;
  }
  if ((result == PrimitiveType::kC64 || result == PrimitiveType::kC128) &&
      lhs == result && rhs == result) {
    return result;
  }
  return std::nullopt;
}

const HloInstruction* WrappedDot(const HloInstruction& hlo) {
  if (hlo.opcode() == HloOpcode::kDot) return &hlo;
  if (hlo.opcode() != HloOpcode::kFusion || hlo.called_computations().empty() ||
      !hlo.shape().IsArray()) {
    return nullptr;
  }
  const HloInstruction* root = hlo.fused_computation()->root_instruction();
  if (root == nullptr || root->opcode() != HloOpcode::kDot ||
      root->operand_count() != 2) {
    return nullptr;
  }
  for (int64_t i = 0; i < 2; ++i) {
    if (!ReachesParameter(root->operand(i))) return nullptr;
  }
  return root;
}

bool DotUsesLibrary(const HloInstruction& hlo) {
  const HloInstruction* dot = WrappedDot(hlo);
  if (dot == nullptr || !NonEmptyArrays(*dot) || !ValidDotNumbers(*dot)) {
    return false;
  }
  if (!LibraryComputeType(dot->operand(0)->shape().element_type(),
                          dot->operand(1)->shape().element_type(),
                          dot->shape().element_type())) {
    return false;
  }
  return DotMultiplyAdds(*dot) >= kLibraryMinMultiplyAdds;
}

bool ConvolutionUsesLibrary(const HloInstruction& hlo) {
  if (hlo.opcode() != HloOpcode::kConvolution || !NonEmptyArrays(hlo) ||
      !hlo.attrs().conv->dnums.has_value() ||
      hlo.attrs().conv->feature_group_count != 1 ||
      hlo.attrs().conv->batch_group_count != 1) {
    return false;
  }
  const ConvolutionDimensionNumbers& dn = *hlo.attrs().conv->dnums;
  const int64_t spatial = dn.input_spatial_dimensions.size();
  if (spatial < 1 || spatial > 3 ||
      static_cast<int64_t>(dn.kernel_spatial_dimensions.size()) != spatial ||
      static_cast<int64_t>(dn.output_spatial_dimensions.size()) != spatial ||
      hlo.operand(0)->shape().rank() != spatial + 2 ||
      hlo.operand(1)->shape().rank() != spatial + 2 ||
      hlo.shape().rank() != spatial + 2) {
    return false;
  }
  if (!hlo.attrs().window.has_value() ||
      static_cast<int64_t>(hlo.attrs().window->dimensions.size()) != spatial) {
    return false;
  }
  const Shape& kernel = hlo.operand(1)->shape();
  for (int64_t s = 0; s < spatial; ++s) {
    const WindowDimension& w = hlo.attrs().window->dimensions[s];
    if (w.stride < 1 || w.base_dilation < 1 || w.window_dilation < 1 ||
        w.size != kernel.dimensions(dn.kernel_spatial_dimensions[s])) {
      return false;
    }
  }
  const PrimitiveType out = hlo.shape().element_type();
  const std::optional<PrimitiveType> compute =
      LibraryComputeType(hlo.operand(0)->shape().element_type(),
                         hlo.operand(1)->shape().element_type(), out);
  if (!compute || IsComplex(*compute)) return false;
  const int64_t multiply_adds =
      hlo.shape().ElementCount() *
      Product(kernel, dn.kernel_spatial_dimensions) *
      kernel.dimensions(dn.kernel_input_feature_dimension);
  return multiply_adds >= kLibraryMinMultiplyAdds;
}

}  // namespace xlite::cpu
