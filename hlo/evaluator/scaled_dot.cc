// scaled-dot(lhs, rhs, lhs_scale, rhs_scale[, input_global_scale,
// weight_global_scale]), operands in XLA's order. Each side is dequantized
// as XLA's scaled-dot rewriter does it, then dotted with the instruction's
// dimension numbers; the NVFP4 form divides by the weight global scale, as
// XLA's global-scale expander does.

#include "hlo/evaluator/internal.h"
#include "hlo/ir/block_scaled_config.h"

namespace xlite::eval {
namespace {

// `x` in `type`, element by element (rounded as convert rounds).
Literal ConvertTo(const Literal& x, PrimitiveType type) {
  Shape shape = x.shape();
  shape.set_element_type(type);
  Literal out(shape);
  for (int64_t i = 0; i < x.element_count(); ++i) {
    out.SetFromDouble(i, x.GetAsDouble(i));
  }
  return out;
}

// data * scale, the scale repeated over blocks of data.dim(d) /
// scale.dim(d) elements along every dimension d. A scalar scale is XLA's
// placeholder for an unscaled side: the data passes through unchanged.
absl::StatusOr<Literal> Dequantize(const HloInstruction& hlo,
                                   const Literal& data, const Literal& scale,
                                   absl::string_view side) {
  const Shape& ds = data.shape();
  const Shape& ss = scale.shape();
  if (ss.rank() == 0) return data;
  if (ss.rank() != ds.rank()) {
    return InstructionError(
        hlo,
        absl::StrCat(side, " scale ", ss.ToString(),
                     " must have the rank of its operand ", ds.ToString()));
  }
  std::vector<int64_t> block(ds.rank(), 1);
  for (int64_t d = 0; d < ds.rank(); ++d) {
    const int64_t o = ds.dimensions(d), s = ss.dimensions(d);
    if (s == 0 ? o != 0 : o % s != 0) {
      return InstructionError(
          hlo, absl::StrCat(side, " scale ", ss.ToString(),
                            " does not tile its operand ", ds.ToString()));
    }
    if (s != 0) block[d] = o / s;
  }
  const PrimitiveType type =
      ScaledDotDequantizeType(ds.element_type(), ss.element_type());
  const Literal wide_data = ConvertTo(data, type);
  const Literal wide_scale = ConvertTo(scale, type);
  Shape shape = ds;
  shape.set_element_type(type);
  Literal out(shape);
  const std::vector<int64_t> scale_strides = Strides(ss.dimensions());
  int64_t linear = 0;
  ForEachIndex(ds.dimensions(), [&](absl::Span<const int64_t> index) {
    int64_t at = 0;
    for (int64_t d = 0; d < ds.rank(); ++d) {
      at += index[d] / block[d] * scale_strides[d];
    }
    // Both factors are exact in `type`, so one rounding of the double
    // product is the multiply in `type`.
    out.SetFromDouble(
        linear, wide_data.GetAsDouble(linear) * wide_scale.GetAsDouble(at));
    ++linear;
  });
  return out;
}

}  // namespace

absl::StatusOr<Literal> EvalScaledDot(const HloInstruction& hlo,
                                      Operands operands) {
  if (operands.size() != 4 && operands.size() != 6) {
    return InstructionError(hlo, "scaled-dot takes 4 or 6 operands");
  }
  absl::StatusOr<Literal> lhs =
      Dequantize(hlo, *operands[0], *operands[2], "lhs");
  if (!lhs.ok()) return lhs.status();
  absl::StatusOr<Literal> rhs =
      Dequantize(hlo, *operands[1], *operands[3], "rhs");
  if (!rhs.ok()) return rhs.status();
  absl::StatusOr<Literal> out =
      DotLiterals(*lhs, *rhs, hlo.attrs().dot->dnums, hlo.shape());
  if (!out.ok()) return InstructionError(hlo, out.status().message());
  if (operands.size() == 6) {
    // NVFP4: result / weight_global_scale, in f32. The input global scale
    // only sets the activation-quantization grid of a kernel that quantizes
    // the activation itself; it cancels out of the value.
    const Literal& weight_global = *operands[5];
    if (weight_global.shape().rank() != 0) {
      return InstructionError(hlo, "the global scales must be scalars");
    }
    const float divisor = static_cast<float>(weight_global.GetAsDouble(0));
    for (int64_t i = 0; i < out->element_count(); ++i) {
      out->SetFromDouble(i, static_cast<float>(out->GetAsDouble(i)) / divisor);
    }
  }
  return out;
}

}  // namespace xlite::eval
