#include "codegen/conversion_ops.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "codegen/complex_ops.h"
#include "codegen/float_codec.h"
#include "codegen/scalar_ops.h"
#include "hlo/ir/float_types.h"
#include "llvm/IR/Intrinsics.h"

namespace xlite::codegen {
namespace {

// ReducePrecision<F, U, kMantissa, kExponent> on the bits `u` (iN, N = 32
// or 64); the masks are computed here exactly as the evaluator computes
// them in U.
template <typename U, int kMantissa, int kExponent>
llvm::Value* EmitReduceBits(llvm::IRBuilderBase& b, llvm::Value* u,
                            int exponent_bits, int mantissa_bits) {
  llvm::Type* it = u->getType();
  auto c = [&](U v) { return llvm::ConstantInt::get(it, v); };
  llvm::Value* bits = u;
  if (mantissa_bits < kMantissa) {
    const U last_bit_mask = U{1} << (kMantissa - mantissa_bits);
    const U base_bias = (last_bit_mask >> 1) - 1;
    llvm::Value* last_bit = b.CreateLShr(b.CreateAnd(bits, c(last_bit_mask)),
                                         kMantissa - mantissa_bits);
    bits = b.CreateAnd(b.CreateAdd(b.CreateAdd(bits, last_bit), c(base_bias)),
                       c(~(last_bit_mask - 1)));
  }
  if (exponent_bits < kExponent) {
    const U sign_mask = U{1} << (kMantissa + kExponent);
    const U exponent_mask = ((U{1} << kExponent) - 1) << kMantissa;
    const int64_t bias = (int64_t{1} << (kExponent - 1)) - 1;
    const int64_t reduced_bias = (int64_t{1} << (exponent_bits - 1)) - 1;
    const U max_exponent = static_cast<U>(bias + reduced_bias) << kMantissa;
    const U min_exponent = static_cast<U>(bias - reduced_bias) << kMantissa;
    llvm::Value* exponent = b.CreateAnd(bits, c(exponent_mask));
    llvm::Value* sign = b.CreateAnd(bits, c(sign_mask));
    bits = b.CreateSelect(
        b.CreateICmpUGT(exponent, c(max_exponent)),
        b.CreateOr(sign, c(exponent_mask)),
        b.CreateSelect(b.CreateICmpULE(exponent, c(min_exponent)), sign, bits));
  }
  return bits;
}

}  // namespace

llvm::Value* EmitToBits(llvm::IRBuilderBase& b, PrimitiveType type,
                        llvm::Value* value) {
  switch (type) {
    case PrimitiveType::kPred:
      return b.CreateZExt(value, b.getInt8Ty());
    case PrimitiveType::kF32:
      return b.CreateBitCast(value, b.getInt32Ty());
    case PrimitiveType::kF64:
      return b.CreateBitCast(value, b.getInt64Ty());
    case PrimitiveType::kC64:
    case PrimitiveType::kC128: {
      const PrimitiveType part = ComplexComponentType(type);
      const int half = BitWidth(part);
      llvm::Type* wide = b.getIntNTy(2 * half);
      llvm::Value* re = b.CreateZExt(
          EmitToBits(b, part, b.CreateExtractValue(value, {0})), wide);
      llvm::Value* im = b.CreateZExt(
          EmitToBits(b, part, b.CreateExtractValue(value, {1})), wide);
      return b.CreateOr(re, b.CreateShl(im, half));
    }
    default:
      return value;  // integers and narrow floats are their bits
  }
}

llvm::Value* EmitFromBits(llvm::IRBuilderBase& b, PrimitiveType type,
                          llvm::Value* bits) {
  switch (type) {
    case PrimitiveType::kPred:
      return b.CreateICmpNE(bits, llvm::ConstantInt::get(bits->getType(), 0));
    case PrimitiveType::kF32:
    case PrimitiveType::kF64:
      return b.CreateBitCast(bits, ValueType(type, b.getContext()));
    case PrimitiveType::kC64:
    case PrimitiveType::kC128: {
      const PrimitiveType part = ComplexComponentType(type);
      const int half = BitWidth(part);
      llvm::Type* half_type = b.getIntNTy(half);
      llvm::Value* re = EmitFromBits(b, part, b.CreateTrunc(bits, half_type));
      llvm::Value* im = EmitFromBits(
          b, part, b.CreateTrunc(b.CreateLShr(bits, half), half_type));
      return EmitMakeComplex(b, type, re, im);
    }
    default:
      return bits;
  }
}

llvm::Value* EmitReducePrecision(llvm::IRBuilderBase& b, PrimitiveType type,
                                 llvm::Value* value, int64_t exponent_bits,
                                 int64_t mantissa_bits) {
  // A NaN stays the same NaN (mantissa_bits 0 included), as XLA:CPU keeps it.
  const int e = static_cast<int>(exponent_bits);
  if (type == PrimitiveType::kF64) {
    const int m = static_cast<int>(mantissa_bits);
    llvm::Value* bits = EmitReduceBits<uint64_t, 52, 11>(
        b, b.CreateBitCast(value, b.getInt64Ty()), e, m);
    return b.CreateSelect(b.CreateFCmpUNO(value, value), value,
                          b.CreateBitCast(bits, b.getDoubleTy()));
  }
  // f16, and the f8/f4 types XLA:CPU computes in f16, reduce on f16's bits
  // (exact for them), so f16 subnormals round at their fixed position and
  // exponent_bits >= 5 leaves the exponent alone.
  const FloatFormat* format = GetFloatFormat(type);
  if (type == PrimitiveType::kF16 ||
      (format != nullptr && format->total_bits() <= 8 &&
       type != PrimitiveType::kF8E8M0FNU)) {
    const int m = static_cast<int>(std::min<int64_t>(mantissa_bits, 10));
    llvm::Value* x = EmitToComputeFloat(b, type, value);
    llvm::Value* half = type == PrimitiveType::kF16
                            ? value
                            : EmitEncodeFromF32(b, PrimitiveType::kF16, x);
    llvm::Value* bits = EmitReduceBits<uint16_t, 10, 5>(b, half, e, m);
    llvm::Value* reduced =
        b.CreateSelect(b.CreateFCmpUNO(x, x), x,
                       EmitDecodeToF32(b, PrimitiveType::kF16, bits));
    return EmitFromComputeFloat(b, type, reduced);
  }
  // bf16 and f8e8m0fnu reduce in f32 (mantissa at most 23) and round back.
  const int m = static_cast<int>(std::min<int64_t>(mantissa_bits, 23));
  llvm::Value* x = EmitToComputeFloat(b, type, value);
  llvm::Value* bits = EmitReduceBits<uint32_t, 23, 8>(
      b, b.CreateBitCast(x, b.getInt32Ty()), e, m);
  llvm::Value* reduced = b.CreateSelect(b.CreateFCmpUNO(x, x), x,
                                        b.CreateBitCast(bits, b.getFloatTy()));
  return EmitFromComputeFloat(b, type, reduced);
}

absl::StatusOr<llvm::Value*> EmitStochasticConvert(
    llvm::IRBuilderBase& b, PrimitiveType from, PrimitiveType random_type,
    PrimitiveType to, llvm::Value* value, llvm::Value* random) {
  if (!IsSignedInteger(to) || !IsFloatingPoint(from)) {
    return absl::UnimplementedError(
        "stochastic-convert is defined from floats to signed integers");
  }
  llvm::Type* f64 = b.getDoubleTy();
  auto d = [&](double v) { return llvm::ConstantFP::get(f64, v); };
  const int random_bits = BitWidth(random_type);
  const int to_bits = BitWidth(to);
  const double scale = std::ldexp(1.0, random_bits);
  const double random_max = std::ldexp(1.0, random_bits) - 1;
  // -2^(N-1) and 2^(N-1) - 1, computed without signed overflow at N = 64.
  const uint64_t top = uint64_t{1} << (to_bits - 1);
  const int64_t min = static_cast<int64_t>(~(top - 1));
  const int64_t max = static_cast<int64_t>(top - 1);
  llvm::Type* i64 = b.getInt64Ty();

  llvm::Value* x = b.CreateFPExt(EmitToComputeFloat(b, from, value), f64);
  llvm::Value* a = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  llvm::Value* whole = b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, a);
  // The fraction in fixed point, truncated and saturated to the random
  // type's range.
  llvm::Value* fixed = b.CreateUnaryIntrinsic(
      llvm::Intrinsic::trunc, b.CreateFMul(b.CreateFSub(a, whole), d(scale)));
  fixed = b.CreateSelect(b.CreateFCmpOLT(d(random_max), fixed), d(random_max),
                         fixed);
  llvm::Value* r = b.CreateUIToFP(b.CreateZExt(random, i64), f64);
  // Inside (min, max) `whole` fits in int64.
  llvm::Value* v = b.CreateFPToSI(whole, i64);
  v = b.CreateAdd(v, b.CreateZExt(b.CreateFCmpOLT(r, fixed), i64));
  v = b.CreateSelect(b.CreateFCmpOLT(x, d(0)), b.CreateNeg(v), v);
  v = b.CreateSelect(b.CreateFCmpOGE(x, d(static_cast<double>(max))),
                     llvm::ConstantInt::get(i64, max), v);
  v = b.CreateSelect(b.CreateFCmpOLE(x, d(static_cast<double>(min))),
                     llvm::ConstantInt::get(i64, min, true), v);
  v = b.CreateSelect(b.CreateFCmpUNO(x, x), llvm::ConstantInt::get(i64, 0), v);
  return b.CreateTrunc(v, b.getIntNTy(to_bits));
}

}  // namespace xlite::codegen
