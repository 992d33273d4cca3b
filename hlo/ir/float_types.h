#ifndef XLITE_HLO_IR_FLOAT_TYPES_H_
#define XLITE_HLO_IR_FLOAT_TYPES_H_

#include <cstdint>

#include "hlo/ir/primitive_type.h"

namespace xlite {

/// How a binary floating point format encodes NaN.
enum class NanEncoding {
  kIeee,          // exponent all ones, mantissa non-zero (inf: mantissa 0)
  kAllOnes,       // "fn": only S.1111.111 is NaN; no infinity
  kNegativeZero,  // "fnuz": only the negative-zero pattern 0x80 is NaN
  kNone,          // no NaN at all (f4e2m1fn)
};

/// Bit layout of a floating point type with at most 16 bits (plus f32/f64
/// for uniformity). Values follow ml_dtypes, the reference XLA uses.
struct FloatFormat {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  bool has_sign;  // false for f8e8m0fnu
  bool has_infinity;
  NanEncoding nan;
  bool has_subnormals;  // false for f8e8m0fnu (exponent 0 is 2^-127)
  bool has_zero;        // false for f8e8m0fnu

  int total_bits() const {
    return (has_sign ? 1 : 0) + exponent_bits + mantissa_bits;
  }
};

/// The format of a floating point primitive type (f16, bf16, f32, f64 and
/// every f8/f4 type). Returns nullptr for other types.
const FloatFormat* GetFloatFormat(PrimitiveType type);

/// The value of the bit pattern `bits` of floating point `type`, exactly
/// (every f16/bf16/f8/f4 value is an f32 value). NaN bit patterns follow
/// ml_dtypes/numpy: f16 and bf16 keep their payload, the f8 types give the
/// canonical quiet NaN with the pattern's sign (fnuz NaN is negative).
float DecodeToF32(PrimitiveType type, uint64_t bits);
double DecodeToF64(PrimitiveType type, uint64_t bits);

/// Rounds to nearest-even in `type` and returns the bit pattern, bit-exact
/// with ml_dtypes (numpy for f16): overflow and infinity go to infinity where
/// the type has one, else to NaN ("fn"/"fnuz"/f8e8m0fnu) or to the largest
/// finite value (f4e2m1fn, which has no NaN either). f8e8m0fnu rounds ties
/// up, maps zero and negatives to NaN and tiny values to 2^-127.
uint64_t EncodeFromF32(PrimitiveType type, float value);
uint64_t EncodeFromF64(PrimitiveType type, double value);

/// What XLA:CPU's `convert` op gives from f64 (EncodeFromF64 is the literal
/// rounding, ml_dtypes'): f16 and bf16 round through f32 (twice), the f8
/// and f4 types round once, directly from f64 (f8e8m0fnu takes a positive
/// value below 2^-126 as its f32 value). f32 and f64 as EncodeFromF64.
uint64_t ConvertFromF64(PrimitiveType type, double value);

/// An elementwise operation's f32 result stored as `type`: XLA:CPU
/// computes the f8 types but f8e8m0fnu, and f4e2m1fn, in f16, so their
/// results round to f16 first and then to the type (twice); every other
/// type rounds once, as EncodeFromF32.
uint64_t EncodeOpResultFromF32(PrimitiveType type, float value);

/// True for the types XLA:CPU computes in f16 (above).
bool ComputesInF16(PrimitiveType type);

/// The hot path of literals: f32 <-> f16 / bf16.
inline float HalfToFloat(uint16_t bits) {
  return DecodeToF32(PrimitiveType::kF16, bits);
}
inline uint16_t FloatToHalf(float value) {
  return static_cast<uint16_t>(EncodeFromF32(PrimitiveType::kF16, value));
}
float BFloat16ToFloat(uint16_t bits);
uint16_t FloatToBFloat16(float value);

}  // namespace xlite

#endif  // XLITE_HLO_IR_FLOAT_TYPES_H_
