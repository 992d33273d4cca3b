#ifndef XLITE_HLO_IR_PRIMITIVE_TYPE_H_
#define XLITE_HLO_IR_PRIMITIVE_TYPE_H_

#include <cstdint>
#include <optional>

#include "absl/strings/string_view.h"

namespace xlite {

/// Element types of HLO arrays. The numeric values are XLA's
/// `PrimitiveType` proto enum values, so protos convert with a cast.
enum class PrimitiveType : int {
  kInvalid = 0,
  kPred = 1,
  kS8 = 2,
  kS16 = 3,
  kS32 = 4,
  kS64 = 5,
  kU8 = 6,
  kU16 = 7,
  kU32 = 8,
  kU64 = 9,
  kF16 = 10,
  kF32 = 11,
  kF64 = 12,
  kTuple = 13,
  kOpaque = 14,
  kC64 = 15,
  kBF16 = 16,
  kToken = 17,
  kC128 = 18,
  kF8E5M2 = 19,
  kF8E4M3FN = 20,
  kS4 = 21,
  kU4 = 22,
  kF8E4M3B11FNUZ = 23,
  kF8E5M2FNUZ = 24,
  kF8E4M3FNUZ = 25,
  kS2 = 26,
  kU2 = 27,
  kF8E4M3 = 28,
  kF8E3M4 = 29,
  kS1 = 30,
  kU1 = 31,
  kF4E2M1FN = 32,
  kF8E8M0FNU = 33,
  // A mutable buffer holding one array (XLA's BUFFER), written b(f32[32]);
  // the array shape is the shape's single "tuple" element, as in the proto.
  kBuffer = 34,
};

/// Largest enum value; loops over all types run to this inclusive.
inline constexpr int kLastPrimitiveType = 34;

/// The text spelling ("f32", "f8e4m3fn", "opaque", "token"); "tuple" for
/// kTuple and "invalid" for kInvalid, which never appear in HLO text.
absl::string_view PrimitiveTypeName(PrimitiveType type);

/// Parses a text spelling of an array, token or opaque type. Returns nullopt
/// for anything else (including "tuple", which the text never spells).
std::optional<PrimitiveType> ParsePrimitiveTypeName(absl::string_view name);

/// True for the types whose values fill arrays (everything but tuple, token,
/// opaque and invalid).
bool IsArrayType(PrimitiveType type);
bool IsFloatingPoint(PrimitiveType type);  // f16..f64 and every narrow float
bool IsNarrowFloat(PrimitiveType type);    // bf16, f16 and the f8/f4 types
bool IsComplex(PrimitiveType type);
bool IsSignedInteger(PrimitiveType type);
bool IsUnsignedInteger(PrimitiveType type);
inline bool IsInteger(PrimitiveType t) {
  return IsSignedInteger(t) || IsUnsignedInteger(t);
}
/// Floating point types without an infinity (the "fn"/"fnu"/"fnuz" types).
bool HasInfinity(PrimitiveType type);

/// Bits per element as XLA counts them (pred = 8, s4 = 4, c64 = 64).
int BitWidth(PrimitiveType type);

/// Bytes one element occupies in an unpacked Literal: sub-byte types take one
/// byte each, as in XLA's literals. 0 for tuple/token/opaque.
int StorageBytes(PrimitiveType type);

/// For complex types, the type of each component; otherwise the type itself.
PrimitiveType ComplexComponentType(PrimitiveType type);

}  // namespace xlite

#endif  // XLITE_HLO_IR_PRIMITIVE_TYPE_H_
