// Shape inference for the linear algebra family: fft, cholesky,
// triangular-solve and the batch-norm ops.

#include "absl/strings/str_cat.h"
#include "hlo/analysis/shape_inference_internal.h"

namespace xlite {
namespace shape_inference_internal {
namespace {

absl::StatusOr<Shape> InferFft(const HloInstruction& hlo) {
  const Shape& in = hlo.operand(0)->shape();
  const HloAttributes& a = hlo.attrs();
  const int64_t n = a.fft_length.size();
  if (n < 1 || n > 3 || in.rank() < n) {
    return Invalid(
        absl::StrCat("fft needs 1 to 3 fft_length entries and an "
                     "operand of at least that rank, got ",
                     S(in)));
  }
  Shape out = in;
  out.ClearLayouts();
  switch (a.fft_type) {
    case FftType::kFft:
    case FftType::kIfft:
      if (!IsComplex(in.element_type())) {
        return Invalid(
            absl::StrCat("FFT/IFFT need a complex operand, got ", S(in)));
      }
      for (int64_t i = 0; i < n; ++i) {
        if (in.dimensions(in.rank() - n + i) != a.fft_length[i]) {
          return Invalid(
              "fft_length must match the operand's minor dimensions");
        }
      }
      return out;
    case FftType::kRfft:
      if (in.element_type() != PrimitiveType::kF32 &&
          in.element_type() != PrimitiveType::kF64) {
        return Invalid(
            absl::StrCat("RFFT needs an f32 or f64 operand, got ", S(in)));
      }
      out.set_element_type(in.element_type() == PrimitiveType::kF32
                               ? PrimitiveType::kC64
                               : PrimitiveType::kC128);
      out.set_dimension(in.rank() - 1, a.fft_length[n - 1] / 2 + 1);
      return out;
    case FftType::kIrfft:
      if (!IsComplex(in.element_type())) {
        return Invalid(
            absl::StrCat("IRFFT needs a complex operand, got ", S(in)));
      }
      out.set_element_type(ComplexComponentType(in.element_type()));
      out.set_dimension(in.rank() - 1, a.fft_length[n - 1]);
      return out;
  }
  return out;
}

absl::StatusOr<Shape> InferCholesky(const HloInstruction& hlo) {
  const Shape& in = hlo.operand(0)->shape();
  if (!in.IsArray() || in.rank() < 2 ||
      in.dimensions(in.rank() - 1) != in.dimensions(in.rank() - 2)) {
    return Invalid(absl::StrCat("cholesky needs square matrices, got ", S(in)));
  }
  return ArrayLike(in, in.element_type());
}

absl::StatusOr<Shape> InferTriangularSolve(const HloInstruction& hlo) {
  const HloAttributes& a = hlo.attrs();
  const Shape& lhs = hlo.operand(0)->shape();
  const Shape& rhs = hlo.operand(1)->shape();
  if (!lhs.IsArray() || lhs.rank() < 2 ||
      lhs.dimensions(lhs.rank() - 1) != lhs.dimensions(lhs.rank() - 2)) {
    return Invalid(
        absl::StrCat("triangular-solve a must be square, got ", S(lhs)));
  }
  if (rhs.rank() != lhs.rank() || lhs.element_type() != rhs.element_type()) {
    return Invalid(
        "triangular-solve operands must have the same rank and type");
  }
  const int64_t n = lhs.dimensions(lhs.rank() - 1);
  const int64_t solved = a.left_side ? rhs.dimensions(rhs.rank() - 2)
                                     : rhs.dimensions(rhs.rank() - 1);
  if (solved != n) {
    return Invalid(absl::StrCat("triangular-solve b ", S(rhs),
                                " does not match a ", S(lhs)));
  }
  return ArrayLike(rhs, rhs.element_type());
}

absl::StatusOr<Shape> InferBatchNorm(const HloInstruction& hlo) {
  const HloOpcode op = hlo.opcode();
  const HloAttributes& a = hlo.attrs();
  const Shape& in = hlo.operand(0)->shape();
  if (a.feature_index < 0 || a.feature_index >= in.rank()) {
    return Invalid(absl::StrCat("feature_index ", a.feature_index,
                                " is out of range for ", S(in)));
  }
  const Shape feature(in.element_type(), {in.dimensions(a.feature_index)});
  for (int64_t i = 1; i < hlo.operand_count(); ++i) {
    const Shape& s = hlo.operand(i)->shape();
    const bool is_grad_output = op == HloOpcode::kBatchNormGrad && i == 4;
    if (is_grad_output ? s.dimensions() != in.dimensions()
                       : s.dimensions() != feature.dimensions()) {
      return Invalid(absl::StrCat(HloOpcodeString(op), " operand ", i, " ",
                                  S(s), " has the wrong shape"));
    }
  }
  const Shape data = ArrayLike(in, in.element_type());
  if (op == HloOpcode::kBatchNormInference) return data;
  return Shape::Tuple({data, feature, feature});
}

}  // namespace

absl::StatusOr<Shape> InferLinearAlgebraShape(const HloInstruction& hlo) {
  switch (hlo.opcode()) {
    case HloOpcode::kFft:
      return InferFft(hlo);
    case HloOpcode::kCholesky:
      return InferCholesky(hlo);
    case HloOpcode::kTriangularSolve:
      return InferTriangularSolve(hlo);
    default:  // batch-norm-training, -inference, -grad
      return InferBatchNorm(hlo);
  }
}

}  // namespace shape_inference_internal
}  // namespace xlite
