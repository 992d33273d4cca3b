// Shape inference for the element-wise family: unary, binary, select,
// clamp. The conversions, element-wise too, are their own family
// (shape_inference_conversion.cc).

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
  if (lhs.element_type() != rhs.element_type()) {
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

absl::Status ExpectArrayOperands(const HloInstruction& hlo) {
  for (int64_t i = 0; i < hlo.operand_count(); ++i) {
    absl::Status status = ExpectArray(
        hlo.operand(i)->shape(),
        absl::StrCat(HloOpcodeString(hlo.opcode()), " operand ", i));
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferElementwiseShape(const HloInstruction& hlo) {
  const HloOpcode op = hlo.opcode();
  XLITE_RETURN_IF_ERROR(ExpectArrayOperands(hlo));
  const Shape& a = hlo.operand(0)->shape();
  switch (op) {
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
