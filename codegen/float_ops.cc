// Real float opcodes, one line per evaluator expression (elementwise.cc's
// XLITE_FLOAT_UNARY / XLITE_FLOAT_BINARY tables).

#include "codegen/float_ops.h"

#include "codegen/denormals.h"
#include "codegen/float_approximations_ir.h"
#include "codegen/math_library.h"
#include "codegen/op_error.h"
#include "llvm/IR/Intrinsics.h"

namespace xlite::codegen {
namespace {

llvm::Value* Constant(llvm::Value* like, double value) {
  return llvm::ConstantFP::get(like->getType(), value);
}

llvm::Value* IsNan(llvm::IRBuilderBase& b, llvm::Value* x) {
  return b.CreateFCmpUNO(x, x);
}

llvm::Value* SignBit(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Type* int_type = b.getIntNTy(x->getType()->getPrimitiveSizeInBits());
  return b.CreateICmpSLT(b.CreateBitCast(x, int_type),
                         llvm::ConstantInt::get(int_type, 0));
}

// Libm functions of one argument, by opcode ("exp" -> expf / exp).
const char* LibmName(HloOpcode op) {
  switch (op) {
    case HloOpcode::kExp:
      return "exp";
    case HloOpcode::kExpm1:
      return "expm1";
    case HloOpcode::kLog:
      return "log";
    case HloOpcode::kLog1p:
      return "log1p";
    case HloOpcode::kCbrt:
      return "cbrt";
    case HloOpcode::kSin:
      return "sin";
    case HloOpcode::kCos:
      return "cos";
    case HloOpcode::kTan:
      return "tan";
    case HloOpcode::kTanh:
      return "tanh";
    case HloOpcode::kSinh:
      return "sinh";
    case HloOpcode::kCosh:
      return "cosh";
    case HloOpcode::kAsin:
      return "asin";
    case HloOpcode::kAcos:
      return "acos";
    case HloOpcode::kAtan:
      return "atan";
    case HloOpcode::kAsinh:
      return "asinh";
    case HloOpcode::kAcosh:
      return "acosh";
    case HloOpcode::kAtanh:
      return "atanh";
    case HloOpcode::kErf:
      return "erf";
    default:
      return nullptr;
  }
}

// Exactly rounded operations LLVM knows as intrinsics (same results as the
// libm functions the evaluator calls: fabs, sqrt, floor, ceil, round,
// nearbyint in the default rounding mode).
std::optional<llvm::Intrinsic::ID> ExactIntrinsic(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAbs:
      return llvm::Intrinsic::fabs;
    case HloOpcode::kSqrt:
      return llvm::Intrinsic::sqrt;
    case HloOpcode::kFloor:
      return llvm::Intrinsic::floor;
    case HloOpcode::kCeil:
      return llvm::Intrinsic::ceil;
    case HloOpcode::kRoundNearestAfz:
      return llvm::Intrinsic::round;
    case HloOpcode::kRoundNearestEven:
      return llvm::Intrinsic::roundeven;
    default:
      return std::nullopt;
  }
}

// e^x: f32 (and the narrow floats computing in it) by the polynomial the
// evaluator uses too, f64 by libm.
llvm::Value* EmitExp(llvm::IRBuilderBase& b, llvm::Value* x) {
  return x->getType()->isFloatTy() ? EmitExpF32(b, x)
                                   : EmitMathCall(b, "exp", {x});
}

// f32 exp, tanh and log as polynomials (float_approximations_ir.h), or
// null.
llvm::Value* EmitApproximation(llvm::IRBuilderBase& b, HloOpcode op,
                               llvm::Value* x) {
  if (!x->getType()->isFloatTy()) return nullptr;
  switch (op) {
    case HloOpcode::kExp:
      return EmitExpF32(b, x);
    case HloOpcode::kTanh:
      return EmitTanhF32(b, x);
    case HloOpcode::kLog:
      // A subnormal reads as zero, as in libm's log below.
      return EmitLogF32(b, EmitReadAsHardware(b, x));
    default:
      return nullptr;
  }
}

// The smallest normal value of x's type.
llvm::Value* SmallestNormal(llvm::Value* x) {
  return Constant(x, x->getType()->isFloatTy() ? 0x1p-126 : 0x1p-1022);
}

// Libm's function `name` of x, as XLA:CPU computes it when denormals are
// flushed (the evaluator's Expm1 and Unary do the same): expm1 of a
// subnormal is the subnormal (libm would compute on a flushed operand and
// give a zero); log and log1p read one as zero (libm would scale it up).
llvm::Value* EmitLibmCall(llvm::IRBuilderBase& b, HloOpcode op,
                          const char* name, llvm::Value* x) {
  switch (op) {
    case HloOpcode::kExpm1: {
      // Also in IEEE mode, where the function of a subnormal is itself.
      llvm::Value* tiny = b.CreateFCmpOLT(
          b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x), SmallestNormal(x));
      return b.CreateSelect(tiny, x, EmitMathCall(b, name, {x}));
    }
    case HloOpcode::kLog:
    case HloOpcode::kLog1p:
      return EmitMathCall(b, name, {EmitReadAsHardware(b, x)});
    default:
      return EmitMathCall(b, name, {x});
  }
}

}  // namespace

llvm::Value* EmitFloatMax(llvm::IRBuilderBase& b, llvm::Value* x,
                          llvm::Value* y) {
  // Selects keep bits: subnormals read as the hardware reads them first.
  x = EmitReadAsHardware(b, x);
  y = EmitReadAsHardware(b, y);
  // isnan(x) ? x : isnan(y) ? y : x > y ? x : y > x ? y : signbit(x) ? y : x
  llvm::Value* equal = b.CreateSelect(SignBit(b, x), y, x);
  llvm::Value* ordered =
      b.CreateSelect(b.CreateFCmpOGT(x, y), x,
                     b.CreateSelect(b.CreateFCmpOGT(y, x), y, equal));
  return b.CreateSelect(IsNan(b, x), x,
                        b.CreateSelect(IsNan(b, y), y, ordered));
}

llvm::Value* EmitFloatMin(llvm::IRBuilderBase& b, llvm::Value* x,
                          llvm::Value* y) {
  x = EmitReadAsHardware(b, x);
  y = EmitReadAsHardware(b, y);
  // isnan(x) ? x : isnan(y) ? y : x < y ? x : y < x ? y : signbit(x) ? x : y
  llvm::Value* equal = b.CreateSelect(SignBit(b, x), x, y);
  llvm::Value* ordered =
      b.CreateSelect(b.CreateFCmpOLT(x, y), x,
                     b.CreateSelect(b.CreateFCmpOLT(y, x), y, equal));
  return b.CreateSelect(IsNan(b, x), x,
                        b.CreateSelect(IsNan(b, y), y, ordered));
}

absl::StatusOr<llvm::Value*> EmitFloatUnary(llvm::IRBuilderBase& b,
                                            HloOpcode op, PrimitiveType type,
                                            llvm::Value* x) {
  if (llvm::Value* y = EmitApproximation(b, op, x)) return y;
  if (const char* name = LibmName(op)) return EmitLibmCall(b, op, name, x);
  if (std::optional<llvm::Intrinsic::ID> id = ExactIntrinsic(op)) {
    return b.CreateUnaryIntrinsic(*id, x);
  }
  switch (op) {
    case HloOpcode::kNegate:
      return b.CreateFNeg(x);
    case HloOpcode::kSign: {
      // isnan(x) ? x : x > 0 ? 1 : x < 0 ? -1 : x, a subnormal x read as
      // the hardware reads it.
      x = EmitReadAsHardware(b, x);
      llvm::Value* zero = Constant(x, 0);
      llvm::Value* sign = b.CreateSelect(
          b.CreateFCmpOGT(x, zero), Constant(x, 1),
          b.CreateSelect(b.CreateFCmpOLT(x, zero), Constant(x, -1), x));
      return b.CreateSelect(IsNan(b, x), x, sign);
    }
    case HloOpcode::kRsqrt:
      return b.CreateFDiv(Constant(x, 1),
                          b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x));
    case HloOpcode::kLogistic: {
      // 1 / (1 + exp(-x))
      llvm::Value* e = EmitExp(b, b.CreateFNeg(x));
      return b.CreateFDiv(Constant(x, 1), b.CreateFAdd(Constant(x, 1), e));
    }
    case HloOpcode::kReal:
      return x;
    case HloOpcode::kImag:
      return Constant(x, 0);
    case HloOpcode::kIsFinite:
      // |x| != inf, ordered: false for NaN and infinities.
      return b.CreateFCmpONE(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x),
                             llvm::ConstantFP::getInfinity(x->getType()));
    default:
      return NotDefinedError(op, type);
  }
}

absl::StatusOr<llvm::Value*> EmitFloatBinary(llvm::IRBuilderBase& b,
                                             HloOpcode op, PrimitiveType type,
                                             llvm::Value* x, llvm::Value* y) {
  switch (op) {
    case HloOpcode::kAdd:
      return b.CreateFAdd(x, y);
    case HloOpcode::kSubtract:
      return b.CreateFSub(x, y);
    case HloOpcode::kMultiply:
      return b.CreateFMul(x, y);
    case HloOpcode::kDivide:
      return b.CreateFDiv(x, y);
    case HloOpcode::kRemainder:
      return EmitMathCall(b, "fmod", {x, y});
    case HloOpcode::kPower:
      return EmitMathCall(b, "pow", {x, y});
    case HloOpcode::kAtan2:
      return EmitMathCall(b, "atan2", {x, y});
    case HloOpcode::kMaximum:
      return EmitFloatMax(b, x, y);
    case HloOpcode::kMinimum:
      return EmitFloatMin(b, x, y);
    default:
      return NotDefinedError(op, type);
  }
}

}  // namespace xlite::codegen
