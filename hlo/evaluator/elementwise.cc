// Elementwise opcodes: unary and binary arithmetic, bitwise ops, shifts,
// comparisons, select, clamp and the complex/real/imag family. Integer
// arithmetic wraps; division and shifts follow XLA (see hlo-format.md).

#include <cmath>
#include <limits>

#include "hlo/evaluator/element_types.h"
#include "hlo/ir/float_approximations.h"
#include "hlo/evaluator/internal.h"
#include "hlo/ir/denormal_mode.h"

namespace xlite::eval {
namespace {

template <typename C>
using UnsignedOf = std::make_unsigned_t<C>;

// exp, log and tanh: f32 (and the narrow floats, computing in f32) by the
// polynomials emitted code uses too (float_approximations.h), f64 by libm.
template <typename C>
C Exp(C x) {
  if constexpr (std::is_same_v<C, float>) return approx::ExpF32(x);
  return std::exp(x);
}
template <typename C>
C Log(C x) {
  if constexpr (std::is_same_v<C, float>) return approx::LogF32(x);
  return std::log(x);
}
template <typename C>
C Tanh(C x) {
  if constexpr (std::is_same_v<C, float>) return approx::TanhF32(x);
  return std::tanh(x);
}

// expm1 of a subnormal is the subnormal: with denormals flushed (the
// evaluator's arithmetic flushes with the thread's DenormalMode) libm would
// compute on the flushed operand and give a zero where XLA:CPU keeps the
// operand; with gradual underflow libm's value is the operand too. (log and
// log1p read a subnormal as zero, as XLA:CPU's do, where libm would scale
// it up: Unary reads their operand as the hardware does.) The CPU
// backend's float_ops.cc does the same.
template <typename C>
C Expm1(C x) {
  return std::fabs(x) < std::numeric_limits<C>::min() ? x : std::expm1(x);
}

// ------------------------------------------------------------- loops

template <typename In, typename Out, typename F>
void Map1(const Literal& a, Literal& out, F f) {
  const auto* x = Data<In>(a);
  auto* y = MutableData<Out>(out);
  const int64_t n = a.element_count();
  for (int64_t i = 0; i < n; ++i) y[i] = Out::Store(f(In::Load(x[i])));
}

template <typename In, typename Out, typename F>
void Map2(const Literal& a, const Literal& b, Literal& out, F f) {
  const auto* x = Data<In>(a);
  const auto* y = Data<In>(b);
  auto* z = MutableData<Out>(out);
  const int64_t n = out.element_count();
  for (int64_t i = 0; i < n; ++i) {
    z[i] = Out::Store(f(In::Load(x[i]), In::Load(y[i])));
  }
}

// ---------------------------------------------------------- int helpers

template <typename Tr>
typename Tr::Compute IntDivide(typename Tr::Compute a, typename Tr::Compute b) {
  using C = typename Tr::Compute;
  if (b == 0) return kIsSigned<Tr> ? C(-1) : C(~C(0));
  if constexpr (kIsSigned<Tr>) {
    if (b == C(-1)) return static_cast<C>(UnsignedOf<C>(0) - UnsignedOf<C>(a));
  }
  return a / b;
}

template <typename Tr>
typename Tr::Compute IntRemainder(typename Tr::Compute a,
                                  typename Tr::Compute b) {
  using C = typename Tr::Compute;
  if (b == 0) return a;
  if constexpr (kIsSigned<Tr>) {
    if (b == C(-1)) return 0;
  }
  return a % b;
}

// The value's bits as an unsigned number of the type's width.
template <typename Tr>
uint64_t WidthBits(typename Tr::Compute v) {
  const uint64_t bits = static_cast<uint64_t>(static_cast<int64_t>(v));
  return Tr::kBits >= 64 ? bits : bits & ((uint64_t{1} << Tr::kBits) - 1);
}

template <typename Tr>
typename Tr::Compute Shift(HloOpcode op, typename Tr::Compute a,
                           typename Tr::Compute b) {
  using C = typename Tr::Compute;
  const uint64_t amount = WidthBits<Tr>(b);
  const uint64_t value = WidthBits<Tr>(a);
  // The top bit, whatever the signedness: XLA's arithmetic shift copies it
  // into an unsigned value too (0xFF >> 1 is 0xFF).
  const bool negative = ((value >> (Tr::kBits - 1)) & 1) != 0;
  if (amount >= static_cast<uint64_t>(Tr::kBits)) {
    if (op == HloOpcode::kShiftRightArithmetic && negative) return C(-1);
    return C(0);
  }
  switch (op) {
    case HloOpcode::kShiftLeft:
      return static_cast<C>(value << amount);
    case HloOpcode::kShiftRightLogical:
      return static_cast<C>(value >> amount);
    default: {  // arithmetic
      uint64_t shifted = value >> amount;
      if (negative && amount > 0) {
        shifted |= ~uint64_t{0} << (Tr::kBits - amount);
      }
      return static_cast<C>(static_cast<int64_t>(shifted));
    }
  }
}

template <typename Tr>
typename Tr::Compute IntPower(typename Tr::Compute base,
                              typename Tr::Compute exponent) {
  using C = typename Tr::Compute;
  using U = UnsignedOf<C>;
  if constexpr (kIsSigned<Tr>) {
    if (exponent < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exponent & 1) ? C(-1) : C(1);
      return 0;
    }
  }
  U result = 1, b = static_cast<U>(base);
  U e = static_cast<U>(exponent);
  while (e != 0) {
    if (e & 1) result = static_cast<U>(result * b);
    b = static_cast<U>(b * b);
    e >>= 1;
  }
  return static_cast<C>(result);
}

template <typename Tr>
typename Tr::Compute MulHi(typename Tr::Compute a, typename Tr::Compute b) {
  using C = typename Tr::Compute;
  if constexpr (kIsSigned<Tr>) {
    return static_cast<C>((static_cast<__int128>(a) * b) >> Tr::kBits);
  } else {
    return static_cast<C>((static_cast<unsigned __int128>(a) * b) >> Tr::kBits);
  }
}

int PopCount(uint64_t v) { return __builtin_popcountll(v); }

template <typename Tr>
int CountLeadingZeros(typename Tr::Compute v) {
  const uint64_t bits = WidthBits<Tr>(v);
  if (bits == 0) return Tr::kBits;
  return __builtin_clzll(bits) - (64 - Tr::kBits);
}

template <typename C>
C Sign(C x) {
  return std::isnan(x) ? x : x > 0 ? C(1) : x < 0 ? C(-1) : x;
}

// ------------------------------------------------------------- unary

template <typename Tr>
absl::StatusOr<Literal> Unary(const HloInstruction& hlo, const Literal& a) {
  using C = typename Tr::Compute;
  const HloOpcode op = hlo.opcode();
  Literal out(hlo.shape());
  auto unsupported = [&] {
    return InstructionError(
        hlo, absl::StrCat(HloOpcodeString(op), " is not defined on ",
                          PrimitiveTypeName(Tr::kType)));
  };
  if constexpr (Tr::kKind == Kind::kPred) {
    if (op == HloOpcode::kNot) {
      Map1<Tr, Tr>(a, out, [](C x) { return !x; });
      return out;
    }
    if (op == HloOpcode::kAbs || op == HloOpcode::kSign) {
      Map1<Tr, Tr>(a, out, [](C x) { return x; });
      return out;
    }
    return unsupported();
  } else if constexpr (kIsInt<Tr>) {
    switch (op) {
      case HloOpcode::kNot:
        Map1<Tr, Tr>(a, out, [](C x) { return static_cast<C>(~x); });
        return out;
      case HloOpcode::kNegate:
        Map1<Tr, Tr>(a, out, [](C x) {
          return static_cast<C>(UnsignedOf<C>(0) -
                                static_cast<UnsignedOf<C>>(x));
        });
        return out;
      case HloOpcode::kAbs:
        Map1<Tr, Tr>(a, out, [](C x) {
          if constexpr (kIsSigned<Tr>) {
            return x < 0 ? static_cast<C>(UnsignedOf<C>(0) -
                                          static_cast<UnsignedOf<C>>(x))
                         : x;
          }
          return x;
        });
        return out;
      case HloOpcode::kSign:
        Map1<Tr, Tr>(a, out,
                     [](C x) { return static_cast<C>((x > 0) - (x < 0)); });
        return out;
      case HloOpcode::kPopulationCount:
        Map1<Tr, Tr>(a, out, [](C x) {
          return static_cast<C>(PopCount(WidthBits<Tr>(x)));
        });
        return out;
      case HloOpcode::kClz:
        Map1<Tr, Tr>(a, out, [](C x) {
          return static_cast<C>(CountLeadingZeros<Tr>(x));
        });
        return out;
      default:
        return unsupported();
    }
  } else if constexpr (kIsFloat<Tr>) {
    // Operations that select or test bits read a subnormal as the float
    // hardware does (ReadAs), so that they agree with the arithmetic.
    const DenormalMode mode = CurrentDenormalMode();
    auto hw = [mode](C x) { return ReadAs(mode, x); };
    switch (op) {
#define XLITE_FLOAT_UNARY(opcode, expr)                   \
  case HloOpcode::opcode:                                 \
    Map1<Tr, Tr>(a, out, [&](C x) -> C { return expr; }); \
    return out;
      XLITE_FLOAT_UNARY(kAbs, std::fabs(x))
      XLITE_FLOAT_UNARY(kNegate, -x)
      XLITE_FLOAT_UNARY(kSign, Sign(hw(x)))
      XLITE_FLOAT_UNARY(kExp, Exp(x))
      XLITE_FLOAT_UNARY(kExpm1, Expm1(x))
      XLITE_FLOAT_UNARY(kLog, Log(hw(x)))
      XLITE_FLOAT_UNARY(kLog1p, std::log1p(hw(x)))
      XLITE_FLOAT_UNARY(kSqrt, std::sqrt(x))
      XLITE_FLOAT_UNARY(kRsqrt, C(1) / std::sqrt(x))
      XLITE_FLOAT_UNARY(kCbrt, std::cbrt(x))
      XLITE_FLOAT_UNARY(kSin, std::sin(x))
      XLITE_FLOAT_UNARY(kCos, std::cos(x))
      XLITE_FLOAT_UNARY(kTan, std::tan(x))
      XLITE_FLOAT_UNARY(kTanh, Tanh(x))
      XLITE_FLOAT_UNARY(kSinh, std::sinh(x))
      XLITE_FLOAT_UNARY(kCosh, std::cosh(x))
      XLITE_FLOAT_UNARY(kAsin, std::asin(x))
      XLITE_FLOAT_UNARY(kAcos, std::acos(x))
      XLITE_FLOAT_UNARY(kAtan, std::atan(x))
      XLITE_FLOAT_UNARY(kAsinh, std::asinh(x))
      XLITE_FLOAT_UNARY(kAcosh, std::acosh(x))
      XLITE_FLOAT_UNARY(kAtanh, std::atanh(x))
      XLITE_FLOAT_UNARY(kFloor, std::floor(x))
      XLITE_FLOAT_UNARY(kCeil, std::ceil(x))
      XLITE_FLOAT_UNARY(kRoundNearestAfz, std::round(x))
      XLITE_FLOAT_UNARY(kRoundNearestEven, std::nearbyint(x))
      XLITE_FLOAT_UNARY(kLogistic, C(1) / (C(1) + Exp(-x)))
      XLITE_FLOAT_UNARY(kErf, std::erf(x))
      XLITE_FLOAT_UNARY(kReal, x)
      XLITE_FLOAT_UNARY(kImag, C(0))
#undef XLITE_FLOAT_UNARY
      case HloOpcode::kIsFinite:
        Map1<Tr, PredTraits>(a, out, [](C x) { return std::isfinite(x); });
        return out;
      default:
        return unsupported();
    }
  } else {  // complex
    using R = typename C::value_type;
    using RealTr =
        std::conditional_t<std::is_same_v<R, float>, F32Traits, F64Traits>;
    switch (op) {
#define XLITE_COMPLEX_UNARY(opcode, expr)                \
  case HloOpcode::opcode:                                \
    Map1<Tr, Tr>(a, out, [](C x) -> C { return expr; }); \
    return out;
      XLITE_COMPLEX_UNARY(kNegate, -x)
      XLITE_COMPLEX_UNARY(kSign, x == C(0) ? C(0) : x / std::abs(x))
      XLITE_COMPLEX_UNARY(kExp, std::exp(x))
      XLITE_COMPLEX_UNARY(kExpm1, std::exp(x) - C(1))
      XLITE_COMPLEX_UNARY(kLog, std::log(x))
      XLITE_COMPLEX_UNARY(kLog1p, std::log(x + C(1)))
      XLITE_COMPLEX_UNARY(kSqrt, std::sqrt(x))
      XLITE_COMPLEX_UNARY(kRsqrt, C(1) / std::sqrt(x))
      XLITE_COMPLEX_UNARY(kSin, std::sin(x))
      XLITE_COMPLEX_UNARY(kCos, std::cos(x))
      XLITE_COMPLEX_UNARY(kTan, std::tan(x))
      XLITE_COMPLEX_UNARY(kTanh, std::tanh(x))
      XLITE_COMPLEX_UNARY(kLogistic, C(1) / (C(1) + std::exp(-x)))
#undef XLITE_COMPLEX_UNARY
      case HloOpcode::kAbs:
        Map1<Tr, RealTr>(a, out, [](C x) { return std::abs(x); });
        return out;
      case HloOpcode::kReal:
        Map1<Tr, RealTr>(a, out, [](C x) { return x.real(); });
        return out;
      case HloOpcode::kImag:
        Map1<Tr, RealTr>(a, out, [](C x) { return x.imag(); });
        return out;
      case HloOpcode::kIsFinite:
        Map1<Tr, PredTraits>(a, out, [](C x) {
          return std::isfinite(x.real()) && std::isfinite(x.imag());
        });
        return out;
      default:
        return unsupported();
    }
  }
}

// ------------------------------------------------------------ binary

template <typename Tr>
absl::StatusOr<Literal> Binary(HloOpcode op, const Shape& shape,
                               const Literal& a, const Literal& b) {
  using C = typename Tr::Compute;
  Literal out(shape);
  auto unsupported = [&]() -> absl::Status {
    return absl::InvalidArgumentError(
        absl::StrCat(HloOpcodeString(op), " is not defined on ",
                     PrimitiveTypeName(Tr::kType)));
  };
  if constexpr (Tr::kKind == Kind::kPred) {
    switch (op) {
      case HloOpcode::kAnd:
      case HloOpcode::kMultiply:
      case HloOpcode::kMinimum:
        Map2<Tr, Tr>(a, b, out, [](C x, C y) { return x && y; });
        return out;
      case HloOpcode::kOr:
      case HloOpcode::kAdd:
      case HloOpcode::kMaximum:
        Map2<Tr, Tr>(a, b, out, [](C x, C y) { return x || y; });
        return out;
      case HloOpcode::kXor:
      case HloOpcode::kSubtract:
        Map2<Tr, Tr>(a, b, out, [](C x, C y) { return x != y; });
        return out;
      default:
        return unsupported();
    }
  } else if constexpr (kIsInt<Tr>) {
    using U = UnsignedOf<C>;
    switch (op) {
#define XLITE_INT_BINARY(opcode, expr)                           \
  case HloOpcode::opcode:                                        \
    Map2<Tr, Tr>(a, b, out, [](C x, C y) -> C { return expr; }); \
    return out;
      XLITE_INT_BINARY(kAdd,
                       static_cast<C>(static_cast<U>(x) + static_cast<U>(y)))
      XLITE_INT_BINARY(kSubtract,
                       static_cast<C>(static_cast<U>(x) - static_cast<U>(y)))
      XLITE_INT_BINARY(kMultiply,
                       static_cast<C>(static_cast<U>(x) * static_cast<U>(y)))
      XLITE_INT_BINARY(kDivide, IntDivide<Tr>(x, y))
      XLITE_INT_BINARY(kRemainder, IntRemainder<Tr>(x, y))
      XLITE_INT_BINARY(kMaximum, x > y ? x : y)
      XLITE_INT_BINARY(kMinimum, x < y ? x : y)
      XLITE_INT_BINARY(kAnd, static_cast<C>(x & y))
      XLITE_INT_BINARY(kOr, static_cast<C>(x | y))
      XLITE_INT_BINARY(kXor, static_cast<C>(x ^ y))
      XLITE_INT_BINARY(kPower, IntPower<Tr>(x, y))
      XLITE_INT_BINARY(kMulhi, MulHi<Tr>(x, y))
#undef XLITE_INT_BINARY
      case HloOpcode::kShiftLeft:
      case HloOpcode::kShiftRightLogical:
      case HloOpcode::kShiftRightArithmetic:
        Map2<Tr, Tr>(a, b, out, [op](C x, C y) { return Shift<Tr>(op, x, y); });
        return out;
      default:
        return unsupported();
    }
  } else if constexpr (kIsFloat<Tr>) {
    // maximum and minimum select an operand: subnormals read as the float
    // hardware reads them first.
    const DenormalMode mode = CurrentDenormalMode();
    switch (op) {
#define XLITE_FLOAT_BINARY(opcode, expr)                          \
  case HloOpcode::opcode:                                         \
    Map2<Tr, Tr>(a, b, out, [&](C x, C y) -> C { return expr; }); \
    return out;
      XLITE_FLOAT_BINARY(kAdd, x + y)
      XLITE_FLOAT_BINARY(kSubtract, x - y)
      XLITE_FLOAT_BINARY(kMultiply, x * y)
      XLITE_FLOAT_BINARY(kDivide, x / y)
      XLITE_FLOAT_BINARY(kRemainder, std::fmod(x, y))
      XLITE_FLOAT_BINARY(kPower, std::pow(x, y))
      XLITE_FLOAT_BINARY(kAtan2, std::atan2(x, y))
      // XLA's max/min propagate NaN.
      XLITE_FLOAT_BINARY(kMaximum, FloatMaximum(x, y, mode))
      XLITE_FLOAT_BINARY(kMinimum, FloatMinimum(x, y, mode))
#undef XLITE_FLOAT_BINARY
      default:
        return unsupported();
    }
  } else {
    switch (op) {
      case HloOpcode::kAdd:
        Map2<Tr, Tr>(a, b, out, [](C x, C y) { return x + y; });
        return out;
      case HloOpcode::kSubtract:
        Map2<Tr, Tr>(a, b, out, [](C x, C y) { return x - y; });
        return out;
      case HloOpcode::kMultiply:
        Map2<Tr, Tr>(a, b, out, [](C x, C y) { return x * y; });
        return out;
      case HloOpcode::kDivide:
        Map2<Tr, Tr>(a, b, out, [](C x, C y) { return x / y; });
        return out;
      case HloOpcode::kPower:
        Map2<Tr, Tr>(a, b, out, [](C x, C y) {
          return x == C(0) && y == C(0) ? C(1) : std::pow(x, y);
        });
        return out;
      default:
        return unsupported();
    }
  }
}

// ------------------------------------------------------------ compare

template <typename Tr>
void Compare(ComparisonDirection direction, ComparisonType type,
             const Literal& a, const Literal& b, Literal& out) {
  using C = typename Tr::Compute;
  auto decide = [direction](auto x, auto y) {
    switch (direction) {
      case ComparisonDirection::kEq:
        return x == y;
      case ComparisonDirection::kNe:
        return x != y;
      case ComparisonDirection::kLt:
        return x < y;
      case ComparisonDirection::kLe:
        return x <= y;
      case ComparisonDirection::kGt:
        return x > y;
      case ComparisonDirection::kGe:
        return x >= y;
    }
    return false;
  };
  const auto* x = Data<Tr>(a);
  const auto* y = Data<Tr>(b);
  auto* z = MutableData<PredTraits>(out);
  const int64_t n = out.element_count();
  if constexpr (kIsFloat<Tr>) {
    if (type == ComparisonType::kTotalOrder) {
      for (int64_t i = 0; i < n; ++i) {
        z[i] = decide(TotalOrderKey<Tr>(x[i]), TotalOrderKey<Tr>(y[i]));
      }
      return;
    }
  }
  if constexpr (kIsComplex<Tr>) {
    for (int64_t i = 0; i < n; ++i) {
      const bool equal = Tr::Load(x[i]) == Tr::Load(y[i]);
      z[i] = direction == ComparisonDirection::kNe ? !equal : equal;
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      const C u = Tr::Load(x[i]);
      const C v = Tr::Load(y[i]);
      z[i] = decide(u, v);
    }
  }
}

// Broadcast a scalar operand (select's predicate, clamp's bounds) to `shape`.
Literal Expand(const Literal& value, const Shape& shape) {
  if (value.element_count() == shape.ElementCount() &&
      value.shape().rank() == shape.rank()) {
    return value;
  }
  Literal out(Shape(value.shape().element_type(), shape.dimensions()));
  const int64_t w = ElementBytes(value.shape());
  const int64_t n = out.element_count();
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(out.mutable_data().data() + i * w, value.data().data(), w);
  }
  return out;
}

}  // namespace

absl::StatusOr<Literal> BinaryElementwise(HloOpcode op, const Literal& a,
                                          const Literal& b) {
  return DispatchArrayType(a.shape().element_type(), [&](auto tr) {
    return Binary<decltype(tr)>(op, a.shape(), a, b);
  });
}

absl::StatusOr<Literal> EvalElementwise(const HloInstruction& hlo,
                                        Operands operands) {
  const HloOpcode op = hlo.opcode();
  const Literal& a = *operands[0];
  const PrimitiveType type = a.shape().element_type();
  if (operands.size() == 1) {
    return DispatchArrayType(
        type, [&](auto tr) { return Unary<decltype(tr)>(hlo, a); });
  }
  switch (op) {
    case HloOpcode::kCompare: {
      Literal out(hlo.shape());
      const HloAttributes& attrs = hlo.attrs();
      DispatchArrayType(type, [&](auto tr) {
        Compare<decltype(tr)>(attrs.direction, attrs.comparison_type, a,
                              *operands[1], out);
        return 0;
      });
      return out;
    }
    case HloOpcode::kComplex: {
      Literal out(hlo.shape());
      const Literal& b = *operands[1];
      const int64_t n = out.element_count();
      if (type == PrimitiveType::kF64) {
        auto* z = MutableData<C128Traits>(out);
        for (int64_t i = 0; i < n; ++i) {
          z[i] = {Data<F64Traits>(a)[i], Data<F64Traits>(b)[i]};
        }
      } else {
        auto* z = MutableData<C64Traits>(out);
        for (int64_t i = 0; i < n; ++i) {
          z[i] = {Data<F32Traits>(a)[i], Data<F32Traits>(b)[i]};
        }
      }
      return out;
    }
    case HloOpcode::kSelect: {
      const Literal pred = Expand(a, hlo.shape());
      const Literal& on_true = *operands[1];
      const Literal& on_false = *operands[2];
      Literal out(hlo.shape());
      const int64_t w = ElementBytes(hlo.shape());
      const int64_t n = out.element_count();
      const uint8_t* p = pred.data().data();
      uint8_t* z = out.mutable_data().data();
      for (int64_t i = 0; i < n; ++i) {
        std::memcpy(z + i * w,
                    (p[i] ? on_true : on_false).data().data() + i * w, w);
      }
      return out;
    }
    case HloOpcode::kClamp: {
      // clamp(lo, x, hi) = min(max(x, lo), hi), NaN propagating.
      const Literal& x = *operands[1];
      const Literal lo = Expand(a, x.shape());
      const Literal hi = Expand(*operands[2], x.shape());
      absl::StatusOr<Literal> low =
          BinaryElementwise(HloOpcode::kMaximum, x, lo);
      if (!low.ok()) return InstructionError(hlo, low.status().message());
      absl::StatusOr<Literal> out =
          BinaryElementwise(HloOpcode::kMinimum, *low, hi);
      if (!out.ok()) return InstructionError(hlo, out.status().message());
      out->mutable_shape_for_layout() = hlo.shape();
      return out;
    }
    default: {
      absl::StatusOr<Literal> out = DispatchArrayType(type, [&](auto tr) {
        return Binary<decltype(tr)>(op, hlo.shape(), a, *operands[1]);
      });
      if (!out.ok()) return InstructionError(hlo, out.status().message());
      return out;
    }
  }
}

}  // namespace xlite::eval
