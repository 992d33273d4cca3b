// Shape inference for the conversion family: convert, bitcast-convert,
// reduce-precision, stochastic-convert. Their result element type is the
// declared one, which the operands alone do not give.

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "hlo/analysis/shape_inference_internal.h"

namespace xlite {
namespace shape_inference_internal {
namespace {

absl::StatusOr<Shape> InferBitcastConvert(const Shape& a, const Shape& out) {
  if (!out.IsArray()) return Invalid("bitcast-convert result must be an array");
  const int in_bits = BitWidth(a.element_type());
  const int out_bits = BitWidth(out.element_type());
  bool ok;
  if (in_bits == out_bits) {
    ok = a.dimensions() == out.dimensions();
  } else if (in_bits > out_bits) {
    // Wider to narrower: a new minor dimension of in/out elements.
    ok = out.rank() == a.rank() + 1 &&
         out.dimensions(out.rank() - 1) == in_bits / out_bits &&
         std::equal(a.dimensions().begin(), a.dimensions().end(),
                    out.dimensions().begin());
  } else {
    ok = a.rank() == out.rank() + 1 &&
         a.dimensions(a.rank() - 1) == out_bits / in_bits &&
         std::equal(out.dimensions().begin(), out.dimensions().end(),
                    a.dimensions().begin());
  }
  if (!ok) {
    return Invalid(absl::StrCat("bitcast-convert from ", S(a), " to ", S(out),
                                " does not preserve the bits"));
  }
  return out;
}

absl::StatusOr<Shape> InferStochasticConvert(const HloInstruction& hlo) {
  const Shape& a = hlo.operand(0)->shape();
  const Shape& random = hlo.operand(1)->shape();
  const PrimitiveType t = a.element_type();
  if (!IsFloatingPoint(t)) {
    return Invalid(absl::StrCat(
        "stochastic-convert expects a floating point first operands, got ",
        S(a)));
  }
  if (!IsUnsignedInteger(random.element_type()) ||
      BitWidth(random.element_type()) != BitWidth(t)) {
    return Invalid(absl::StrCat(
        "stochastic-convert's random operand must be an unsigned integer "
        "of the same width as ",
        PrimitiveTypeName(t), ", got ", S(random)));
  }
  if (a.dimensions() != random.dimensions() ||
      a.dimensions() != hlo.shape().dimensions()) {
    return Invalid(
        "stochastic-convert operands and result must have the "
        "same dimensions");
  }
  return hlo.shape();
}

}  // namespace

absl::StatusOr<Shape> InferConversionShape(const HloInstruction& hlo) {
  XLITE_RETURN_IF_ERROR(ExpectArrayOperands(hlo));
  const Shape& a = hlo.operand(0)->shape();
  switch (hlo.opcode()) {
    case HloOpcode::kConvert:
      if (!hlo.shape().IsArray() ||
          a.dimensions() != hlo.shape().dimensions()) {
        return Invalid(absl::StrCat("convert must keep the dimensions of ",
                                    S(a), ", got ", S(hlo.shape())));
      }
      return hlo.shape();
    case HloOpcode::kBitcastConvert:
      return InferBitcastConvert(a, hlo.shape());
    case HloOpcode::kReducePrecision:
      if (!IsFloatingPoint(a.element_type())) {
        return Invalid(
            absl::StrCat("reduce-precision expects a floating point "
                         "operand, got ",
                         S(a)));
      }
      if (hlo.attrs().exponent_bits < 1 || hlo.attrs().mantissa_bits < 0) {
        return Invalid(
            "reduce-precision needs exponent_bits >= 1 and "
            "mantissa_bits >= 0");
      }
      return a;
    case HloOpcode::kStochasticConvert:
      return InferStochasticConvert(hlo);
    default:
      return hlo.shape();
  }
}

}  // namespace shape_inference_internal
}  // namespace xlite
