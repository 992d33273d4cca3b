// Shape inference for the contraction family: dot, ragged-dot,
// convolution and scaled-dot (shape_inference_scaled_dot.cc). The result
// element type is the declared (preferred) one, so only the dimensions are
// derived; DeclaredShapeMatches compares those alone.

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "hlo/analysis/shape_inference_internal.h"

namespace xlite {
namespace shape_inference_internal {
namespace {

// The declared element type, or the lhs's where the shape was omitted.
PrimitiveType ResultType(const HloInstruction& hlo) {
  return hlo.shape().IsArray() ? hlo.shape().element_type()
                               : hlo.operand(0)->shape().element_type();
}

// lhs [.., m, k] is ragged along lhs_ragged_dims; rhs has a group
// dimension, which the dot proper does not see.
absl::StatusOr<Shape> InferRaggedDot(const HloInstruction& hlo) {
  const std::vector<int64_t>& groups = hlo.attrs().dot->rhs_group_dims;
  DotDimensionNumbers d = hlo.attrs().dot->dnums;
  const Shape& rhs = hlo.operand(1)->shape();
  Shape rhs_without_group(rhs.element_type(), {});
  std::vector<int64_t> remap(rhs.rank(), -1);
  for (int64_t i = 0; i < rhs.rank(); ++i) {
    if (std::count(groups.begin(), groups.end(), i)) continue;
    remap[i] = rhs_without_group.rank();
    rhs_without_group.add_dimension(rhs.dimensions(i));
  }
  for (auto* v : {&d.rhs_batch_dimensions, &d.rhs_contracting_dimensions}) {
    for (int64_t& x : *v) {
      if (x >= 0 && x < rhs.rank() && remap[x] >= 0) x = remap[x];
    }
  }
  return InferDot(hlo.operand(0)->shape(), rhs_without_group, d,
                  ResultType(hlo));
}

absl::StatusOr<Shape> InferConvolution(const HloInstruction& hlo) {
  const Shape& lhs = hlo.operand(0)->shape();
  const Shape& rhs = hlo.operand(1)->shape();
  const HloAttributes& a = hlo.attrs();
  if (!a.conv->dnums.has_value())
    return Invalid("convolution needs dim_labels");
  const ConvolutionDimensionNumbers& d = *a.conv->dnums;
  const int64_t spatial = d.input_spatial_dimensions.size();
  if (lhs.rank() != spatial + 2 || rhs.rank() != spatial + 2) {
    return Invalid(absl::StrCat("convolution dim_labels ", d.ToString(),
                                " need rank ", spatial + 2, " operands, got ",
                                S(lhs), " and ", S(rhs)));
  }
  if (static_cast<int64_t>(d.kernel_spatial_dimensions.size()) != spatial ||
      static_cast<int64_t>(d.output_spatial_dimensions.size()) != spatial) {
    return Invalid(absl::StrCat("convolution dimension numbers ", d.ToString(),
                                " give different spatial ranks"));
  }
  // Each operand's dimension numbers are distinct and in range.
  auto with = [](int64_t a, int64_t b, const std::vector<int64_t>& rest) {
    std::vector<int64_t> all = {a, b};
    all.insert(all.end(), rest.begin(), rest.end());
    return all;
  };
  XLITE_RETURN_IF_ERROR(CheckDimensionIndices(
      with(d.input_batch_dimension, d.input_feature_dimension,
           d.input_spatial_dimensions),
      spatial + 2, "convolution input", true));
  XLITE_RETURN_IF_ERROR(CheckDimensionIndices(
      with(d.kernel_input_feature_dimension, d.kernel_output_feature_dimension,
           d.kernel_spatial_dimensions),
      spatial + 2, "convolution kernel", true));
  XLITE_RETURN_IF_ERROR(CheckDimensionIndices(
      with(d.output_batch_dimension, d.output_feature_dimension,
           d.output_spatial_dimensions),
      spatial + 2, "convolution output", true));
  const Window window = a.window.value_or(Window());
  if (static_cast<int64_t>(window.dimensions.size()) != spatial) {
    return Invalid(absl::StrCat("convolution window has ",
                                window.dimensions.size(),
                                " dimensions, expected ", spatial));
  }
  const int64_t fgc = a.conv->feature_group_count;
  const int64_t bgc = a.conv->batch_group_count;
  if (fgc < 1 || bgc < 1) {
    return Invalid("feature_group_count and batch_group_count must be >= 1");
  }
  const int64_t input_features = lhs.dimensions(d.input_feature_dimension);
  const int64_t kernel_in = rhs.dimensions(d.kernel_input_feature_dimension);
  const int64_t kernel_out = rhs.dimensions(d.kernel_output_feature_dimension);
  const int64_t batch = lhs.dimensions(d.input_batch_dimension);
  if (input_features % fgc != 0 || input_features / fgc != kernel_in) {
    return Invalid(absl::StrCat("convolution input features (", input_features,
                                ") / feature_group_count (", fgc,
                                ") must equal the kernel input features (",
                                kernel_in, ")"));
  }
  if (kernel_out % fgc != 0) {
    return Invalid(absl::StrCat("kernel output features (", kernel_out,
                                ") must be a multiple of feature_group_count (",
                                fgc, ")"));
  }
  if (batch % bgc != 0 || kernel_out % bgc != 0) {
    return Invalid(absl::StrCat(
        "batch (", batch, ") and kernel output features (", kernel_out,
        ") must be multiples of batch_group_count (", bgc, ")"));
  }
  for (int64_t i = 0; i < spatial; ++i) {
    if (window.dimensions[i].size !=
        rhs.dimensions(d.kernel_spatial_dimensions[i])) {
      return Invalid(
          absl::StrCat("convolution window size ", window.dimensions[i].size,
                       " differs from kernel spatial dimension ",
                       rhs.dimensions(d.kernel_spatial_dimensions[i])));
    }
  }
  std::vector<int64_t> dims(spatial + 2, 0);
  dims[d.output_batch_dimension] = batch / bgc;
  dims[d.output_feature_dimension] = kernel_out;
  for (int64_t i = 0; i < spatial; ++i) {
    absl::StatusOr<int64_t> size = WindowedOutputSize(
        lhs.dimensions(d.input_spatial_dimensions[i]), window.dimensions[i]);
    if (!size.ok()) return size.status();
    dims[d.output_spatial_dimensions[i]] = *size;
  }
  return Shape(lhs.element_type(), dims);
}

}  // namespace

absl::StatusOr<Shape> InferDot(const Shape& lhs, const Shape& rhs,
                               const DotDimensionNumbers& d,
                               PrimitiveType declared_type) {
  XLITE_RETURN_IF_ERROR(ExpectArray(lhs, "dot lhs"));
  XLITE_RETURN_IF_ERROR(ExpectArray(rhs, "dot rhs"));
  XLITE_RETURN_IF_ERROR(CheckDimensionIndices(
      d.lhs_contracting_dimensions, lhs.rank(), "lhs_contracting_dims", true));
  XLITE_RETURN_IF_ERROR(CheckDimensionIndices(
      d.rhs_contracting_dimensions, rhs.rank(), "rhs_contracting_dims", true));
  XLITE_RETURN_IF_ERROR(CheckDimensionIndices(
      d.lhs_batch_dimensions, lhs.rank(), "lhs_batch_dims", true));
  XLITE_RETURN_IF_ERROR(CheckDimensionIndices(
      d.rhs_batch_dimensions, rhs.rank(), "rhs_batch_dims", true));
  if (d.lhs_contracting_dimensions.size() !=
      d.rhs_contracting_dimensions.size()) {
    return Invalid("dot must contract as many lhs as rhs dimensions");
  }
  if (d.lhs_batch_dimensions.size() != d.rhs_batch_dimensions.size()) {
    return Invalid("dot must have as many lhs as rhs batch dimensions");
  }
  for (size_t i = 0; i < d.lhs_contracting_dimensions.size(); ++i) {
    const int64_t l = lhs.dimensions(d.lhs_contracting_dimensions[i]);
    const int64_t r = rhs.dimensions(d.rhs_contracting_dimensions[i]);
    if (l != r) {
      return Invalid(absl::StrCat(
          "dot contracting dimensions differ: lhs ", S(lhs), " dim ",
          d.lhs_contracting_dimensions[i], " is ", l, ", rhs ", S(rhs), " dim ",
          d.rhs_contracting_dimensions[i], " is ", r));
    }
  }
  for (size_t i = 0; i < d.lhs_batch_dimensions.size(); ++i) {
    const int64_t l = lhs.dimensions(d.lhs_batch_dimensions[i]);
    const int64_t r = rhs.dimensions(d.rhs_batch_dimensions[i]);
    if (l != r) {
      return Invalid(
          absl::StrCat("dot batch dimensions differ: ", l, " vs ", r));
    }
  }
  for (int64_t b : d.lhs_batch_dimensions) {
    if (std::count(d.lhs_contracting_dimensions.begin(),
                   d.lhs_contracting_dimensions.end(), b)) {
      return Invalid("a dot dimension cannot be both batch and contracting");
    }
  }
  Shape out(declared_type, {});
  for (int64_t b : d.lhs_batch_dimensions) out.add_dimension(lhs.dimensions(b));
  auto add_free = [&](const Shape& s, const std::vector<int64_t>& batch,
                      const std::vector<int64_t>& contracting) {
    for (int64_t i = 0; i < s.rank(); ++i) {
      if (std::count(batch.begin(), batch.end(), i) ||
          std::count(contracting.begin(), contracting.end(), i)) {
        continue;
      }
      out.add_dimension(s.dimensions(i), s.is_dynamic_dimension(i));
    }
  };
  add_free(lhs, d.lhs_batch_dimensions, d.lhs_contracting_dimensions);
  add_free(rhs, d.rhs_batch_dimensions, d.rhs_contracting_dimensions);
  return out;
}

absl::StatusOr<Shape> InferContractionShape(const HloInstruction& hlo) {
  switch (hlo.opcode()) {
    case HloOpcode::kDot:
      return InferDot(hlo.operand(0)->shape(), hlo.operand(1)->shape(),
                      hlo.attrs().dot->dnums, ResultType(hlo));
    case HloOpcode::kRaggedDot:
      return InferRaggedDot(hlo);
    case HloOpcode::kScaledDot:
      return InferScaledDot(hlo);
    default:  // convolution
      return InferConvolution(hlo);
  }
}

}  // namespace shape_inference_internal
}  // namespace xlite
