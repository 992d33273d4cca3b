#include "hlo/ir/primitive_type.h"

#include <array>

namespace xlite {
namespace {

struct TypeInfo {
  PrimitiveType type;
  absl::string_view name;
  int bits;
};

constexpr std::array<TypeInfo, kLastPrimitiveType + 1> kTypes = {{
    {PrimitiveType::kInvalid, "invalid", 0},
    {PrimitiveType::kPred, "pred", 8},
    {PrimitiveType::kS8, "s8", 8},
    {PrimitiveType::kS16, "s16", 16},
    {PrimitiveType::kS32, "s32", 32},
    {PrimitiveType::kS64, "s64", 64},
    {PrimitiveType::kU8, "u8", 8},
    {PrimitiveType::kU16, "u16", 16},
    {PrimitiveType::kU32, "u32", 32},
    {PrimitiveType::kU64, "u64", 64},
    {PrimitiveType::kF16, "f16", 16},
    {PrimitiveType::kF32, "f32", 32},
    {PrimitiveType::kF64, "f64", 64},
    {PrimitiveType::kTuple, "tuple", 0},
    {PrimitiveType::kOpaque, "opaque", 0},
    {PrimitiveType::kC64, "c64", 64},
    {PrimitiveType::kBF16, "bf16", 16},
    {PrimitiveType::kToken, "token", 0},
    {PrimitiveType::kC128, "c128", 128},
    {PrimitiveType::kF8E5M2, "f8e5m2", 8},
    {PrimitiveType::kF8E4M3FN, "f8e4m3fn", 8},
    {PrimitiveType::kS4, "s4", 4},
    {PrimitiveType::kU4, "u4", 4},
    {PrimitiveType::kF8E4M3B11FNUZ, "f8e4m3b11fnuz", 8},
    {PrimitiveType::kF8E5M2FNUZ, "f8e5m2fnuz", 8},
    {PrimitiveType::kF8E4M3FNUZ, "f8e4m3fnuz", 8},
    {PrimitiveType::kS2, "s2", 2},
    {PrimitiveType::kU2, "u2", 2},
    {PrimitiveType::kF8E4M3, "f8e4m3", 8},
    {PrimitiveType::kF8E3M4, "f8e3m4", 8},
    {PrimitiveType::kS1, "s1", 1},
    {PrimitiveType::kU1, "u1", 1},
    {PrimitiveType::kF4E2M1FN, "f4e2m1fn", 4},
    {PrimitiveType::kF8E8M0FNU, "f8e8m0fnu", 8},
    {PrimitiveType::kBuffer, "buffer", 0},
}};

const TypeInfo& Info(PrimitiveType type) {
  int i = static_cast<int>(type);
  if (i < 0 || i > kLastPrimitiveType) return kTypes[0];
  return kTypes[i];
}

}  // namespace

absl::string_view PrimitiveTypeName(PrimitiveType type) {
  return Info(type).name;
}

std::optional<PrimitiveType> ParsePrimitiveTypeName(absl::string_view name) {
  for (const TypeInfo& info : kTypes) {
    if (info.name == name && info.type != PrimitiveType::kInvalid &&
        info.type != PrimitiveType::kTuple &&
        info.type != PrimitiveType::kBuffer) {
      return info.type;
    }
  }
  return std::nullopt;
}

bool IsArrayType(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kInvalid:
    case PrimitiveType::kTuple:
    case PrimitiveType::kOpaque:
    case PrimitiveType::kToken:
    case PrimitiveType::kBuffer:
      return false;
    default:
      return static_cast<int>(type) > 0 &&
             static_cast<int>(type) <= kLastPrimitiveType;
  }
}

bool IsNarrowFloat(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kF16:
    case PrimitiveType::kBF16:
    case PrimitiveType::kF8E5M2:
    case PrimitiveType::kF8E4M3:
    case PrimitiveType::kF8E4M3FN:
    case PrimitiveType::kF8E4M3B11FNUZ:
    case PrimitiveType::kF8E3M4:
    case PrimitiveType::kF8E5M2FNUZ:
    case PrimitiveType::kF8E4M3FNUZ:
    case PrimitiveType::kF8E8M0FNU:
    case PrimitiveType::kF4E2M1FN:
      return true;
    default:
      return false;
  }
}

bool IsFloatingPoint(PrimitiveType type) {
  return type == PrimitiveType::kF32 || type == PrimitiveType::kF64 ||
         IsNarrowFloat(type);
}

bool IsComplex(PrimitiveType type) {
  return type == PrimitiveType::kC64 || type == PrimitiveType::kC128;
}

bool IsSignedInteger(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kS1:
    case PrimitiveType::kS2:
    case PrimitiveType::kS4:
    case PrimitiveType::kS8:
    case PrimitiveType::kS16:
    case PrimitiveType::kS32:
    case PrimitiveType::kS64:
      return true;
    default:
      return false;
  }
}

bool IsUnsignedInteger(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kU1:
    case PrimitiveType::kU2:
    case PrimitiveType::kU4:
    case PrimitiveType::kU8:
    case PrimitiveType::kU16:
    case PrimitiveType::kU32:
    case PrimitiveType::kU64:
      return true;
    default:
      return false;
  }
}

bool HasInfinity(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kF16:
    case PrimitiveType::kBF16:
    case PrimitiveType::kF32:
    case PrimitiveType::kF64:
    case PrimitiveType::kF8E5M2:
    case PrimitiveType::kF8E4M3:
    case PrimitiveType::kF8E3M4:
      return true;
    default:
      return false;
  }
}

int BitWidth(PrimitiveType type) { return Info(type).bits; }

int StorageBytes(PrimitiveType type) {
  if (!IsArrayType(type)) return 0;
  int bits = BitWidth(type);
  return bits < 8 ? 1 : bits / 8;
}

PrimitiveType ComplexComponentType(PrimitiveType type) {
  if (type == PrimitiveType::kC64) return PrimitiveType::kF32;
  if (type == PrimitiveType::kC128) return PrimitiveType::kF64;
  return type;
}

}  // namespace xlite
