#include "hlo/ir/float_types.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace xlite {
namespace {

constexpr FloatFormat kF16{5,    10,  15, true, true, NanEncoding::kIeee,
                           true, true};
constexpr FloatFormat kBF16{8,    7,   127, true, true, NanEncoding::kIeee,
                            true, true};
constexpr FloatFormat kF32{8,    23,  127, true, true, NanEncoding::kIeee,
                           true, true};
constexpr FloatFormat kF64{11,   52,  1023, true, true, NanEncoding::kIeee,
                           true, true};
constexpr FloatFormat kF8E5M2{5,    2,   15, true, true, NanEncoding::kIeee,
                              true, true};
constexpr FloatFormat kF8E4M3{4,    3,   7, true, true, NanEncoding::kIeee,
                              true, true};
constexpr FloatFormat kF8E3M4{3,    4,   3, true, true, NanEncoding::kIeee,
                              true, true};
constexpr FloatFormat kF8E4M3FN{
    4, 3, 7, true, false, NanEncoding::kAllOnes, true, true};
constexpr FloatFormat kF8E4M3B11FNUZ{
    4, 3, 11, true, false, NanEncoding::kNegativeZero, true, true};
constexpr FloatFormat kF8E5M2FNUZ{
    5, 2, 16, true, false, NanEncoding::kNegativeZero, true, true};
constexpr FloatFormat kF8E4M3FNUZ{
    4, 3, 8, true, false, NanEncoding::kNegativeZero, true, true};
constexpr FloatFormat kF8E8M0FNU{
    8, 0, 127, false, false, NanEncoding::kAllOnes, false, false};
constexpr FloatFormat kF4E2M1FN{2,    1,   1, true, false, NanEncoding::kNone,
                                true, true};

uint64_t SignBit(const FloatFormat& f) {
  return f.has_sign ? uint64_t{1} << (f.exponent_bits + f.mantissa_bits) : 0;
}

uint64_t ExponentMax(const FloatFormat& f) {
  return (uint64_t{1} << f.exponent_bits) - 1;
}

uint64_t MagnitudeMask(const FloatFormat& f) {
  return (uint64_t{1} << (f.exponent_bits + f.mantissa_bits)) - 1;
}

// The canonical NaN pattern ml_dtypes produces for a NaN input of the given
// sign. Types without NaN (f4e2m1fn) give a zero of the opposite sign, as
// ml_dtypes does.
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

// Largest finite magnitude as a bit pattern (sign bit clear).
uint64_t MaxFiniteBits(const FloatFormat& f) {
  switch (f.nan) {
    case NanEncoding::kIeee:
      return ((ExponentMax(f) - 1) << f.mantissa_bits) |
             ((uint64_t{1} << f.mantissa_bits) - 1);
    case NanEncoding::kAllOnes:
      return MagnitudeMask(f) - 1;
    case NanEncoding::kNegativeZero:
    case NanEncoding::kNone:
      return MagnitudeMask(f);
  }
  return MagnitudeMask(f);
}

bool IsNanPattern(const FloatFormat& f, uint64_t bits) {
  const uint64_t magnitude = bits & MagnitudeMask(f);
  const uint64_t exponent = magnitude >> f.mantissa_bits;
  const uint64_t mantissa = magnitude & ((uint64_t{1} << f.mantissa_bits) - 1);
  switch (f.nan) {
    case NanEncoding::kIeee:
      return exponent == ExponentMax(f) && mantissa != 0;
    case NanEncoding::kAllOnes:
      return magnitude == MagnitudeMask(f);
    case NanEncoding::kNegativeZero:
      return bits == SignBit(f);
    case NanEncoding::kNone:
      return false;
  }
  return false;
}

// Value of a non-NaN pattern.
double DecodeFinite(const FloatFormat& f, uint64_t bits) {
  const int mb = f.mantissa_bits;
  const double sign = (bits & SignBit(f)) != 0 ? -1.0 : 1.0;
  const uint64_t exponent = (bits >> mb) & ExponentMax(f);
  const uint64_t mantissa = bits & ((uint64_t{1} << mb) - 1);
  if (f.has_infinity && exponent == ExponentMax(f)) {
    return sign * std::numeric_limits<double>::infinity();
  }
  if (!f.has_subnormals) {
    return sign *
           std::ldexp(static_cast<double>((uint64_t{1} << mb) | mantissa),
                      static_cast<int>(exponent) - f.bias - mb);
  }
  if (exponent == 0) {
    return sign * std::ldexp(static_cast<double>(mantissa), 1 - f.bias - mb);
  }
  return sign * std::ldexp(static_cast<double>((uint64_t{1} << mb) | mantissa),
                           static_cast<int>(exponent) - f.bias - mb);
}

float F32FromBits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

uint32_t BitsFromF32(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

double F64FromBits(uint64_t b) {
  double d;
  std::memcpy(&d, &b, sizeof d);
  return d;
}

uint64_t BitsFromF64(double d) {
  uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

// Round-to-nearest-even of a finite, non-NaN value into format `f`, with the
// ml_dtypes rules for overflow, zero and signs. `value` is exact (an f32 or
// f64), so this rounds exactly once.
uint64_t EncodeFinite(const FloatFormat& f, double value) {
  const int mb = f.mantissa_bits;
  const bool negative = std::signbit(value);
  const uint64_t sign = negative ? SignBit(f) : 0;
  const uint64_t max_finite = MaxFiniteBits(f);
  const uint64_t overflow = f.has_infinity ? (sign | (ExponentMax(f) << mb))
                            : f.nan == NanEncoding::kNone
                                ? (sign | max_finite)
                                : NanBits(f, negative);
  if (!f.has_zero && (negative || value == 0)) return NanBits(f, false);
  if (std::isinf(value)) return overflow;
  const double magnitude = std::fabs(value);
  if (magnitude == 0) {
    // fnuz types have no negative zero: that pattern is their NaN.
    return f.nan == NanEncoding::kNegativeZero ? 0 : sign;
  }
  // Write the magnitude as a fixed-point number whose integer part is the
  // candidate bit pattern (biased exponent above the mantissa) and whose
  // fraction decides the rounding.
  int e2;
  std::frexp(magnitude, &e2);  // magnitude = m * 2^e2 with m in [0.5, 1)
  const int exponent = e2 - 1;
  const int min_exponent = f.has_subnormals ? 1 - f.bias : -f.bias;
  // Split the magnitude into the candidate bit pattern (biased exponent above
  // the mantissa) and the fraction below it. Both parts are exact: scaling
  // by a power of two and taking a floor never round.
  uint64_t bits;
  double fraction;
  if (exponent >= min_exponent) {
    const double scaled =
        std::ldexp(magnitude, mb - exponent);  // [2^mb, 2^(mb+1))
    const double whole = std::floor(scaled);
    fraction = scaled - whole;
    bits = (static_cast<uint64_t>(exponent + f.bias) << mb) +
           (static_cast<uint64_t>(whole) - (uint64_t{1} << mb));
  } else if (f.has_subnormals) {
    const double scaled = std::ldexp(magnitude, mb - min_exponent);  // < 2^mb
    const double whole = std::floor(scaled);
    fraction = scaled - whole;
    bits = static_cast<uint64_t>(whole);
  } else {
    return sign;  // below 2^-bias without subnormals: the smallest value
  }
  // Ties go to the even pattern; with no mantissa bits (f8e8m0fnu) ml_dtypes
  // rounds ties up.
  if (fraction > 0.5 || (fraction == 0.5 && (mb == 0 || (bits & 1) != 0))) {
    ++bits;
  }
  if (bits > max_finite) return overflow;
  if (bits == 0 && f.nan == NanEncoding::kNegativeZero) return 0;
  return sign | bits;
}

// f8e8m0fnu (2^(bits - 127); 0xFF NaN) from and to f32 and to f64 on the
// bits alone: its 2^-127 is an f32 subnormal, which float arithmetic would
// read as zero on a thread that flushes denormals (hlo/ir/denormal_mode.h),
// where XLA:CPU's conversions keep it.
float E8M0ToF32(uint64_t bits) {
  const uint32_t e = bits & 0xFF;
  if (e == 0xFF) return F32FromBits(0x7FC00000u);
  return F32FromBits(e == 0 ? 0x00400000u : e << 23);
}

double E8M0ToF64(uint64_t bits) {
  const uint64_t e = bits & 0xFF;
  if (e == 0xFF) return F64FromBits(0x7FF8000000000000u);
  return F64FromBits((e + 1023 - 127) << 52);
}

// EncodeFinite's rounding (ties up), zero and negatives to NaN, and
// ml_dtypes' quirk for f32 subnormals: above 2^-127 they round up to
// 2^-126, the others down to 2^-127.
uint64_t E8M0FromF32(float value) {
  const uint32_t b = BitsFromF32(value);
  const uint32_t e = (b >> 23) & 0xFF;
  const uint32_t m = b & 0x7FFFFFu;
  if ((b >> 31) != 0 || e == 0xFF) return 0xFF;  // negative, inf, NaN
  if (e == 0) return m == 0 ? 0xFF : (m > 0x400000u ? 1 : 0);
  const uint32_t rounded = e + (m >= 0x400000u ? 1 : 0);
  return rounded > 0xFE ? 0xFF : rounded;
}

// numpy's f16 NaN conversion: keep the top payload bits, stay a NaN.
uint64_t HalfNanFromPayload(bool negative, uint64_t top_payload) {
  uint64_t bits = 0x7C00u + top_payload;
  if (bits == 0x7C00u) ++bits;
  return (negative ? 0x8000u : 0) | bits;
}

}  // namespace

const FloatFormat* GetFloatFormat(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kF16:
      return &kF16;
    case PrimitiveType::kBF16:
      return &kBF16;
    case PrimitiveType::kF32:
      return &kF32;
    case PrimitiveType::kF64:
      return &kF64;
    case PrimitiveType::kF8E5M2:
      return &kF8E5M2;
    case PrimitiveType::kF8E4M3:
      return &kF8E4M3;
    case PrimitiveType::kF8E3M4:
      return &kF8E3M4;
    case PrimitiveType::kF8E4M3FN:
      return &kF8E4M3FN;
    case PrimitiveType::kF8E4M3B11FNUZ:
      return &kF8E4M3B11FNUZ;
    case PrimitiveType::kF8E5M2FNUZ:
      return &kF8E5M2FNUZ;
    case PrimitiveType::kF8E4M3FNUZ:
      return &kF8E4M3FNUZ;
    case PrimitiveType::kF8E8M0FNU:
      return &kF8E8M0FNU;
    case PrimitiveType::kF4E2M1FN:
      return &kF4E2M1FN;
    default:
      return nullptr;
  }
}

float DecodeToF32(PrimitiveType type, uint64_t bits) {
  switch (type) {
    case PrimitiveType::kF32:
      return F32FromBits(static_cast<uint32_t>(bits));
    case PrimitiveType::kF64:
      return static_cast<float>(F64FromBits(bits));
    case PrimitiveType::kBF16:
      return F32FromBits(static_cast<uint32_t>(bits & 0xFFFF) << 16);
    case PrimitiveType::kF8E8M0FNU:
      return E8M0ToF32(bits);
    case PrimitiveType::kF16:
      if (IsNanPattern(kF16, bits)) {
        return F32FromBits(((bits & 0x8000u) << 16) | 0x7F800000u |
                           ((bits & 0x3FFu) << 13));
      }
      return static_cast<float>(DecodeFinite(kF16, bits));
    default:
      break;
  }
  const FloatFormat* f = GetFloatFormat(type);
  if (f == nullptr) return std::numeric_limits<float>::quiet_NaN();
  if (IsNanPattern(*f, bits)) {
    const bool negative = (bits & SignBit(*f)) != 0;
    return F32FromBits(negative ? 0xFFC00000u : 0x7FC00000u);
  }
  return static_cast<float>(DecodeFinite(*f, bits));
}

double DecodeToF64(PrimitiveType type, uint64_t bits) {
  switch (type) {
    case PrimitiveType::kF64:
      return F64FromBits(bits);
    case PrimitiveType::kF8E8M0FNU:
      return E8M0ToF64(bits);
    case PrimitiveType::kF16:
      if (IsNanPattern(kF16, bits)) {
        return F64FromBits(((bits & 0x8000u) << 48) | 0x7FF0000000000000u |
                           ((bits & 0x3FFu) << 42));
      }
      return DecodeFinite(kF16, bits);
    default:
      // Every other type widens through f32 exactly (NaN quieted by the
      // f32 -> f64 conversion, as in numpy).
      return static_cast<double>(DecodeToF32(type, bits));
  }
}

uint64_t EncodeFromF32(PrimitiveType type, float value) {
  switch (type) {
    case PrimitiveType::kF32:
      return BitsFromF32(value);
    case PrimitiveType::kF64:
      return BitsFromF64(static_cast<double>(value));
    case PrimitiveType::kBF16:
      return FloatToBFloat16(value);
    case PrimitiveType::kF16:
      if (std::isnan(value)) {
        uint32_t b = BitsFromF32(value);
        return HalfNanFromPayload((b >> 31) != 0, (b & 0x7FFFFFu) >> 13);
      }
      return EncodeFinite(kF16, value);
    default:
      break;
  }
  if (type == PrimitiveType::kF8E8M0FNU) return E8M0FromF32(value);
  const FloatFormat* f = GetFloatFormat(type);
  if (f == nullptr) return 0;
  if (std::isnan(value)) return NanBits(*f, std::signbit(value));
  return EncodeFinite(*f, value);
}

uint64_t EncodeFromF64(PrimitiveType type, double value) {
  switch (type) {
    case PrimitiveType::kF64:
      return BitsFromF64(value);
    case PrimitiveType::kF32:
      return BitsFromF32(static_cast<float>(value));
    case PrimitiveType::kF16:
      // numpy rounds f64 to f16 directly, once.
      if (std::isnan(value)) {
        uint64_t b = BitsFromF64(value);
        return HalfNanFromPayload((b >> 63) != 0,
                                  (b & 0xFFFFFFFFFFFFFull) >> 42);
      }
      return EncodeFinite(kF16, value);
    default:
      // ml_dtypes narrows f64 through f32: two roundings, kept for
      // bit-compatibility with XLA's literals.
      return EncodeFromF32(type, static_cast<float>(value));
  }
}

uint64_t ConvertFromF64(PrimitiveType type, double value) {
  if (type == PrimitiveType::kF16 || type == PrimitiveType::kBF16) {
    return EncodeFromF32(type, static_cast<float>(value));
  }
  const FloatFormat* f = GetFloatFormat(type);
  if (f == nullptr || type == PrimitiveType::kF32 ||
      type == PrimitiveType::kF64) {
    return EncodeFromF64(type, value);
  }
  if (std::isnan(value)) return NanBits(*f, std::signbit(value));
  if (type == PrimitiveType::kF8E8M0FNU && value > 0 &&
      value < std::numeric_limits<float>::min()) {
    // As its f32 value (E8M0FromF32), without computing that subnormal,
    // which a thread that flushes denormals would lose: up to 2^-126 when
    // it rounds above 2^-127, to NaN when it rounds to zero.
    return value > 0x1p-127 + 0x1p-150 ? 1 : value > 0x1p-150 ? 0 : 0xFF;
  }
  return EncodeFinite(*f, value);
}

bool ComputesInF16(PrimitiveType type) {
  return IsFloatingPoint(type) && BitWidth(type) <= 8 &&
         type != PrimitiveType::kF8E8M0FNU;
}

uint64_t EncodeOpResultFromF32(PrimitiveType type, float value) {
  if (ComputesInF16(type)) value = HalfToFloat(FloatToHalf(value));
  return EncodeFromF32(type, value);
}

float BFloat16ToFloat(uint16_t bits) {
  return F32FromBits(static_cast<uint32_t>(bits) << 16);
}

uint16_t FloatToBFloat16(float value) {
  uint32_t b = BitsFromF32(value);
  if (std::isnan(value)) {
    return static_cast<uint16_t>(((b >> 16) & 0x8000u) | 0x7FC0u);
  }
  const uint32_t rounding = 0x7FFFu + ((b >> 16) & 1u);
  return static_cast<uint16_t>((b + rounding) >> 16);
}

}  // namespace xlite
