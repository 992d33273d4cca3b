// Narrow float <-> f32/f64 in IR, mirroring hlo/ir/float_types.cc step by
// step (the comments name the steps there). Everything is branch-free
// integer arithmetic and selects, so it vectorizes and runs on any target.

#include "codegen/float_codec.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "hlo/ir/float_types.h"

namespace xlite::codegen {
namespace {

// Facts about a format, as float_types.cc computes them.
uint64_t SignBit(const FloatFormat& f) {
  return f.has_sign ? uint64_t{1} << (f.exponent_bits + f.mantissa_bits) : 0;
}
uint64_t ExponentMax(const FloatFormat& f) {
  return (uint64_t{1} << f.exponent_bits) - 1;
}
uint64_t MagnitudeMask(const FloatFormat& f) {
  return (uint64_t{1} << (f.exponent_bits + f.mantissa_bits)) - 1;
}
uint64_t MantissaMask(const FloatFormat& f) {
  return (uint64_t{1} << f.mantissa_bits) - 1;
}
uint64_t NanBits(const FloatFormat& f, bool negative) {
  switch (f.nan) {
    case NanEncoding::kIeee:
      return (negative ? SignBit(f) : 0) | (ExponentMax(f) << f.mantissa_bits) |
             (uint64_t{1} << (f.mantissa_bits - 1));
    case NanEncoding::kAllOnes:
      return (negative ? SignBit(f) : 0) | MagnitudeMask(f);
    case NanEncoding::kNegativeZero:
      return SignBit(f);
    case NanEncoding::kNone:
      return negative ? 0 : SignBit(f);
  }
  return 0;
}
uint64_t MaxFiniteBits(const FloatFormat& f) {
  switch (f.nan) {
    case NanEncoding::kIeee:
      return ((ExponentMax(f) - 1) << f.mantissa_bits) | MantissaMask(f);
    case NanEncoding::kAllOnes:
      return MagnitudeMask(f) - 1;
    default:
      return MagnitudeMask(f);
  }
}

// The binary format a value is encoded from: f32 or f64.
struct Source {
  llvm::IntegerType* int_type;
  int mantissa_bits;
  int bias;
  int width;
};

Source SourceOf(llvm::IRBuilderBase& b, llvm::Type* type) {
  if (type->isDoubleTy()) return {b.getInt64Ty(), 52, 1023, 64};
  return {b.getInt32Ty(), 23, 127, 32};
}

uint32_t F32Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

llvm::Value* EmitBFloat16Encode(llvm::IRBuilderBase& b, llvm::Value* value) {
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Value* u = b.CreateBitCast(value, i32);
  llvm::Value* high = b.CreateLShr(u, 16);
  // NaN: sign | 0x7FC0.
  llvm::Value* nan = b.CreateOr(b.CreateAnd(high, 0x8000), 0x7FC0);
  // b + 0x7FFF + ((b >> 16) & 1), top half.
  llvm::Value* rounding = b.CreateAdd(b.getInt32(0x7FFF), b.CreateAnd(high, 1));
  llvm::Value* rounded = b.CreateLShr(b.CreateAdd(u, rounding), 16);
  llvm::Value* is_nan = b.CreateFCmpUNO(value, value);
  return b.CreateTrunc(b.CreateSelect(is_nan, nan, rounded), b.getInt16Ty());
}

// HalfNanFromPayload: the top 10 payload bits, kept a NaN.
llvm::Value* EmitHalfNan(llvm::IRBuilderBase& b, const Source& src,
                         llvm::Value* u, llvm::Value* negative) {
  llvm::IntegerType* it = src.int_type;
  llvm::Value* payload = b.CreateAnd(
      u, llvm::ConstantInt::get(it, (uint64_t{1} << src.mantissa_bits) - 1));
  llvm::Value* top = b.CreateLShr(payload, src.mantissa_bits - 10);
  llvm::Value* bits = b.CreateAdd(top, llvm::ConstantInt::get(it, 0x7C00));
  bits =
      b.CreateSelect(b.CreateICmpEQ(bits, llvm::ConstantInt::get(it, 0x7C00)),
                     llvm::ConstantInt::get(it, 0x7C01), bits);
  return b.CreateOr(bits,
                    b.CreateSelect(negative, llvm::ConstantInt::get(it, 0x8000),
                                   llvm::ConstantInt::get(it, 0)));
}

// EncodeFinite's rounding of a finite non-zero magnitude `abs` (the source
// bits without sign): the candidate pattern plus one when the discarded
// fraction is above half, or half and the pattern is odd (ties up without
// mantissa bits), before the overflow check.
llvm::Value* EmitRoundedMagnitude(llvm::IRBuilderBase& b, const FloatFormat& f,
                                  const Source& src, llvm::Value* abs) {
  llvm::IntegerType* it = src.int_type;
  auto c = [&](int64_t v) { return llvm::ConstantInt::get(it, v, true); };
  const int mb = f.mantissa_bits;
  llvm::Value* exponent_field = b.CreateLShr(abs, src.mantissa_bits);
  llvm::Value* mantissa =
      b.CreateAnd(abs, c((int64_t{1} << src.mantissa_bits) - 1));
  llvm::Value* source_subnormal = b.CreateICmpEQ(exponent_field, c(0));
  llvm::Value* significand =
      b.CreateSelect(source_subnormal, mantissa,
                     b.CreateOr(mantissa, c(int64_t{1} << src.mantissa_bits)));
  llvm::Value* exponent = b.CreateSub(
      b.CreateSelect(source_subnormal, c(1), exponent_field), c(src.bias));
  const int min_exponent = f.has_subnormals ? 1 - f.bias : -f.bias;

  // exponent >= min_exponent: biased exponent above the top mantissa bits.
  const int shift = src.mantissa_bits - mb;
  llvm::Value* normal_whole =
      b.CreateOr(b.CreateShl(b.CreateAdd(exponent, c(f.bias)), mb),
                 b.CreateLShr(mantissa, shift));
  llvm::Value* normal_rest =
      b.CreateAnd(mantissa, c((int64_t{1} << shift) - 1));
  llvm::Value* normal_half = c(int64_t{1} << (shift - 1));

  // Below: a subnormal of the target, the significand shifted further
  // (clamped so the shift stays defined; by then everything is fraction
  // below one half).
  llvm::Value* s =
      b.CreateSub(c(src.mantissa_bits - mb + min_exponent), exponent);
  s = b.CreateSelect(b.CreateICmpSLT(s, c(1)), c(1), s);
  s = b.CreateSelect(b.CreateICmpSGT(s, c(src.width - 1)), c(src.width - 1), s);
  llvm::Value* sub_whole = b.CreateLShr(significand, s);
  llvm::Value* sub_rest =
      b.CreateAnd(significand, b.CreateSub(b.CreateShl(c(1), s), c(1)));
  llvm::Value* sub_half = b.CreateShl(c(1), b.CreateSub(s, c(1)));
  if (!f.has_subnormals) {
    // "below 2^-bias without subnormals": zero bits (the caller adds the
    // sign); only f32 subnormals get here and the caller handles them.
    sub_whole = c(0);
    sub_rest = c(0);
  }

  llvm::Value* normal = b.CreateICmpSGE(exponent, c(min_exponent));
  llvm::Value* whole = b.CreateSelect(normal, normal_whole, sub_whole);
  llvm::Value* rest = b.CreateSelect(normal, normal_rest, sub_rest);
  llvm::Value* half = b.CreateSelect(normal, normal_half, sub_half);
  llvm::Value* tie_up =
      mb == 0 ? b.getTrue() : b.CreateTrunc(whole, b.getInt1Ty());
  llvm::Value* round_up =
      b.CreateOr(b.CreateICmpUGT(rest, half),
                 b.CreateAnd(b.CreateICmpEQ(rest, half), tie_up));
  return b.CreateAdd(whole, b.CreateZExt(round_up, it));
}

// EncodeFromF32 / EncodeFromF64 for every narrow type but bf16, as bits in
// the source's integer type.
llvm::Value* EmitEncode(llvm::IRBuilderBase& b, PrimitiveType type,
                        llvm::Value* value) {
  const FloatFormat& f = *GetFloatFormat(type);
  const Source src = SourceOf(b, value->getType());
  llvm::IntegerType* it = src.int_type;
  auto c = [&](uint64_t v) { return llvm::ConstantInt::get(it, v); };
  const uint64_t source_sign = uint64_t{1} << (src.width - 1);
  const uint64_t source_inf =
      ((uint64_t{1} << (src.width - 1 - src.mantissa_bits)) - 1)
      << src.mantissa_bits;

  llvm::Value* u = b.CreateBitCast(value, it);
  llvm::Value* negative = b.CreateICmpSLT(u, c(0));
  llvm::Value* abs = b.CreateAnd(u, c(source_sign - 1));
  llvm::Value* is_nan = b.CreateICmpUGT(abs, c(source_inf));
  llvm::Value* is_inf = b.CreateICmpEQ(abs, c(source_inf));
  llvm::Value* is_zero = b.CreateICmpEQ(abs, c(0));
  llvm::Value* sign = b.CreateSelect(negative, c(SignBit(f)), c(0));
  auto nan_bits = [&](llvm::Value* neg) {
    return b.CreateSelect(neg, c(NanBits(f, true)), c(NanBits(f, false)));
  };

  // EncodeFinite.
  llvm::Value* overflow;
  if (f.has_infinity) {
    overflow = b.CreateOr(sign, c(ExponentMax(f) << f.mantissa_bits));
  } else if (f.nan == NanEncoding::kNone) {
    overflow = b.CreateOr(sign, c(MaxFiniteBits(f)));
  } else {
    overflow = nan_bits(negative);
  }
  const bool fnuz = f.nan == NanEncoding::kNegativeZero;
  llvm::Value* bits = EmitRoundedMagnitude(b, f, src, abs);
  llvm::Value* result = b.CreateOr(sign, bits);
  if (fnuz) result = b.CreateSelect(b.CreateICmpEQ(bits, c(0)), c(0), result);
  result = b.CreateSelect(b.CreateICmpUGT(bits, c(MaxFiniteBits(f))), overflow,
                          result);
  result = b.CreateSelect(is_zero, fnuz ? c(0) : sign, result);
  result = b.CreateSelect(is_inf, overflow, result);
  if (!f.has_zero) {
    result = b.CreateSelect(b.CreateOr(negative, is_zero), c(NanBits(f, false)),
                            result);
  }
  // EncodeFromF32's f8e8m0fnu quirk: positive f32 subnormals.
  if (type == PrimitiveType::kF8E8M0FNU && src.width == 32) {
    llvm::Value* positive_subnormal = b.CreateAnd(
        b.CreateNot(negative),
        b.CreateAnd(b.CreateNot(is_zero),
                    b.CreateICmpULT(
                        abs, c(F32Bits(std::numeric_limits<float>::min())))));
    llvm::Value* quirk = b.CreateSelect(
        b.CreateICmpUGT(abs, c(F32Bits(std::ldexp(1.0f, -127)))), c(1), c(0));
    result = b.CreateSelect(positive_subnormal, quirk, result);
  }
  llvm::Value* nan = type == PrimitiveType::kF16
                         ? EmitHalfNan(b, src, u, negative)
                         : nan_bits(negative);
  result = b.CreateSelect(is_nan, nan, result);
  return b.CreateTrunc(result, b.getIntNTy(f.total_bits()));
}

}  // namespace

llvm::Value* EmitDecodeToF32(llvm::IRBuilderBase& b, PrimitiveType type,
                             llvm::Value* bits) {
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Value* u = b.CreateZExt(bits, i32);
  if (type == PrimitiveType::kBF16) {
    return b.CreateBitCast(b.CreateShl(u, 16), b.getFloatTy());
  }
  const FloatFormat& f = *GetFloatFormat(type);
  const int mb = f.mantissa_bits;
  const int width = f.total_bits();
  llvm::Value* sign =
      f.has_sign ? b.CreateShl(b.CreateLShr(u, width - 1), 31) : b.getInt32(0);
  llvm::Value* magnitude = b.CreateAnd(u, MagnitudeMask(f));
  llvm::Value* exponent = b.CreateLShr(magnitude, mb);
  llvm::Value* mantissa = b.CreateAnd(magnitude, MantissaMask(f));
  llvm::Value* exponent_zero = b.CreateICmpEQ(exponent, b.getInt32(0));

  // Normal: rebias the exponent, align the mantissa (exact).
  llvm::Value* result = b.CreateOr(
      sign, b.CreateOr(b.CreateShl(
                           b.CreateAdd(exponent, b.getInt32(127 - f.bias)), 23),
                       b.CreateShl(mantissa, 23 - mb)));
  if (f.has_subnormals) {
    // mantissa * 2^(1 - bias - mb), exact in f32, with the sign.
    llvm::Value* scaled =
        b.CreateFMul(b.CreateUIToFP(mantissa, b.getFloatTy()),
                     llvm::ConstantFP::get(b.getFloatTy(),
                                           std::ldexp(1.0f, 1 - f.bias - mb)));
    llvm::Value* subnormal = b.CreateOr(b.CreateBitCast(scaled, i32), sign);
    result = b.CreateSelect(exponent_zero, subnormal, result);
  } else {
    // f8e8m0fnu: exponent 0 is 2^-127.
    result = b.CreateSelect(
        exponent_zero, b.getInt32(F32Bits(std::ldexp(1.0f, -127))), result);
  }
  llvm::Value* nan_bits =
      b.CreateSelect(b.CreateICmpNE(sign, b.getInt32(0)),
                     b.getInt32(0xFFC00000u), b.getInt32(0x7FC00000u));
  if (f.has_infinity) {
    llvm::Value* top = b.CreateICmpEQ(exponent, b.getInt32(ExponentMax(f)));
    llvm::Value* inf = b.CreateOr(sign, b.getInt32(0x7F800000u));
    llvm::Value* special;
    if (type == PrimitiveType::kF16) {
      // Infinity, or NaN keeping its payload.
      special = b.CreateOr(inf, b.CreateShl(mantissa, 13));
    } else {
      special = b.CreateSelect(b.CreateICmpEQ(mantissa, b.getInt32(0)), inf,
                               nan_bits);
    }
    result = b.CreateSelect(top, special, result);
  } else if (f.nan == NanEncoding::kAllOnes) {
    result =
        b.CreateSelect(b.CreateICmpEQ(magnitude, b.getInt32(MagnitudeMask(f))),
                       nan_bits, result);
  } else if (f.nan == NanEncoding::kNegativeZero) {
    result = b.CreateSelect(b.CreateICmpEQ(u, b.getInt32(SignBit(f))),
                            b.getInt32(0xFFC00000u), result);
  }
  return b.CreateBitCast(result, b.getFloatTy());
}

llvm::Value* EmitEncodeFromF32(llvm::IRBuilderBase& b, PrimitiveType type,
                               llvm::Value* value) {
  if (type == PrimitiveType::kBF16) return EmitBFloat16Encode(b, value);
  return EmitEncode(b, type, value);
}

llvm::Value* EmitEncodeFromF64(llvm::IRBuilderBase& b, PrimitiveType type,
                               llvm::Value* value) {
  if (type == PrimitiveType::kF16 || type == PrimitiveType::kBF16) {
    return EmitEncodeFromF32(b, type, b.CreateFPTrunc(value, b.getFloatTy()));
  }
  llvm::Value* once = EmitEncode(b, type, value);
  if (type != PrimitiveType::kF8E8M0FNU) return once;
  // Positive values below f32's smallest normal as their f32 value, without
  // computing that subnormal (ConvertFromF64): 1 when it rounds above
  // 2^-127, 0 when it rounds to 2^-127 or below, NaN when to zero.
  auto k = [&](double v) { return llvm::ConstantFP::get(value->getType(), v); };
  llvm::Value* tiny =
      b.CreateFCmpOLT(value, k(std::numeric_limits<float>::min()));
  llvm::Value* positive = b.CreateFCmpOGT(value, k(0.0));
  llvm::Value* as_f32 = b.CreateSelect(
      b.CreateFCmpOGT(value, k(0x1p-127 + 0x1p-150)), b.getInt8(1),
      b.CreateSelect(b.CreateFCmpOGT(value, k(0x1p-150)), b.getInt8(0),
                     b.getInt8(0xFF)));
  return b.CreateSelect(b.CreateAnd(positive, tiny), as_f32, once);
}

llvm::Value* EmitE8M0ToF64(llvm::IRBuilderBase& b, llvm::Value* bits) {
  llvm::Value* e = b.CreateZExt(bits, b.getInt64Ty());
  llvm::Value* value = b.CreateShl(b.CreateAdd(e, b.getInt64(1023 - 127)), 52);
  value = b.CreateSelect(b.CreateICmpEQ(e, b.getInt64(0xFF)),
                         b.getInt64(0x7FF8000000000000u), value);
  return b.CreateBitCast(value, b.getDoubleTy());
}

PrimitiveType ComputeFloatType(PrimitiveType type) {
  return type == PrimitiveType::kF64 || type == PrimitiveType::kC128
             ? PrimitiveType::kF64
             : PrimitiveType::kF32;
}

llvm::Value* EmitToComputeFloat(llvm::IRBuilderBase& b, PrimitiveType type,
                                llvm::Value* value) {
  if (!IsNarrowFloat(type)) return value;
  return EmitDecodeToF32(b, type, value);
}

llvm::Value* EmitFromComputeFloat(llvm::IRBuilderBase& b, PrimitiveType type,
                                  llvm::Value* value) {
  if (!IsNarrowFloat(type)) return value;
  if (ComputesInF16(type)) {
    value = EmitDecodeToF32(b, PrimitiveType::kF16,
                            EmitEncode(b, PrimitiveType::kF16, value));
  }
  return EmitEncodeFromF32(b, type, value);
}

}  // namespace xlite::codegen
