// Pred and integer opcodes, mirroring elementwise.cc's int helpers. Values
// are iN of the type's width, so wrapping at the width is LLVM's; the
// operations LLVM leaves undefined (division by 0 and INT_MIN / -1, shifts
// past the width) get XLA's results by selects around safe operands.

#include "codegen/integer_ops.h"

#include "codegen/op_error.h"
#include "llvm/IR/Intrinsics.h"

namespace xlite::codegen {
namespace {

llvm::Value* Constant(llvm::Value* like, int64_t value) {
  return llvm::ConstantInt::get(like->getType(), value, true);
}

// IntDivide / IntRemainder.
llvm::Value* EmitDivide(llvm::IRBuilderBase& b, bool is_signed, bool remainder,
                        llvm::Value* x, llvm::Value* y) {
  llvm::Value* zero = b.CreateICmpEQ(y, Constant(y, 0));
  llvm::Value* minus_one =
      is_signed ? b.CreateICmpEQ(y, Constant(y, -1)) : b.getFalse();
  llvm::Value* safe_y =
      b.CreateSelect(b.CreateOr(zero, minus_one), Constant(y, 1), y);
  llvm::Value* result;
  if (remainder) {
    result = is_signed ? b.CreateSRem(x, safe_y) : b.CreateURem(x, safe_y);
    result = b.CreateSelect(minus_one, Constant(x, 0), result);
    return b.CreateSelect(zero, x, result);
  }
  result = is_signed ? b.CreateSDiv(x, safe_y) : b.CreateUDiv(x, safe_y);
  result = b.CreateSelect(minus_one, b.CreateNeg(x), result);
  // Signed: -1; unsigned: all ones. Both are the all-ones pattern.
  return b.CreateSelect(zero, Constant(x, -1), result);
}

// Shift: amounts (read unsigned) at or past the width give 0, or -1 for an
// arithmetic right shift of a negative value.
llvm::Value* EmitShift(llvm::IRBuilderBase& b, HloOpcode op, bool is_signed,
                       llvm::Value* x, llvm::Value* y) {
  const unsigned width = x->getType()->getIntegerBitWidth();
  llvm::Value* out_of_range = b.CreateICmpUGE(y, Constant(y, width));
  llvm::Value* amount = b.CreateSelect(out_of_range, Constant(y, 0), y);
  llvm::Value* shifted;
  llvm::Value* saturated = Constant(x, 0);
  switch (op) {
    case HloOpcode::kShiftLeft:
      shifted = b.CreateShl(x, amount);
      break;
    case HloOpcode::kShiftRightLogical:
      shifted = b.CreateLShr(x, amount);
      break;
    default:
      // As XLA: the top bit is copied in whatever the signedness (an
      // unsigned 0xFF >> 1 is 0xFF).
      shifted = b.CreateAShr(x, amount);
      saturated = b.CreateSelect(b.CreateICmpSLT(x, Constant(x, 0)),
                                 Constant(x, -1), Constant(x, 0));
      break;
  }
  return b.CreateSelect(out_of_range, saturated, shifted);
}

// IntPower: square-and-multiply over every bit of the exponent, unrolled
// (no control flow), wrapping at the width.
llvm::Value* EmitPower(llvm::IRBuilderBase& b, bool is_signed,
                       llvm::Value* base, llvm::Value* exponent) {
  const unsigned width = base->getType()->getIntegerBitWidth();
  llvm::Value* result = Constant(base, 1);
  llvm::Value* square = base;
  for (unsigned i = 0; i < width; ++i) {
    llvm::Value* bit = b.CreateTrunc(b.CreateLShr(exponent, i), b.getInt1Ty());
    result = b.CreateSelect(bit, b.CreateMul(result, square), result);
    if (i + 1 < width) square = b.CreateMul(square, square);
  }
  if (!is_signed) return result;
  // Negative exponents: 1 for base 1, +-1 for base -1, else 0.
  llvm::Value* odd = b.CreateTrunc(exponent, b.getInt1Ty());
  llvm::Value* negative_power = b.CreateSelect(
      b.CreateICmpEQ(base, Constant(base, 1)), Constant(base, 1),
      b.CreateSelect(b.CreateICmpEQ(base, Constant(base, -1)),
                     b.CreateSelect(odd, Constant(base, -1), Constant(base, 1)),
                     Constant(base, 0)));
  return b.CreateSelect(b.CreateICmpSLT(exponent, Constant(exponent, 0)),
                        negative_power, result);
}

// MulHi: the high half of the double-width product.
llvm::Value* EmitMulHi(llvm::IRBuilderBase& b, bool is_signed, llvm::Value* x,
                       llvm::Value* y) {
  const unsigned width = x->getType()->getIntegerBitWidth();
  llvm::Type* wide = b.getIntNTy(2 * width);
  llvm::Value* xw = is_signed ? b.CreateSExt(x, wide) : b.CreateZExt(x, wide);
  llvm::Value* yw = is_signed ? b.CreateSExt(y, wide) : b.CreateZExt(y, wide);
  llvm::Value* product = b.CreateMul(xw, yw);
  llvm::Value* high =
      is_signed ? b.CreateAShr(product, width) : b.CreateLShr(product, width);
  return b.CreateTrunc(high, x->getType());
}

absl::StatusOr<llvm::Value*> EmitPredUnary(llvm::IRBuilderBase& b, HloOpcode op,
                                           llvm::Value* x) {
  switch (op) {
    case HloOpcode::kNot:
      return b.CreateNot(x);
    case HloOpcode::kAbs:
    case HloOpcode::kSign:
      return x;
    default:
      return NotDefinedError(op, PrimitiveType::kPred);
  }
}

absl::StatusOr<llvm::Value*> EmitPredBinary(llvm::IRBuilderBase& b,
                                            HloOpcode op, llvm::Value* x,
                                            llvm::Value* y) {
  switch (op) {
    case HloOpcode::kAnd:
    case HloOpcode::kMultiply:
    case HloOpcode::kMinimum:
      return b.CreateAnd(x, y);
    case HloOpcode::kOr:
    case HloOpcode::kAdd:
    case HloOpcode::kMaximum:
      return b.CreateOr(x, y);
    case HloOpcode::kXor:
    case HloOpcode::kSubtract:
      return b.CreateXor(x, y);
    default:
      return NotDefinedError(op, PrimitiveType::kPred);
  }
}

}  // namespace

absl::StatusOr<llvm::Value*> EmitIntegerUnary(llvm::IRBuilderBase& b,
                                              HloOpcode op, PrimitiveType type,
                                              llvm::Value* x) {
  if (type == PrimitiveType::kPred) return EmitPredUnary(b, op, x);
  const bool is_signed = IsSignedInteger(type);
  switch (op) {
    case HloOpcode::kNot:
      return b.CreateNot(x);
    case HloOpcode::kNegate:
      return b.CreateNeg(x);
    case HloOpcode::kAbs:
      if (!is_signed) return x;
      return b.CreateSelect(b.CreateICmpSLT(x, Constant(x, 0)), b.CreateNeg(x),
                            x);
    case HloOpcode::kSign: {
      llvm::Value* zero = Constant(x, 0);
      llvm::Value* positive =
          is_signed ? b.CreateICmpSGT(x, zero) : b.CreateICmpNE(x, zero);
      llvm::Value* negative =
          is_signed ? b.CreateICmpSLT(x, zero) : b.getFalse();
      return b.CreateSub(b.CreateZExt(positive, x->getType()),
                         b.CreateZExt(negative, x->getType()));
    }
    case HloOpcode::kPopulationCount:
      return b.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, x);
    case HloOpcode::kClz:
      return b.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, x, b.getFalse());
    default:
      return NotDefinedError(op, type);
  }
}

absl::StatusOr<llvm::Value*> EmitIntegerBinary(llvm::IRBuilderBase& b,
                                               HloOpcode op, PrimitiveType type,
                                               llvm::Value* x, llvm::Value* y) {
  if (type == PrimitiveType::kPred) return EmitPredBinary(b, op, x, y);
  const bool is_signed = IsSignedInteger(type);
  switch (op) {
    case HloOpcode::kAdd:
      return b.CreateAdd(x, y);
    case HloOpcode::kSubtract:
      return b.CreateSub(x, y);
    case HloOpcode::kMultiply:
      return b.CreateMul(x, y);
    case HloOpcode::kDivide:
      return EmitDivide(b, is_signed, /*remainder=*/false, x, y);
    case HloOpcode::kRemainder:
      return EmitDivide(b, is_signed, /*remainder=*/true, x, y);
    case HloOpcode::kMaximum:
      return b.CreateSelect(
          is_signed ? b.CreateICmpSGT(x, y) : b.CreateICmpUGT(x, y), x, y);
    case HloOpcode::kMinimum:
      return b.CreateSelect(
          is_signed ? b.CreateICmpSLT(x, y) : b.CreateICmpULT(x, y), x, y);
    case HloOpcode::kAnd:
      return b.CreateAnd(x, y);
    case HloOpcode::kOr:
      return b.CreateOr(x, y);
    case HloOpcode::kXor:
      return b.CreateXor(x, y);
    case HloOpcode::kPower:
      return EmitPower(b, is_signed, x, y);
    case HloOpcode::kMulhi:
      return EmitMulHi(b, is_signed, x, y);
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightLogical:
    case HloOpcode::kShiftRightArithmetic:
      return EmitShift(b, op, is_signed, x, y);
    default:
      return NotDefinedError(op, type);
  }
}

}  // namespace xlite::codegen
