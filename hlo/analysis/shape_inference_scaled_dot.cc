// scaled-dot's operand checks (XLA's verifier):
//   scaled-dot(lhs, rhs, lhs_scale, rhs_scale[, input_global_scale,
//              weight_global_scale])
// Each scale has its operand's rank and every operand dimension is a whole
// number of scale blocks (the contracting dimension being the only one, of
// its operand, that is contracted); or the scale is the "unscaled"
// placeholder XLA accepts on a bf16 operand: a bf16 scale whose dimensions
// are all 1 (a scalar included). At least one scale is not a scalar; the
// two NVFP4 global scales are scalars. The result is lhs dot rhs.

#include <algorithm>

#include "hlo/analysis/shape_inference_internal.h"

namespace xlite {
namespace shape_inference_internal {
namespace {

// XLA's placeholder for an unscaled side: bf16 data, a bf16 scale of ones
// in every dimension, on data that is not itself all ones.
bool IsNoOpScale(const Shape& data, const Shape& scale) {
  if (data.element_type() != PrimitiveType::kBF16 ||
      scale.element_type() != PrimitiveType::kBF16) {
    return false;
  }
  const auto& sd = scale.dimensions();
  const auto& dd = data.dimensions();
  return std::all_of(sd.begin(), sd.end(), [](int64_t d) { return d == 1; }) &&
         std::any_of(dd.begin(), dd.end(), [](int64_t d) { return d != 1; });
}

absl::Status CheckScale(const Shape& data, const Shape& scale,
                        size_t contracting_dims, absl::string_view side) {
  XLITE_RETURN_IF_ERROR(ExpectArray(scale, absl::StrCat(side, " scale")));
  if (IsNoOpScale(data, scale)) return absl::OkStatus();
  if (scale.rank() != data.rank()) {
    return Invalid(absl::StrCat("scaled-dot ", side, " scale ", S(scale),
                                " must have the rank of ", side, " ", S(data)));
  }
  if (contracting_dims != 1) {
    return Invalid(absl::StrCat("scaled-dot needs exactly one ", side,
                                " contracting dimension, has ",
                                contracting_dims));
  }
  for (int64_t d = 0; d < data.rank(); ++d) {
    const int64_t o = data.dimensions(d), s = scale.dimensions(d);
    if (s == 0 ? o != 0 : o % s != 0) {
      return Invalid(absl::StrCat("scaled-dot ", side, " dimension ", d, " (",
                                  o, ") is not a multiple of its scale's (", s,
                                  "): ", S(data), " vs ", S(scale)));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferScaledDot(const HloInstruction& hlo) {
  const int64_t n = hlo.operand_count();
  if (n != 4 && n != 6) {
    return Invalid(absl::StrCat(
        "scaled-dot expects 4 operands (lhs, rhs, lhs_scale, rhs_scale) or 6 "
        "(with input_global_scale, weight_global_scale), but has ",
        n));
  }
  auto operand = [&](int64_t i) -> const Shape& {
    return hlo.operand(i)->shape();
  };
  const DotDimensionNumbers& d = hlo.attrs().dot->dnums;
  XLITE_RETURN_IF_ERROR(ExpectArray(operand(0), "scaled-dot lhs"));
  XLITE_RETURN_IF_ERROR(ExpectArray(operand(1), "scaled-dot rhs"));
  XLITE_RETURN_IF_ERROR(CheckScale(operand(0), operand(2),
                                   d.lhs_contracting_dimensions.size(), "lhs"));
  XLITE_RETURN_IF_ERROR(CheckScale(operand(1), operand(3),
                                   d.rhs_contracting_dimensions.size(), "rhs"));
  if (operand(2).rank() == 0 && operand(3).rank() == 0) {
    return Invalid("scaled-dot needs at least one scale that is not a scalar");
  }
  for (int64_t i = 4; i < n; ++i) {
    XLITE_RETURN_IF_ERROR(
        ExpectScalar(operand(i), i == 4 ? "scaled-dot input_global_scale"
                                        : "scaled-dot weight_global_scale"));
  }
  return InferDot(operand(0), operand(1), d,
                  hlo.shape().IsArray() ? hlo.shape().element_type()
                                        : operand(0).element_type());
}

}  // namespace shape_inference_internal
}  // namespace xlite
