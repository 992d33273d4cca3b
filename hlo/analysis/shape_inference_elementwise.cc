// Shape inference for element-wise ops: unary, binary, select, clamp.

#include "absl/strings/str_cat.h"
#include "hlo/analysis/shape_inference_internal.h"

namespace xlite {
namespace shape_inference_internal {
namespace {

bool IsFloatOrComplex(PrimitiveType t) {
  return IsFloatingPoint(t) || IsComplex(t);
}

// Element type classes accepted by each unary op.
absl::Status CheckUnaryType(HloOpcode op, const Shape& operand) {
  const PrimitiveType t = operand.element_type();
  auto fail = [&](absl::string_view wanted) {
    return Invalid(absl::StrCat(HloOpcodeString(op), " expects ", wanted,
                                " operand, got ", S(operand)));
  };
  switch (op) {
    case HloOpcode::kFloor:
    case HloOpcode::kCeil:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven:
    case HloOpcode::kIsFinite:
      return IsFloatingPoint(t) ? absl::OkStatus() : fail("a floating point");
    case HloOpcode::kCos:
    case HloOpcode::kSin:
    case HloOpcode::kTan:
    case HloOpcode::kExp:
    case HloOpcode::kExpm1:
    case HloOpcode::kLog:
    case HloOpcode::kLog1p:
    case HloOpcode::kLogistic:
    case HloOpcode::kRsqrt:
    case HloOpcode::kSqrt:
    case HloOpcode::kCbrt:
    case HloOpcode::kTanh:
    case HloOpcode::kErf:
    case HloOpcode::kAcos:
    case HloOpcode::kAcosh:
    case HloOpcode::kAsin:
    case HloOpcode::kAsinh:
    case HloOpcode::kAtan:
    case HloOpcode::kAtanh:
    case HloOpcode::kCosh:
    case HloOpcode::kSinh:
      return IsFloatOrComplex(t) ? absl::OkStatus()
                                 : fail("a floating point or complex");
    case HloOpcode::kReal:
    case HloOpcode::kImag:
      return IsFloatOrComplex(t) ? absl::OkStatus()
                                 : fail("a complex or floating point");
    case HloOpcode::kNot:
      return t == PrimitiveType::kPred || IsInteger(t)
                 ? absl::OkStatus()
                 : fail("a pred or integer");
    case HloOpcode::kPopulationCount:
    case HloOpcode::kClz:
      return IsInteger(t) ? absl::OkStatus() : fail("an integer");
    case HloOpcode::kAbs:
    case HloOpcode::kNegate:
    case HloOpcode::kSign:
      return IsInteger(t) || IsFloatOrComplex(t) ? absl::OkStatus()
                                                 : fail("a numeric");
    default:
      return absl::OkStatus();
  }
}

absl::Status CheckBinaryTypes(HloOpcode op, const Shape& lhs,
                              const Shape& rhs) {
  const PrimitiveType t = lhs.element_type();
  if (op != HloOpcode::kStochasticConvert &&
      lhs.element_type() != rhs.element_type()) {
    return Invalid(absl::StrCat(
        HloOpcodeString(op), " operands must have the same element type, got ",
        S(lhs), " and ", S(rhs)));
  }
  auto fail = [&](absl::string_view wanted) {
    return Invalid(absl::StrCat(HloOpcodeString(op), " expects ", wanted,
                                " operands, got ", S(lhs)));
  };
  switch (op) {
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
      return t == PrimitiveType::kPred || IsInteger(t)
                 ? absl::OkStatus()
                 : fail("pred or integer");
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical:
    case HloOpcode::kMulhi:
      return IsInteger(t) ? absl::OkStatus() : fail("integer");
    case HloOpcode::kAtan2:
      return IsFloatOrComplex(t) ? absl::OkStatus()
                                 : fail("floating point or complex");
    case HloOpcode::kComplex:
      return t == PrimitiveType::kF32 || t == PrimitiveType::kF64
                 ? absl::OkStatus()
                 : fail("f32 or f64");
    case HloOpcode::kStochasticConvert:
      if (!IsFloatingPoint(t)) return fail("a floating point first");
      if (!IsUnsignedInteger(rhs.element_type()) ||
          BitWidth(rhs.element_type()) != BitWidth(t)) {
        return Invalid(absl::StrCat(
            "stochastic-convert's random operand must be an unsigned integer "
            "of the same width as ",
            PrimitiveTypeName(t), ", got ", S(rhs)));
      }
      return absl::OkStatus();
    default:
      return absl::OkStatus();
  }
}

// The common dimensions of same-rank operands, marking a dimension dynamic
// if any operand's is.
absl::StatusOr<Shape> MergeDimensions(HloOpcode op, const Shape& a,
                                      const Shape& b, PrimitiveType type) {
  if (a.dimensions() != b.dimensions()) {
    return Invalid(absl::StrCat(HloOpcodeString(op),
                                " operands must have the same dimensions, got ",
                                S(a), " and ", S(b)));
  }
  Shape out = ArrayLike(a, type);
  for (int64_t i = 0; i < out.rank(); ++i) {
    if (b.is_dynamic_dimension(i)) out.set_dynamic_dimension(i, true);
  }
  return out;
}

}  // namespace

absl::StatusOr<Shape> InferElementwiseShape(const HloInstruction& hlo) {
  const HloOpcode op = hlo.opcode();
  // copy also accepts tuples.
  if (op == HloOpcode::kCopy) return hlo.operand(0)->shape();
  for (int64_t i = 0; i < hlo.operand_count(); ++i) {
    absl::Status status =
        ExpectArray(hlo.operand(i)->shape(),
                    absl::StrCat(HloOpcodeString(op), " operand ", i));
    if (!status.ok()) return status;
  }
  const Shape& a = hlo.operand(0)->shape();
  switch (op) {
    case HloOpcode::kConvert:
      if (!hlo.shape().IsArray() ||
          a.dimensions() != hlo.shape().dimensions()) {
        return Invalid(absl::StrCat("convert must keep the dimensions of ",
                                    S(a), ", got ", S(hlo.shape())));
      }
      return hlo.shape();
    case HloOpcode::kBitcastConvert: {
      const Shape& out = hlo.shape();
      if (!out.IsArray())
        return Invalid("bitcast-convert result must be an array");
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
        return Invalid(absl::StrCat("bitcast-convert from ", S(a), " to ",
                                    S(out), " does not preserve the bits"));
      }
      return out;
    }
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
    case HloOpcode::kSelect: {
      const Shape& pred = a;
      const Shape& on_true = hlo.operand(1)->shape();
      const Shape& on_false = hlo.operand(2)->shape();
      if (pred.element_type() != PrimitiveType::kPred) {
        return Invalid(
            absl::StrCat("select's first operand must be pred, got ", S(pred)));
      }
      if (!ShapesCompatible(on_true, on_false) &&
          !(on_true.element_type() == on_false.element_type() &&
            on_true.dimensions() == on_false.dimensions())) {
        return Invalid(absl::StrCat("select's branches differ: ", S(on_true),
                                    " and ", S(on_false)));
      }
      if (pred.rank() != 0 && pred.dimensions() != on_true.dimensions()) {
        return Invalid(absl::StrCat("select's predicate ", S(pred),
                                    " must be a scalar or match ", S(on_true)));
      }
      return on_true;
    }
    case HloOpcode::kClamp: {
      const Shape& min = a;
      const Shape& x = hlo.operand(1)->shape();
      const Shape& max = hlo.operand(2)->shape();
      for (const Shape* bound : {&min, &max}) {
        if (bound->element_type() != x.element_type()) {
          return Invalid(
              absl::StrCat("clamp operands must share an element "
                           "type, got ",
                           S(min), ", ", S(x), ", ", S(max)));
        }
        if (bound->rank() != 0 && bound->dimensions() != x.dimensions()) {
          return Invalid(absl::StrCat("clamp bound ", S(*bound),
                                      " must be a scalar or match ", S(x)));
        }
      }
      return x;
    }
    default:
      break;
  }
  if (IsElementwiseUnary(op)) {
    absl::Status status = CheckUnaryType(op, a);
    if (!status.ok()) return status;
    PrimitiveType type = a.element_type();
    if (op == HloOpcode::kIsFinite) {
      type = PrimitiveType::kPred;
    } else if (op == HloOpcode::kAbs || op == HloOpcode::kReal ||
               op == HloOpcode::kImag) {
      type = ComplexComponentType(type);
    }
    return ArrayLike(a, type);
  }
  // Binary.
  const Shape& b = hlo.operand(1)->shape();
  absl::Status status = CheckBinaryTypes(op, a, b);
  if (!status.ok()) return status;
  if (op == HloOpcode::kStochasticConvert) {
    if (a.dimensions() != b.dimensions() ||
        a.dimensions() != hlo.shape().dimensions()) {
      return Invalid(
          "stochastic-convert operands and result must have the "
          "same dimensions");
    }
    return hlo.shape();
  }
  PrimitiveType type = a.element_type();
  if (op == HloOpcode::kCompare) {
    type = PrimitiveType::kPred;
  } else if (op == HloOpcode::kComplex) {
    type = a.element_type() == PrimitiveType::kF32 ? PrimitiveType::kC64
                                                   : PrimitiveType::kC128;
  }
  return MergeDimensions(op, a, b, type);
}

}  // namespace shape_inference_internal
}  // namespace xlite
