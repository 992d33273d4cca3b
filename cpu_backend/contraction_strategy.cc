#include "cpu_backend/contraction_strategy.h"

#include <algorithm>

#include "hlo/ir/computation.h"
#include "hlo/ir/opcode.h"

namespace xlite::cpu {

namespace {

// The thresholds, from hlo-run --iterations=200 min times of one-instruction
// modules (f32 unless named; emitted loops vs library, microseconds; the
// runtime library's Eigen built for baseline x86-64, single-threaded):
//   dot m x k x n:   16x16x16 3.3/3.6   20x20x20 6.1/5.0   16x32x16 6.5/5.3
//                    8x32x16 4.3/3.8    16x16x32 4.7/5.2   32x8x32 5.2/6.3
//                    256x16x256 266/288 256x32x256 774/382 64x8x64 17/18
//                    512x8x512 994/1048 64x64x64 106/52    512^3 275899/20123
//                    c64 256x16x256 1053/615  c64 32x4x32 5.1/6.4
//                    f16 8x8x8 2.7/1.8  f16 16x8x16 8.8/3.0
//   conv b,hw,in,out,window (3x3 "same" unless 5 or 1):
//                    2,8,4,8,3 14.5/17.6    2,8,8,8,3 27/21
//                    2,16,3,16,3 81/80      2,32,3,32,3 613/455
//                    2,32,3,8,5 362/491     2,16,16,16,1 59/64
//                    2,16,32,32,1 222/138   8,32,64,64,3 306748/32328
//                    f16 2,8,4,8,3 87/21
constexpr int64_t kDotMinMultiplyAdds = 8192;
constexpr int64_t kDotMinContractedReal = 24;
constexpr int64_t kDotMinContractedComplex = 16;
constexpr int64_t kConvMinMultiplyAdds = 65536;
constexpr int64_t kConvMinDepth = 24;
constexpr int64_t kConvMinFeatureProduct = 32;
constexpr int64_t kHalfMinMultiplyAdds = 512;

bool AnyIsF16(const HloInstruction& hlo) {
  return hlo.shape().element_type() == PrimitiveType::kF16 ||
         hlo.operand(0)->shape().element_type() == PrimitiveType::kF16 ||
         hlo.operand(1)->shape().element_type() == PrimitiveType::kF16;
}

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

// True when every dimension number of a convolution whose arrays have
// rank spatial + 2 is in range.
bool ValidConvolutionNumbers(const ConvolutionDimensionNumbers& dn,
                             int64_t spatial) {
  std::vector<int64_t> all = {
      dn.input_batch_dimension,          dn.input_feature_dimension,
      dn.kernel_input_feature_dimension, dn.kernel_output_feature_dimension,
      dn.output_batch_dimension,         dn.output_feature_dimension};
  for (const auto* list :
       {&dn.input_spatial_dimensions, &dn.kernel_spatial_dimensions,
        &dn.output_spatial_dimensions}) {
    all.insert(all.end(), list->begin(), list->end());
  }
  return std::all_of(all.begin(), all.end(),
                     [&](int64_t d) { return d >= 0 && d < spatial + 2; });
}

// True when a dot (valid, non-empty, of library types) is large enough.
bool DotIsLarge(const HloInstruction& dot) {
  const int64_t k = Product(dot.operand(0)->shape(),
                            dot.attrs().dot->dnums.lhs_contracting_dimensions);
  const int64_t multiply_adds = dot.shape().ElementCount() * k;
  if (AnyIsF16(dot)) return multiply_adds >= kHalfMinMultiplyAdds;
  const int64_t min_k = IsComplex(dot.shape().element_type())
                            ? kDotMinContractedComplex
                            : kDotMinContractedReal;
  return multiply_adds >= kDotMinMultiplyAdds && k >= min_k;
}

// True when a convolution (valid, non-empty, of library types) is large
// enough.
bool ConvolutionIsLarge(const HloInstruction& conv) {
  const ConvolutionDimensionNumbers& dn = *conv.attrs().conv->dnums;
  const Shape& kernel = conv.operand(1)->shape();
  const int64_t in_features =
      kernel.dimensions(dn.kernel_input_feature_dimension);
  const int64_t out_features =
      kernel.dimensions(dn.kernel_output_feature_dimension);
  const int64_t depth =
      Product(kernel, dn.kernel_spatial_dimensions) * in_features;
  const int64_t multiply_adds = conv.shape().ElementCount() * depth;
  if (AnyIsF16(conv)) return multiply_adds >= kHalfMinMultiplyAdds;
  return multiply_adds >= kConvMinMultiplyAdds && depth >= kConvMinDepth &&
         in_features * out_features >= kConvMinFeatureProduct;
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
  return DotIsLarge(*dot);
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
      hlo.shape().rank() != spatial + 2 ||
      !ValidConvolutionNumbers(dn, spatial)) {
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
  return ConvolutionIsLarge(hlo);
}

}  // namespace xlite::cpu
