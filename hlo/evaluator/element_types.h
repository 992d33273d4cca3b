#ifndef XLITE_HLO_EVALUATOR_ELEMENT_TYPES_H_
#define XLITE_HLO_EVALUATOR_ELEMENT_TYPES_H_

// Element-type traits for the evaluator: how each XLA type is stored in a
// Literal (Storage) and what C++ type arithmetic happens in (Compute), with
// the conversions between them. Narrow floats compute in float and round
// back after every operation, which is what XLA's CPU backend does after
// float normalization (the f8 types but f8e8m0fnu, and f4e2m1fn, through
// f16: XLA:CPU computes them in f16); sub-byte integers compute in 32 bits and
// wrap to their width.

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "hlo/ir/denormal_mode.h"
#include "hlo/ir/float_types.h"
#include "hlo/ir/literal.h"
#include "hlo/ir/primitive_type.h"

namespace xlite::eval {

enum class Kind { kPred, kSigned, kUnsigned, kFloat, kComplex };

template <typename S, typename C, PrimitiveType T, Kind K>
struct NativeTraits {
  using Storage = S;
  using Compute = C;
  static constexpr PrimitiveType kType = T;
  static constexpr Kind kKind = K;
  static constexpr int kBits = sizeof(S) * 8;
  static Compute Load(Storage s) { return static_cast<Compute>(s); }
  static Storage Store(Compute c) { return static_cast<Storage>(c); }
};

struct PredTraits {
  using Storage = uint8_t;
  using Compute = bool;
  static constexpr PrimitiveType kType = PrimitiveType::kPred;
  static constexpr Kind kKind = Kind::kPred;
  static constexpr int kBits = 1;
  static Compute Load(Storage s) { return s != 0; }
  static Storage Store(Compute c) { return c ? 1 : 0; }
};

// s1/s2/s4 and u1/u2/u4: one element per byte, signed ones sign-extended.
template <PrimitiveType T, int W, bool Signed>
struct SubByteTraits {
  using Storage = std::conditional_t<Signed, int8_t, uint8_t>;
  using Compute = std::conditional_t<Signed, int32_t, uint32_t>;
  static constexpr PrimitiveType kType = T;
  static constexpr Kind kKind = Signed ? Kind::kSigned : Kind::kUnsigned;
  static constexpr int kBits = W;
  static Compute Load(Storage s) { return s; }
  static Storage Store(Compute c) {
    const uint32_t mask = (1u << W) - 1;
    uint32_t bits = static_cast<uint32_t>(c) & mask;
    if (Signed && (bits >> (W - 1)) != 0) bits |= ~mask;
    return static_cast<Storage>(bits);
  }
};

// bf16, f16 and the f8/f4 types: bits in storage, float arithmetic.
template <PrimitiveType T>
struct NarrowFloatTraits {
  using Storage = std::conditional_t<(T == PrimitiveType::kBF16 ||
                                      T == PrimitiveType::kF16),
                                     uint16_t, uint8_t>;
  using Compute = float;
  static constexpr PrimitiveType kType = T;
  static constexpr Kind kKind = Kind::kFloat;
  static constexpr int kBits =
      T == PrimitiveType::kBF16 || T == PrimitiveType::kF16 ? 16
      : T == PrimitiveType::kF4E2M1FN                       ? 4
                                                            : 8;
  static Compute Load(Storage s) {
    if constexpr (T == PrimitiveType::kBF16) {
      return BFloat16ToFloat(s);
    } else if constexpr (T == PrimitiveType::kF16) {
      return HalfToFloat(s);
    } else {
      return DecodeToF32(T, s);
    }
  }
  static Storage Store(Compute c) {
    if constexpr (T == PrimitiveType::kBF16) {
      return FloatToBFloat16(c);
    } else if constexpr (T == PrimitiveType::kF16) {
      return FloatToHalf(c);
    } else {
      return static_cast<Storage>(EncodeOpResultFromF32(T, c));
    }
  }
  // The f32 value rounded once (a convert); Store rounds an operation's
  // result, through f16 for the types XLA:CPU computes in f16.
  static Storage StoreOnce(Compute c) {
    if constexpr (T == PrimitiveType::kBF16 || T == PrimitiveType::kF16) {
      return Store(c);
    } else {
      return static_cast<Storage>(EncodeFromF32(T, c));
    }
  }
};

using F32Traits = NativeTraits<float, float, PrimitiveType::kF32, Kind::kFloat>;
using F64Traits =
    NativeTraits<double, double, PrimitiveType::kF64, Kind::kFloat>;
using C64Traits = NativeTraits<std::complex<float>, std::complex<float>,
                               PrimitiveType::kC64, Kind::kComplex>;
using C128Traits = NativeTraits<std::complex<double>, std::complex<double>,
                                PrimitiveType::kC128, Kind::kComplex>;

// Calls `f(Traits{})` with the traits of `type`; returns what f returns.
// `f` must accept every array type's traits.
template <typename F>
auto DispatchArrayType(PrimitiveType type, F&& f) {
  using T = PrimitiveType;
  switch (type) {
    case T::kPred:
      return f(PredTraits{});
    case T::kS8:
      return f(NativeTraits<int8_t, int8_t, T::kS8, Kind::kSigned>{});
    case T::kS16:
      return f(NativeTraits<int16_t, int16_t, T::kS16, Kind::kSigned>{});
    case T::kS32:
      return f(NativeTraits<int32_t, int32_t, T::kS32, Kind::kSigned>{});
    case T::kS64:
      return f(NativeTraits<int64_t, int64_t, T::kS64, Kind::kSigned>{});
    case T::kU8:
      return f(NativeTraits<uint8_t, uint8_t, T::kU8, Kind::kUnsigned>{});
    case T::kU16:
      return f(NativeTraits<uint16_t, uint16_t, T::kU16, Kind::kUnsigned>{});
    case T::kU32:
      return f(NativeTraits<uint32_t, uint32_t, T::kU32, Kind::kUnsigned>{});
    case T::kU64:
      return f(NativeTraits<uint64_t, uint64_t, T::kU64, Kind::kUnsigned>{});
    case T::kS1:
      return f(SubByteTraits<T::kS1, 1, true>{});
    case T::kS2:
      return f(SubByteTraits<T::kS2, 2, true>{});
    case T::kS4:
      return f(SubByteTraits<T::kS4, 4, true>{});
    case T::kU1:
      return f(SubByteTraits<T::kU1, 1, false>{});
    case T::kU2:
      return f(SubByteTraits<T::kU2, 2, false>{});
    case T::kU4:
      return f(SubByteTraits<T::kU4, 4, false>{});
    case T::kF16:
      return f(NarrowFloatTraits<T::kF16>{});
    case T::kBF16:
      return f(NarrowFloatTraits<T::kBF16>{});
    case T::kF8E5M2:
      return f(NarrowFloatTraits<T::kF8E5M2>{});
    case T::kF8E4M3FN:
      return f(NarrowFloatTraits<T::kF8E4M3FN>{});
    case T::kF8E4M3B11FNUZ:
      return f(NarrowFloatTraits<T::kF8E4M3B11FNUZ>{});
    case T::kF8E5M2FNUZ:
      return f(NarrowFloatTraits<T::kF8E5M2FNUZ>{});
    case T::kF8E4M3FNUZ:
      return f(NarrowFloatTraits<T::kF8E4M3FNUZ>{});
    case T::kF8E4M3:
      return f(NarrowFloatTraits<T::kF8E4M3>{});
    case T::kF8E3M4:
      return f(NarrowFloatTraits<T::kF8E3M4>{});
    case T::kF8E8M0FNU:
      return f(NarrowFloatTraits<T::kF8E8M0FNU>{});
    case T::kF4E2M1FN:
      return f(NarrowFloatTraits<T::kF4E2M1FN>{});
    case T::kF32:
      return f(F32Traits{});
    case T::kF64:
      return f(F64Traits{});
    case T::kC64:
      return f(C64Traits{});
    case T::kC128:
      return f(C128Traits{});
    default:
      // Not an array type: callers check IsArrayType first.
      return f(F32Traits{});
  }
}

template <typename Tr>
constexpr bool kIsFloat = Tr::kKind == Kind::kFloat;
template <typename Tr>
constexpr bool kIsComplex = Tr::kKind == Kind::kComplex;
template <typename Tr>
constexpr bool kIsInt =
    Tr::kKind == Kind::kSigned || Tr::kKind == Kind::kUnsigned;
template <typename Tr>
constexpr bool kIsSigned = Tr::kKind == Kind::kSigned;

// Typed views of a literal's storage.
template <typename Tr>
const typename Tr::Storage* Data(const Literal& l) {
  return reinterpret_cast<const typename Tr::Storage*>(l.data().data());
}
template <typename Tr>
typename Tr::Storage* MutableData(Literal& l) {
  return reinterpret_cast<typename Tr::Storage*>(l.mutable_data().data());
}

// XLA's maximum and minimum of floats (float or double): the first NaN
// operand, +0 above -0, a subnormal read as the float hardware in `mode`
// reads it (the comparisons would, the selected operand's bits would not).
template <typename C>
C FloatMaximum(C x, C y, DenormalMode mode) {
  x = ReadAs(mode, x);
  y = ReadAs(mode, y);
  return std::isnan(x)   ? x
         : std::isnan(y) ? y
         : x > y         ? x
         : y > x         ? y
                         : (std::signbit(x) ? y : x);
}
template <typename C>
C FloatMinimum(C x, C y, DenormalMode mode) {
  x = ReadAs(mode, x);
  y = ReadAs(mode, y);
  return std::isnan(x)   ? x
         : std::isnan(y) ? y
         : x < y         ? x
         : y < x         ? y
                         : (std::signbit(x) ? x : y);
}

// Order of float bits where -NaN < -inf < ... < -0 < +0 < ... < +NaN.
template <typename Tr>
int64_t TotalOrderKey(typename Tr::Storage s) {
  if constexpr (std::is_same_v<typename Tr::Storage, float>) {
    int32_t bits;
    std::memcpy(&bits, &s, 4);
    return bits < 0 ? static_cast<int64_t>(bits ^ 0x7fffffff) : bits;
  } else if constexpr (std::is_same_v<typename Tr::Storage, double>) {
    int64_t bits;
    std::memcpy(&bits, &s, 8);
    return bits < 0 ? (bits ^ 0x7fffffffffffffffLL) : bits;
  } else {
    const FloatFormat* f = GetFloatFormat(Tr::kType);
    const int width = f->total_bits();
    const int64_t bits = static_cast<int64_t>(s) & ((int64_t{1} << width) - 1);
    if (!f->has_sign) return bits;
    const int64_t sign = int64_t{1} << (width - 1);
    return (bits & sign) ? -(bits & ~sign) - 1 : bits;
  }
}

}  // namespace xlite::eval

#endif  // XLITE_HLO_EVALUATOR_ELEMENT_TYPES_H_
