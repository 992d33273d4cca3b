#ifndef XLITE_HLO_EVALUATOR_ACCUMULATION_H_
#define XLITE_HLO_EVALUATOR_ACCUMULATION_H_

// How the evaluator combines values in reductions, shared by reduce,
// reduce-window and the combiner (see README "Numerics"): one step of a
// reducer rounds to the element type, as XLA:CPU's float normalization
// leaves it (the reducer runs in f32 and converts back to bf16 after every
// step).

#include <cmath>
#include <cstring>
#include <type_traits>

#include "hlo/evaluator/element_types.h"
#include "hlo/evaluator/internal.h"

namespace xlite::eval {

// acc = op(acc, x) for one binary opcode, rounding to the type every step.
template <typename Tr>
inline bool ApplyBinary(HloOpcode op, typename Tr::Storage& acc,
                        typename Tr::Storage x) {
  using C = typename Tr::Compute;
  const C a = Tr::Load(acc), b = Tr::Load(x);
  if constexpr (Tr::kKind == Kind::kPred) {
    switch (op) {
      case HloOpcode::kAnd:
      case HloOpcode::kMinimum:
      case HloOpcode::kMultiply:
        acc = Tr::Store(a && b);
        return true;
      case HloOpcode::kOr:
      case HloOpcode::kMaximum:
      case HloOpcode::kAdd:
        acc = Tr::Store(a || b);
        return true;
      case HloOpcode::kXor:
        acc = Tr::Store(a != b);
        return true;
      default:
        return false;
    }
  } else if constexpr (kIsInt<Tr>) {
    using U = std::make_unsigned_t<C>;
    switch (op) {
      case HloOpcode::kAdd:
        acc = Tr::Store(static_cast<C>(static_cast<U>(a) + static_cast<U>(b)));
        return true;
      case HloOpcode::kMultiply:
        acc = Tr::Store(static_cast<C>(static_cast<U>(a) * static_cast<U>(b)));
        return true;
      case HloOpcode::kMaximum:
        acc = Tr::Store(a > b ? a : b);
        return true;
      case HloOpcode::kMinimum:
        acc = Tr::Store(a < b ? a : b);
        return true;
      case HloOpcode::kAnd:
        acc = Tr::Store(static_cast<C>(a & b));
        return true;
      case HloOpcode::kOr:
        acc = Tr::Store(static_cast<C>(a | b));
        return true;
      case HloOpcode::kXor:
        acc = Tr::Store(static_cast<C>(a ^ b));
        return true;
      default:
        return false;
    }
  } else if constexpr (kIsFloat<Tr>) {
    switch (op) {
      case HloOpcode::kAdd:
        acc = Tr::Store(a + b);
        return true;
      case HloOpcode::kMultiply:
        acc = Tr::Store(a * b);
        return true;
      case HloOpcode::kMaximum:
        // As the elementwise maximum (and XLA): NaN wins, +0 above -0
        // in either order, subnormals read as the hardware reads them.
        acc = Tr::Store(FloatMaximum(a, b, CurrentDenormalMode()));
        return true;
      case HloOpcode::kMinimum:
        acc = Tr::Store(FloatMinimum(a, b, CurrentDenormalMode()));
        return true;
      default:
        return false;
    }
  } else {
    switch (op) {
      case HloOpcode::kAdd:
        acc = Tr::Store(a + b);
        return true;
      case HloOpcode::kMultiply:
        acc = Tr::Store(a * b);
        return true;
      default:
        return false;
    }
  }
}

/// Fills `out` with copies of the scalar `value`.
inline void FillWith(Literal& out, const Literal& value) {
  const int64_t w = ElementBytes(out.shape());
  const int64_t n = out.element_count();
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(out.mutable_data().data() + i * w, value.data().data(), w);
  }
}

}  // namespace xlite::eval

#endif  // XLITE_HLO_EVALUATOR_ACCUMULATION_H_
