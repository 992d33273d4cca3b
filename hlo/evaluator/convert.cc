// convert, bitcast-convert, stochastic-convert and reduce-precision.

#include <cmath>
#include <cstring>
#include <limits>

#include "hlo/evaluator/element_types.h"
#include "hlo/evaluator/internal.h"
#include "hlo/ir/denormal_mode.h"
#include "hlo/ir/float_types.h"

namespace xlite::eval {
namespace {

// Float -> integer as XLA converts: NaN to 0, saturating at the type's
// range, truncating toward zero.
template <typename Out>
typename Out::Compute FloatToInt(double x) {
  using C = typename Out::Compute;
  if (std::isnan(x)) return 0;
  double lo, hi;
  if constexpr (Out::kBits < static_cast<int>(sizeof(C) * 8)) {
    // Sub-byte: the range of the width.
    lo = kIsSigned<Out> ? -std::ldexp(1.0, Out::kBits - 1) : 0.0;
    hi = kIsSigned<Out> ? std::ldexp(1.0, Out::kBits - 1) - 1
                        : std::ldexp(1.0, Out::kBits) - 1;
  } else {
    lo = static_cast<double>(std::numeric_limits<C>::min());
    hi = static_cast<double>(std::numeric_limits<C>::max());
  }
  if (x <= lo) return static_cast<C>(lo);
  // For 64-bit types `hi` rounds up to 2^N in double: compare with >= and
  // return the exact maximum.
  if (x >= hi) {
    if constexpr (Out::kBits < static_cast<int>(sizeof(C) * 8)) {
      return static_cast<C>(hi);
    } else {
      return std::numeric_limits<C>::max();
    }
  }
  return static_cast<C>(std::trunc(x));
}

// bf16, f16 and the f8/f4 types: values exact in f32, stored as bits.
template <typename Tr>
constexpr bool kIsNarrowFloat =
    kIsFloat<Tr> && !std::is_floating_point_v<typename Tr::Storage>;

// An int or pred source to a float result.
template <typename Out, typename In>
typename Out::Storage IntToFloat(typename In::Compute x) {
  const double v =
      In::kKind == Kind::kPred ? (x ? 1.0 : 0.0) : static_cast<double>(x);
  if constexpr (std::is_same_v<typename Out::Storage, double>) {
    return v;
  } else if constexpr (std::is_same_v<typename Out::Storage, float>) {
    // A 64-bit integer rounds once, directly to float.
    if constexpr (sizeof(typename In::Compute) == 8) {
      return static_cast<float>(x);
    }
    return static_cast<float>(v);
  } else if constexpr (kIsInt<In>) {
    return Out::StoreOnce(static_cast<float>(x));
  } else {
    return Out::StoreOnce(static_cast<float>(v));
  }
}

// A float or complex source (its real part) to a float result, as XLA:CPU
// converts with denormals flushed when `flush`: widening f32 to f64 and
// narrowing f64 are the hardware's (a subnormal operand or result is a zero
// of its sign); f32 and the narrow floats go to f32 and to the narrow
// floats on their bits, never through f64, as do f8e8m0fnu's values to
// f64; an f64 below 2^-127 gives f8e8m0fnu's NaN.
template <typename Out, typename In>
typename Out::Storage RealToFloat(typename In::Storage s, bool flush) {
  const auto x = In::Load(s);
  const auto r = [&] {
    if constexpr (kIsComplex<In>) {
      return x.real();
    } else {
      return x;
    }
  }();
  using OS = typename Out::Storage;
  if constexpr (std::is_same_v<OS, double>) {
    if constexpr (In::kType == PrimitiveType::kF8E8M0FNU) {
      return DecodeToF64(In::kType, s);
    }
    return static_cast<double>(r);
  } else if constexpr (std::is_same_v<OS, float>) {
    return static_cast<float>(r);
  } else if constexpr (std::is_same_v<typename In::Storage, double>) {
    // Narrow floats round once from f64, as XLA:CPU converts (ConvertFromF64).
    if (flush && Out::kType == PrimitiveType::kF8E8M0FNU && !(r >= 0x1p-127)) {
      return static_cast<OS>(0xFF);
    }
    return static_cast<OS>(ConvertFromF64(Out::kType, r));
  } else {
    // Once from f32 (every other source is exact in f32, or rounds there
    // as XLA does).
    return Out::StoreOnce(static_cast<float>(r));
  }
}

template <typename Out, typename In>
typename Out::Storage ConvertOne(typename In::Storage s, bool flush) {
  using OC = typename Out::Compute;
  const auto x = In::Load(s);
  if constexpr (Out::kKind == Kind::kPred) {
    if constexpr (kIsComplex<In>) {
      return Out::Store(x != decltype(x)(0));
    } else if constexpr (kIsNarrowFloat<In>) {
      // Zero or not on the f32 bits: a bf16 or f8e8m0fnu value may be an
      // f32 subnormal, which XLA:CPU tests as non-zero (a flushing compare
      // would read it as zero).
      uint32_t bits;
      std::memcpy(&bits, &x, 4);
      return Out::Store((bits & 0x7FFFFFFFu) != 0);
    } else {
      return Out::Store(x != 0);
    }
  } else if constexpr (kIsInt<Out>) {
    if constexpr (kIsComplex<In>) {
      return Out::Store(FloatToInt<Out>(x.real()));
    } else if constexpr (kIsFloat<In>) {
      return Out::Store(FloatToInt<Out>(static_cast<double>(x)));
    } else {
      // Integer to integer wraps (two's complement).
      return Out::Store(
          static_cast<OC>(static_cast<uint64_t>(static_cast<int64_t>(x))));
    }
  } else if constexpr (kIsFloat<Out>) {
    if constexpr (kIsFloat<In> || kIsComplex<In>) {
      return RealToFloat<Out, In>(s, flush);
    } else {
      return IntToFloat<Out, In>(x);
    }
  } else {  // complex out
    using R = typename OC::value_type;
    if constexpr (kIsComplex<In>) {
      return OC(static_cast<R>(x.real()), static_cast<R>(x.imag()));
    } else if constexpr (In::kKind == Kind::kPred) {
      return OC(x ? R(1) : R(0), R(0));
    } else if constexpr (std::is_same_v<R, double> &&
                         In::kType == PrimitiveType::kF8E8M0FNU) {
      return OC(DecodeToF64(In::kType, s), R(0));
    } else {
      return OC(static_cast<R>(x), R(0));
    }
  }
}

template <typename Out, typename In>
void ConvertLoop(const Literal& in, Literal& out) {
  const bool flush = CurrentDenormalMode() == DenormalMode::kFlushToZero;
  const auto* x = Data<In>(in);
  auto* y = MutableData<Out>(out);
  const int64_t n = in.element_count();
  for (int64_t i = 0; i < n; ++i) y[i] = ConvertOne<Out, In>(x[i], flush);
}

// Reduces a float's precision to `exponent_bits` and `mantissa_bits`
// (round to nearest even; overflow to infinity, underflow to zero),
// working on the bits of U (uint16 for f16, uint32 for f32, uint64 for
// f64): the rounding acts on the bit pattern, so a subnormal rounds at its
// fixed position. A NaN stays the same NaN, mantissa_bits 0 included, as
// XLA:CPU computes it.
template <typename U, int kMantissa, int kExponent>
U ReducePrecisionBits(U bits, int exponent_bits, int mantissa_bits) {
  constexpr U kExponentMask = ((U{1} << kExponent) - 1) << kMantissa;
  constexpr U kMantissaMask = (U{1} << kMantissa) - 1;
  if ((bits & kExponentMask) == kExponentMask && (bits & kMantissaMask) != 0) {
    return bits;
  }
  if (mantissa_bits < kMantissa) {
    const U last_bit_mask = U{1} << (kMantissa - mantissa_bits);
    const U base_bias = (last_bit_mask >> 1) - 1;
    const U last_bit = (bits & last_bit_mask) >> (kMantissa - mantissa_bits);
    bits = (bits + last_bit + base_bias) & ~(last_bit_mask - 1);
  }
  if (exponent_bits < kExponent) {
    const U sign_mask = U{1} << (kMantissa + kExponent);
    const U exponent_mask = ((U{1} << kExponent) - 1) << kMantissa;
    const int64_t bias = (int64_t{1} << (kExponent - 1)) - 1;
    const int64_t reduced_bias = (int64_t{1} << (exponent_bits - 1)) - 1;
    const U max_exponent = static_cast<U>(bias + reduced_bias) << kMantissa;
    const U min_exponent = static_cast<U>(bias - reduced_bias) << kMantissa;
    const U exponent = bits & exponent_mask;
    if (exponent > max_exponent) {
      bits = (bits & sign_mask) | exponent_mask;
    } else if (exponent <= min_exponent) {
      bits = bits & sign_mask;
    }
  }
  return bits;
}

template <typename F, typename U, int kMantissa, int kExponent>
F ReducePrecision(F input, int exponent_bits, int mantissa_bits) {
  U bits;
  std::memcpy(&bits, &input, sizeof(F));
  bits = ReducePrecisionBits<U, kMantissa, kExponent>(bits, exponent_bits,
                                                      mantissa_bits);
  F out;
  std::memcpy(&out, &bits, sizeof(F));
  return out;
}

}  // namespace

Literal ConvertLiteral(const Literal& value, PrimitiveType type) {
  Shape shape = value.shape();
  shape.set_element_type(type);
  Literal out(shape);
  DispatchArrayType(type, [&](auto out_tr) {
    DispatchArrayType(value.shape().element_type(), [&](auto in_tr) {
      ConvertLoop<decltype(out_tr), decltype(in_tr)>(value, out);
      return 0;
    });
    return 0;
  });
  return out;
}

namespace {

absl::StatusOr<Literal> EvalConvert(const HloInstruction& hlo,
                                    const Literal& operand) {
  Literal out = ConvertLiteral(operand, hlo.shape().element_type());
  out.mutable_shape_for_layout() = hlo.shape();
  return out;
}

absl::StatusOr<Literal> EvalBitcastConvert(const HloInstruction& hlo,
                                           const Literal& operand) {
  Literal out(hlo.shape());
  const PrimitiveType from = operand.shape().element_type();
  const PrimitiveType to = hlo.shape().element_type();
  const int from_bits = BitWidth(from);
  const int to_bits = BitWidth(to);
  if (from_bits % 8 == 0 && to_bits % 8 == 0) {
    // Whole bytes: the data is the same little-endian byte string.
    if (out.data().size() != operand.data().size()) {
      return InstructionError(hlo, "bitcast-convert changes the data size");
    }
    out.mutable_data() = operand.data();
    return out;
  }
  // Sub-byte types: a stream of bits, lowest first.
  const int64_t total = operand.element_count() * from_bits;
  if (total != out.element_count() * to_bits) {
    return InstructionError(hlo, "bitcast-convert changes the bit count");
  }
  std::vector<uint8_t> stream((total + 7) / 8, 0);
  for (int64_t i = 0; i < operand.element_count(); ++i) {
    const uint64_t bits = operand.GetBits(i);
    for (int b = 0; b < from_bits; ++b) {
      if ((bits >> b) & 1) {
        const int64_t at = i * from_bits + b;
        stream[at / 8] |= uint8_t(1u << (at % 8));
      }
    }
  }
  for (int64_t i = 0; i < out.element_count(); ++i) {
    uint64_t bits = 0;
    for (int b = 0; b < to_bits; ++b) {
      const int64_t at = i * to_bits + b;
      if ((stream[at / 8] >> (at % 8)) & 1) bits |= uint64_t{1} << b;
    }
    out.SetBits(i, bits);
  }
  return out;
}

// stochastic-convert(float, random bits) -> signed integer, as XLA's
// decomposition defines it: truncate |x| and round up when the random
// value is below the fraction scaled to the random type's range; saturate.
absl::StatusOr<Literal> EvalStochasticConvert(const HloInstruction& hlo,
                                              const Literal& operand,
                                              const Literal& random) {
  const PrimitiveType to = hlo.shape().element_type();
  const PrimitiveType from = operand.shape().element_type();
  if (!IsSignedInteger(to) || !IsFloatingPoint(from)) {
    return InstructionError(
        hlo, "stochastic-convert is defined from floats to signed integers");
  }
  const int random_bits = BitWidth(random.shape().element_type());
  const int to_bits = BitWidth(to);
  const double scale = std::ldexp(1.0, random_bits);
  const double random_max = std::ldexp(1.0, random_bits) - 1;
  // -2^(N-1) and 2^(N-1) - 1, without signed overflow at N = 64.
  const uint64_t top = uint64_t{1} << (to_bits - 1);
  const int64_t min = static_cast<int64_t>(~(top - 1));
  const int64_t max = static_cast<int64_t>(top - 1);
  Literal out(hlo.shape());
  for (int64_t i = 0; i < out.element_count(); ++i) {
    const double x = operand.GetAsDouble(i);
    if (std::isnan(x)) {
      out.SetFromInt64(i, 0);
      continue;
    }
    if (x <= static_cast<double>(min)) {
      out.SetFromInt64(i, min);
      continue;
    }
    if (x >= static_cast<double>(max)) {
      out.SetFromInt64(i, max);
      continue;
    }
    const double a = std::fabs(x);
    const double whole = std::floor(a);
    // The fraction in fixed point, converted (truncating, saturating) to the
    // random type.
    const double fixed = std::min(std::trunc((a - whole) * scale), random_max);
    const uint64_t r = random.GetAsUint64(i);
    int64_t v = static_cast<int64_t>(whole);
    if (static_cast<double>(r) < fixed) ++v;
    out.SetFromInt64(i, x < 0 ? -v : v);
  }
  return out;
}

absl::StatusOr<Literal> EvalReducePrecision(const HloInstruction& hlo,
                                            const Literal& operand) {
  const int e = static_cast<int>(hlo.attrs().exponent_bits);
  const int m = static_cast<int>(hlo.attrs().mantissa_bits);
  if (e < 1 || m < 0) {
    return InstructionError(hlo,
                            "reduce-precision needs exponent_bits >= 1 "
                            "and mantissa_bits >= 0");
  }
  const PrimitiveType type = operand.shape().element_type();
  Literal out(hlo.shape());
  const int64_t n = out.element_count();
  if (type == PrimitiveType::kF64) {
    const auto* x = Data<F64Traits>(operand);
    auto* y = MutableData<F64Traits>(out);
    for (int64_t i = 0; i < n; ++i) {
      y[i] = ReducePrecision<double, uint64_t, 52, 11>(x[i], e, m);
    }
    return out;
  }
  if (!IsFloatingPoint(type) || IsComplex(type)) {
    return InstructionError(hlo, "reduce-precision needs a float operand");
  }
  // f16, and the f8/f4 types XLA:CPU computes in f16, reduce on f16's
  // bits (their values are exact in f16); bf16 and f8e8m0fnu on f32's.
  const bool in_f16 =
      type == PrimitiveType::kF16 || (GetFloatFormat(type) != nullptr &&
                                      GetFloatFormat(type)->total_bits() <= 8 &&
                                      type != PrimitiveType::kF8E8M0FNU);
  DispatchArrayType(type, [&](auto tr) {
    using Tr = decltype(tr);
    if constexpr (kIsFloat<Tr>) {
      const auto* x = Data<Tr>(operand);
      auto* y = MutableData<Tr>(out);
      for (int64_t i = 0; i < n; ++i) {
        const float v = static_cast<float>(Tr::Load(x[i]));
        if (in_f16 && !std::isnan(v)) {
          const uint16_t h = ReducePrecisionBits<uint16_t, 10, 5>(
              FloatToHalf(v), e, std::min(m, 10));
          y[i] = Tr::Store(HalfToFloat(h));
        } else {
          y[i] = Tr::Store(
              ReducePrecision<float, uint32_t, 23, 8>(v, e, std::min(m, 23)));
        }
      }
    }
    return 0;
  });
  return out;
}

}  // namespace

absl::StatusOr<Literal> EvalConversion(const HloInstruction& hlo,
                                       Operands operands) {
  switch (hlo.opcode()) {
    case HloOpcode::kConvert:
      return EvalConvert(hlo, *operands[0]);
    case HloOpcode::kBitcastConvert:
      return EvalBitcastConvert(hlo, *operands[0]);
    case HloOpcode::kReducePrecision:
      return EvalReducePrecision(hlo, *operands[0]);
    case HloOpcode::kStochasticConvert:
      return EvalStochasticConvert(hlo, *operands[0], *operands[1]);
    default:
      return NotImplemented(hlo);
  }
}

}  // namespace xlite::eval
