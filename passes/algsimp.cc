// algsimp: a table-driven algebraic simplifier. Each rule matches one
// opcode and returns the instruction to use instead (an existing one or a
// new one it built), or nullptr. Rules never build anything they then
// abandon. The driver applies them in post order until nothing changes.

#include <algorithm>
#include <cmath>
#include <limits>

#include "hlo/ir/primitive_type.h"
#include "passes/hlo_util.h"
#include "passes/passes.h"

namespace xlite {
namespace {

using RuleFn = HloInstruction* (*)(HloInstruction* h, HloComputation* c);

struct Rule {
  HloOpcode opcode;
  const char* name;
  RuleFn apply;
};

HloInstruction* Op(HloInstruction* h, int i) { return h->mutable_operand(i); }
PrimitiveType Type(const HloInstruction* h) {
  return h->shape().element_type();
}
bool IntLike(const HloInstruction* h) {
  return IsInteger(Type(h)) || Type(h) == PrimitiveType::kPred;
}
bool IsFloat(const HloInstruction* h) { return IsFloatingPoint(Type(h)); }
// `x` may stand in for `h` (same element type and dimensions).
bool Fits(const HloInstruction* h, const HloInstruction* x) {
  return ShapesCompatible(h->shape(), x->shape());
}
bool Is(const HloInstruction* h, HloOpcode op) { return h->opcode() == op; }
HloInstruction* New(HloComputation* c, HloOpcode op, const Shape& shape,
                    std::vector<HloInstruction*> operands) {
  return AddNew(c, op, shape, operands);
}
HloInstruction* Filled(HloComputation* c, HloInstruction* h, double v) {
  return AddFilledLike(c, h->shape(), v, h);
}
// A scalar (possibly broadcast) constant's scalar, else nullptr.
HloInstruction* ScalarSource(HloInstruction* h) {
  if (Is(h, HloOpcode::kBroadcast) && h->operand(0)->shape().rank() == 0) {
    return Op(h, 0);
  }
  return nullptr;
}
HloInstruction* Rebroadcast(HloComputation* c, HloInstruction* scalar,
                            const HloInstruction* like) {
  Shape shape = like->shape();
  shape.set_element_type(Type(scalar));
  return AddBroadcast(c, scalar, shape, {});
}
bool IdentityPermutation(const std::vector<int64_t>& p) {
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}
// Whether converting `from` to `to` is exact for every value.
bool Lossless(PrimitiveType from, PrimitiveType to) {
  if (from == to) return true;
  if (IsFloatingPoint(from) && IsFloatingPoint(to)) {
    if (to == PrimitiveType::kF64) return from != PrimitiveType::kF64;
    if (to == PrimitiveType::kF32) {
      return from == PrimitiveType::kF16 || from == PrimitiveType::kBF16;
    }
    return false;
  }
  if (IsSignedInteger(from) && IsSignedInteger(to)) {
    return BitWidth(to) >= BitWidth(from);
  }
  if (IsUnsignedInteger(from) && IsUnsignedInteger(to)) {
    return BitWidth(to) >= BitWidth(from);
  }
  if (IsUnsignedInteger(from) && IsSignedInteger(to)) {
    return BitWidth(to) > BitWidth(from);
  }
  return false;
}
// The reducer is one binary op of its two parameters and `init` is that
// op's identity.
bool InitIsIdentity(const HloInstruction* reduce) {
  const HloComputation* f = reduce->to_apply();
  const HloInstruction* r = f->root_instruction();
  if (f->num_parameters() != 2 || r->operand_count() != 2) return false;
  const bool params =
      (r->operand(0) == f->parameter_instruction(0) &&
       r->operand(1) == f->parameter_instruction(1)) ||
      (r->operand(0) == f->parameter_instruction(1) &&
       r->operand(1) == f->parameter_instruction(0));
  if (!params) return false;
  std::optional<double> init = UniformValue(reduce->operand(1));
  if (!init.has_value()) return false;
  const double inf = std::numeric_limits<double>::infinity();
  switch (r->opcode()) {
    case HloOpcode::kAdd:
    case HloOpcode::kOr:
      return *init == 0;
    case HloOpcode::kMultiply:
    case HloOpcode::kAnd:
      return *init == 1;
    case HloOpcode::kMaximum:
      return *init == -inf;
    case HloOpcode::kMinimum:
      return *init == inf;
    default:
      return false;
  }
}
// Whether `x` is a power of two whose reciprocal is a normal number.
bool ExactReciprocal(double x, PrimitiveType t) {
  if (x == 0 || !std::isfinite(x)) return false;
  int e = 0;
  const double m = std::frexp(std::fabs(x), &e);
  if (m != 0.5) return false;
  const int max_exp = t == PrimitiveType::kF64 ? 1000 : 120;
  return (t == PrimitiveType::kF64 || t == PrimitiveType::kF32) &&
         std::abs(e) < max_exp;
}
// For a divisor `x` that is sqrt(b) or rsqrt(b), possibly broadcast: the
// other root of b, broadcast the same way (a / sqrt(b) = a * rsqrt(b),
// as XLA rewrites it). Else nullptr.
HloInstruction* OtherRoot(HloComputation* c, HloInstruction* x) {
  HloInstruction* root = Is(x, HloOpcode::kBroadcast) ? Op(x, 0) : x;
  HloOpcode other;
  if (Is(root, HloOpcode::kSqrt)) {
    other = HloOpcode::kRsqrt;
  } else if (Is(root, HloOpcode::kRsqrt)) {
    other = HloOpcode::kSqrt;
  } else {
    return nullptr;
  }
  HloInstruction* inverted = New(c, other, root->shape(), {Op(root, 0)});
  if (root == x) return inverted;
  return AddBroadcast(c, inverted, x->shape(), x->dimensions());
}
// Whether divide `h` divides by a constant or a broadcast, in f16, f32 or
// f64 (XLA:CPU widens bf16 and the f8 types to f32 before it rewrites, so
// their reciprocal is not rounded to the narrow type), and is not itself a
// reciprocal 1 / x or a division of constants (constant folding's).
bool ReciprocalDivisor(const HloInstruction* h) {
  const PrimitiveType t = Type(h);
  if (t != PrimitiveType::kF16 && t != PrimitiveType::kF32 &&
      t != PrimitiveType::kF64) {
    return false;
  }
  const HloInstruction* a = h->operand(0);
  const HloInstruction* d = h->operand(1);
  if (IsUniform(a, 1) || Is(a, HloOpcode::kConstant)) return false;
  return Is(d, HloOpcode::kConstant) || Is(d, HloOpcode::kBroadcast);
}
HloInstruction* Commuted(HloInstruction* h, int constant_side,
                         double value) {
  // Returns the other operand if operand `constant_side` is uniformly
  // `value`, trying both sides when constant_side < 0.
  for (int side : {0, 1}) {
    if (constant_side >= 0 && side != constant_side) continue;
    if (IsUniform(h->operand(side), value) && Fits(h, h->operand(1 - side))) {
      return Op(h, 1 - side);
    }
  }
  return nullptr;
}

// The rules are a table laid out by hand, one rule to a few lines with its
// comment above it; clang-format would spread each over many.
// clang-format off
#define RULE(OPCODE, NAME) \
  {HloOpcode::OPCODE, NAME, [](HloInstruction* h, HloComputation* c) -> HloInstruction* {
#define END_RULE }},

const Rule kRules[] = {
    // add(x, 0) or add(0, x) -> x.
    RULE(kAdd, "add-zero") (void)c; return Commuted(h, -1, 0); END_RULE
    // add(x, negate(y)) -> subtract(x, y).
    RULE(kAdd, "add-negate") if (!Is(h->operand(1), HloOpcode::kNegate)) return nullptr;
      return New(c, HloOpcode::kSubtract, h->shape(), {Op(h, 0), Op(Op(h, 1), 0)}); END_RULE
    // add(negate(x), y) -> subtract(y, x).
    RULE(kAdd, "negate-add") if (!Is(h->operand(0), HloOpcode::kNegate)) return nullptr;
      return New(c, HloOpcode::kSubtract, h->shape(), {Op(h, 1), Op(Op(h, 0), 0)}); END_RULE
    // subtract(x, 0) -> x.
    RULE(kSubtract, "subtract-zero") (void)c; return Commuted(h, 1, 0); END_RULE
    // subtract(x, x) -> 0 for integers.
    RULE(kSubtract, "subtract-self") if (!IntLike(h) || h->operand(0) != h->operand(1)) return nullptr;
      return Filled(c, h, 0); END_RULE
    // subtract(0, x) -> negate(x) for integers (floats differ on zero signs).
    RULE(kSubtract, "zero-subtract") if (!IsInteger(Type(h)) || !IsUniform(h->operand(0), 0)) return nullptr;
      return New(c, HloOpcode::kNegate, h->shape(), {Op(h, 1)}); END_RULE
    // subtract(x, negate(y)) -> add(x, y).
    RULE(kSubtract, "subtract-negate") if (!Is(h->operand(1), HloOpcode::kNegate)) return nullptr;
      return New(c, HloOpcode::kAdd, h->shape(), {Op(h, 0), Op(Op(h, 1), 0)}); END_RULE
    // multiply(x, 1) or multiply(1, x) -> x.
    RULE(kMultiply, "multiply-one") (void)c; return Commuted(h, -1, 1); END_RULE
    // multiply(x, 0) -> 0 for integers and predicates.
    RULE(kMultiply, "multiply-zero") if (!IntLike(h)) return nullptr;
      if (!IsUniform(h->operand(0), 0) && !IsUniform(h->operand(1), 0)) return nullptr;
      return Filled(c, h, 0); END_RULE
    // multiply(x, -1) -> negate(x).
    RULE(kMultiply, "multiply-minus-one") if (IsUnsignedInteger(Type(h)) || Type(h) == PrimitiveType::kPred) return nullptr;
      for (int s : {0, 1}) if (IsUniform(h->operand(s), -1)) return New(c, HloOpcode::kNegate, h->shape(), {Op(h, 1 - s)});
      return nullptr; END_RULE
    // divide(x, 1) -> x.
    RULE(kDivide, "divide-one") (void)c; return Commuted(h, 1, 1); END_RULE
    // divide(x, -1) -> negate(x) (also INT_MIN / -1 = INT_MIN = -INT_MIN).
    RULE(kDivide, "divide-minus-one") if (IsUnsignedInteger(Type(h)) || !IsUniform(h->operand(1), -1)) return nullptr;
      return New(c, HloOpcode::kNegate, h->shape(), {Op(h, 0)}); END_RULE
    // divide(x, 2^k) -> multiply(x, 2^-k) for f32/f64: both round the same
    // exact quotient.
    RULE(kDivide, "divide-power-of-two") if (!IsFloat(h)) return nullptr;
      std::optional<double> v = UniformValue(h->operand(1));
      if (!v.has_value() || *v == 1 || *v == -1 || !ExactReciprocal(*v, Type(h))) return nullptr;
      return New(c, HloOpcode::kMultiply, h->shape(), {Op(h, 0), Filled(c, h, 1.0 / *v)}); END_RULE
    // divide(a, sqrt(b)) -> multiply(a, rsqrt(b)) and divide(a, rsqrt(b))
    // -> multiply(a, sqrt(b)), also through a broadcast of the divisor (XLA's
    // rewrite: the cheap multiply lets the producer fuse into its consumers).
    RULE(kDivide, "divide-root") if (!IsFloat(h)) return nullptr;
      HloInstruction* inverted = OtherRoot(c, Op(h, 1));
      if (inverted == nullptr) return nullptr;
      return New(c, HloOpcode::kMultiply, h->shape(), {Op(h, 0), inverted}); END_RULE
    // divide(a, constant) -> multiply(a, divide(1, constant)) and
    // divide(a, broadcast(b)) -> multiply(a, broadcast(divide(1, b))) for
    // f16/f32/f64, as XLA rewrites them (one reciprocal per divisor value): a
    // quotient so computed can be an ulp off the rounded one, and matching
    // XLA:CPU matters where a difference cancels, as in (x / 255 - mean).
    RULE(kDivide, "divide-by-reciprocal") if (!ReciprocalDivisor(h)) return nullptr;
      HloInstruction* d = Op(h, 1);
      HloInstruction* b = Is(d, HloOpcode::kBroadcast) ? Op(d, 0) : d;
      HloInstruction* inverse = New(c, HloOpcode::kDivide, b->shape(), {Filled(c, b, 1), b});
      if (b != d) inverse = AddBroadcast(c, inverse, d->shape(), d->dimensions());
      return New(c, HloOpcode::kMultiply, h->shape(), {Op(h, 0), inverse}); END_RULE
    // power(x, 0) -> 1.
    RULE(kPower, "power-zero") if (!IsFloat(h) || !IsUniform(h->operand(1), 0)) return nullptr;
      return Filled(c, h, 1); END_RULE
    // power(x, 1) -> x.
    RULE(kPower, "power-one") (void)c; return Commuted(h, 1, 1); END_RULE
    // power(x, 2) -> multiply(x, x).
    RULE(kPower, "power-two") if (!IsFloat(h) || !IsUniform(h->operand(1), 2)) return nullptr;
      return New(c, HloOpcode::kMultiply, h->shape(), {Op(h, 0), Op(h, 0)}); END_RULE
    // power(x, -1) -> divide(1, x).
    RULE(kPower, "power-minus-one") if (!IsFloat(h) || !IsUniform(h->operand(1), -1)) return nullptr;
      return New(c, HloOpcode::kDivide, h->shape(), {Filled(c, h, 1), Op(h, 0)}); END_RULE
    // negate(negate(x)) -> x.
    RULE(kNegate, "negate-negate") (void)c; return Is(h->operand(0), HloOpcode::kNegate) ? Op(Op(h, 0), 0) : nullptr; END_RULE
    // not(not(x)) -> x.
    RULE(kNot, "not-not") (void)c; return Is(h->operand(0), HloOpcode::kNot) ? Op(Op(h, 0), 0) : nullptr; END_RULE
    // abs(abs(x)) -> abs(x).
    RULE(kAbs, "abs-abs") (void)c; return Is(h->operand(0), HloOpcode::kAbs) ? Op(h, 0) : nullptr; END_RULE
    // abs(x) -> x for unsigned integers.
    RULE(kAbs, "abs-unsigned") (void)c; return IsUnsignedInteger(Type(h)) ? Op(h, 0) : nullptr; END_RULE
    // maximum(x, x) -> x.
    RULE(kMaximum, "maximum-self") (void)c; return h->operand(0) == h->operand(1) ? Op(h, 0) : nullptr; END_RULE
    // minimum(x, x) -> x.
    RULE(kMinimum, "minimum-self") (void)c; return h->operand(0) == h->operand(1) ? Op(h, 0) : nullptr; END_RULE
    // maximum(x, -inf) -> x for floats.
    RULE(kMaximum, "maximum-minus-inf") (void)c; if (!IsFloat(h)) return nullptr;
      return Commuted(h, -1, -std::numeric_limits<double>::infinity()); END_RULE
    // minimum(x, +inf) -> x for floats.
    RULE(kMinimum, "minimum-inf") (void)c; if (!IsFloat(h)) return nullptr;
      return Commuted(h, -1, std::numeric_limits<double>::infinity()); END_RULE
    // and(x, x) -> x.
    RULE(kAnd, "and-self") (void)c; return h->operand(0) == h->operand(1) ? Op(h, 0) : nullptr; END_RULE
    // or(x, x) -> x.
    RULE(kOr, "or-self") (void)c; return h->operand(0) == h->operand(1) ? Op(h, 0) : nullptr; END_RULE
    // and(x, true) -> x (predicates), and(x, -1) -> x (signed integers).
    RULE(kAnd, "and-all-ones") (void)c;
      if (Type(h) == PrimitiveType::kPred) return Commuted(h, -1, 1);
      if (IsSignedInteger(Type(h))) return Commuted(h, -1, -1);
      return nullptr; END_RULE
    // and(x, 0) -> 0.
    RULE(kAnd, "and-zero") if (!IsUniform(h->operand(0), 0) && !IsUniform(h->operand(1), 0)) return nullptr;
      return Filled(c, h, 0); END_RULE
    // or(x, 0) -> x.
    RULE(kOr, "or-zero") (void)c; return Commuted(h, -1, 0); END_RULE
    // or(x, true) -> true for predicates.
    RULE(kOr, "or-true") if (Type(h) != PrimitiveType::kPred) return nullptr;
      if (!IsUniform(h->operand(0), 1) && !IsUniform(h->operand(1), 1)) return nullptr;
      return Filled(c, h, 1); END_RULE
    // xor(x, 0) -> x.
    RULE(kXor, "xor-zero") (void)c; return Commuted(h, -1, 0); END_RULE
    // select(true, a, b) -> a.
    RULE(kSelect, "select-true") (void)c; return IsUniform(h->operand(0), 1) && Fits(h, h->operand(1)) ? Op(h, 1) : nullptr; END_RULE
    // select(false, a, b) -> b.
    RULE(kSelect, "select-false") (void)c; return IsUniform(h->operand(0), 0) && Fits(h, h->operand(2)) ? Op(h, 2) : nullptr; END_RULE
    // select(p, a, a) -> a.
    RULE(kSelect, "select-same") (void)c; return h->operand(1) == h->operand(2) ? Op(h, 1) : nullptr; END_RULE
    // select(not(p), a, b) -> select(p, b, a).
    RULE(kSelect, "select-not") if (!Is(h->operand(0), HloOpcode::kNot)) return nullptr;
      return New(c, HloOpcode::kSelect, h->shape(), {Op(Op(h, 0), 0), Op(h, 2), Op(h, 1)}); END_RULE
    // compare(x, x) on integers: EQ/GE/LE -> true, NE/LT/GT -> false.
    RULE(kCompare, "compare-self") if (h->operand(0) != h->operand(1) || !IntLike(h->operand(0))) return nullptr;
      const ComparisonDirection d = h->attrs().direction;
      const bool v = d == ComparisonDirection::kEq || d == ComparisonDirection::kGe || d == ComparisonDirection::kLe;
      return Filled(c, h, v ? 1 : 0); END_RULE
    // convert(x) to x's own type -> x.
    RULE(kConvert, "convert-same-type") (void)c; return Type(h->operand(0)) == Type(h) ? Op(h, 0) : nullptr; END_RULE
    // convert(convert(x)) -> x when the inner conversion loses nothing and
    // the outer one returns to x's type.
    RULE(kConvert, "convert-round-trip") (void)c; if (!Is(h->operand(0), HloOpcode::kConvert)) return nullptr;
      HloInstruction* x = Op(Op(h, 0), 0);
      return Type(x) == Type(h) && Lossless(Type(x), Type(h->operand(0))) ? x : nullptr; END_RULE
    // reshape(x) to x's own dimensions -> x.
    RULE(kReshape, "reshape-noop") (void)c; return Fits(h, h->operand(0)) ? Op(h, 0) : nullptr; END_RULE
    // reshape(reshape(x)) -> reshape(x).
    RULE(kReshape, "reshape-reshape") if (!Is(h->operand(0), HloOpcode::kReshape)) return nullptr;
      return AddReshape(c, Op(Op(h, 0), 0), h->shape()); END_RULE
    // reshape(broadcast(scalar)) -> broadcast(scalar).
    RULE(kReshape, "reshape-scalar-broadcast") HloInstruction* s = ScalarSource(Op(h, 0));
      return s != nullptr ? Rebroadcast(c, s, h) : nullptr; END_RULE
    // transpose(x) with the identity permutation -> x.
    RULE(kTranspose, "transpose-identity") (void)c; return IdentityPermutation(h->dimensions()) ? Op(h, 0) : nullptr; END_RULE
    // transpose(transpose(x)) -> transpose(x) with the composed permutation.
    RULE(kTranspose, "transpose-transpose") if (!Is(h->operand(0), HloOpcode::kTranspose)) return nullptr;
      const std::vector<int64_t>& inner = h->operand(0)->dimensions();
      std::vector<int64_t> composed;
      for (int64_t d : h->dimensions()) composed.push_back(inner[d]);
      HloInstruction* t = New(c, HloOpcode::kTranspose, h->shape(), {Op(Op(h, 0), 0)});
      *t->mutable_dimensions() = composed;
      t->set_has_dimensions(true);
      return t; END_RULE
    // transpose(broadcast(scalar)) -> broadcast(scalar).
    RULE(kTranspose, "transpose-scalar-broadcast") HloInstruction* s = ScalarSource(Op(h, 0));
      return s != nullptr ? Rebroadcast(c, s, h) : nullptr; END_RULE
    // broadcast(x) onto x's own dimensions in order -> x.
    RULE(kBroadcast, "broadcast-noop") (void)c; return Fits(h, h->operand(0)) && IdentityPermutation(h->dimensions()) ? Op(h, 0) : nullptr; END_RULE
    // broadcast(broadcast(x)) -> broadcast(x) with composed dimensions.
    RULE(kBroadcast, "broadcast-broadcast") if (!Is(h->operand(0), HloOpcode::kBroadcast)) return nullptr;
      std::vector<int64_t> composed;
      for (int64_t d : h->operand(0)->dimensions()) composed.push_back(h->dimensions()[d]);
      return AddBroadcast(c, Op(Op(h, 0), 0), h->shape(), composed); END_RULE
    // slice(x) covering all of x -> x.
    RULE(kSlice, "slice-noop") (void)c; return Fits(h, h->operand(0)) ? Op(h, 0) : nullptr; END_RULE
    // slice(slice(x)) with unit strides -> one slice.
    RULE(kSlice, "slice-slice") if (!Is(h->operand(0), HloOpcode::kSlice)) return nullptr;
      const auto& outer = h->attrs().slice;
      const auto& inner = h->operand(0)->attrs().slice;
      std::vector<SliceDimension> composed;
      for (size_t i = 0; i < outer.size(); ++i) {
        if (outer[i].stride != 1 || inner[i].stride != 1) return nullptr;
        composed.push_back({inner[i].start + outer[i].start, inner[i].start + outer[i].limit, 1});
      }
      HloInstruction* s = New(c, HloOpcode::kSlice, h->shape(), {Op(Op(h, 0), 0)});
      s->mutable_attrs().slice = composed;
      return s; END_RULE
    // slice(broadcast(scalar)) -> broadcast(scalar).
    RULE(kSlice, "slice-scalar-broadcast") HloInstruction* s = ScalarSource(Op(h, 0));
      return s != nullptr ? Rebroadcast(c, s, h) : nullptr; END_RULE
    // concatenate(x) -> x.
    RULE(kConcatenate, "concatenate-single") (void)c; return h->operand_count() == 1 ? Op(h, 0) : nullptr; END_RULE
    // concatenate drops operands with no elements.
    RULE(kConcatenate, "concatenate-empty-operand") std::vector<HloInstruction*> kept;
      for (HloInstruction* o : h->operands()) if (o->shape().ElementCount() != 0) kept.push_back(o);
      if (kept.size() == static_cast<size_t>(h->operand_count()) || kept.empty()) return nullptr;
      if (kept.size() == 1) return kept[0];
      HloInstruction* n = New(c, HloOpcode::kConcatenate, h->shape(), kept);
      *n->mutable_dimensions() = h->dimensions();
      n->set_has_dimensions(true);
      return n; END_RULE
    // concatenate(slice(x, a:b), slice(x, b:c)) along the sliced dimension
    // (unit strides, other dimensions whole) -> slice(x, a:c).
    RULE(kConcatenate, "concatenate-adjacent-slices") if (h->operand_count() < 2) return nullptr;
      const int64_t dim = h->dimensions()[0];
      const HloInstruction* source = nullptr;
      int64_t start = 0, next = 0;
      for (const HloInstruction* o : h->operands()) {
        if (!Is(o, HloOpcode::kSlice)) return nullptr;
        if (source == nullptr) { source = o->operand(0); start = next = o->attrs().slice[dim].start; }
        if (o->operand(0) != source) return nullptr;
        const auto& sl = o->attrs().slice;
        for (size_t i = 0; i < sl.size(); ++i) {
          if (sl[i].stride != 1) return nullptr;
          if (static_cast<int64_t>(i) != dim && (sl[i].start != 0 || sl[i].limit != source->shape().dimensions(i))) return nullptr;
        }
        if (sl[dim].start != next) return nullptr;
        next = sl[dim].limit;
      }
      HloInstruction* s = New(c, HloOpcode::kSlice, h->shape(), {Op(h, 0)->mutable_operand(0)});
      s->mutable_attrs().slice = h->operand(0)->attrs().slice;
      s->mutable_attrs().slice[dim] = {start, next, 1};
      return s; END_RULE
    // pad(x) with no padding -> x.
    RULE(kPad, "pad-noop") (void)c; for (const auto& d : h->attrs().padding.dimensions)
        if (d.edge_padding_low || d.edge_padding_high || d.interior_padding) return nullptr;
      return Fits(h, h->operand(0)) ? Op(h, 0) : nullptr; END_RULE
    // pad of an operand without elements -> broadcast(padding value).
    RULE(kPad, "pad-empty-operand") if (h->operand(0)->shape().ElementCount() != 0 || h->shape().ElementCount() == 0) return nullptr;
      return AddBroadcast(c, Op(h, 1), h->shape(), {}); END_RULE
    // reverse over no dimensions or size-1 ones -> x.
    RULE(kReverse, "reverse-noop") (void)c; for (int64_t d : h->dimensions()) if (h->shape().dimensions(d) > 1) return nullptr;
      return Op(h, 0); END_RULE
    // reverse(reverse(x)) over the same dimensions -> x.
    RULE(kReverse, "reverse-reverse") (void)c; if (!Is(h->operand(0), HloOpcode::kReverse)) return nullptr;
      std::vector<int64_t> a = h->dimensions(), b = h->operand(0)->dimensions();
      std::sort(a.begin(), a.end()); std::sort(b.begin(), b.end());
      return a == b ? Op(Op(h, 0), 0) : nullptr; END_RULE
    // copy(x) to x's own layout -> x.
    RULE(kCopy, "copy-noop") (void)c; return h->shape() == h->operand(0)->shape() ? Op(h, 0) : nullptr; END_RULE
    // bitcast(x) to x's own shape -> x.
    RULE(kBitcast, "bitcast-noop") (void)c; return h->shape() == h->operand(0)->shape() ? Op(h, 0) : nullptr; END_RULE
    // reduce that combines nothing (reduced dims of size 1, identity init)
    // -> reshape(x).
    RULE(kReduce, "reduce-trivial") if (h->operand_count() != 2 || !h->shape().IsArray()) return nullptr;
      if (h->operand(0)->shape().ElementCount() != h->shape().ElementCount() || !InitIsIdentity(h)) return nullptr;
      return AddReshape(c, Op(h, 0), h->shape()); END_RULE
    // dot without contracting or batch dimensions (an outer product)
    // -> multiply(broadcast(lhs), broadcast(rhs)).
    RULE(kDot, "dot-outer-product") const DotDimensionNumbers& d = h->attrs().dot->dnums;
      if (h->operand_count() != 2 || !d.lhs_contracting_dimensions.empty() || !d.lhs_batch_dimensions.empty()) return nullptr;
      if (Type(h->operand(0)) != Type(h) || Type(h->operand(1)) != Type(h) || IsComplex(Type(h))) return nullptr;
      const int64_t lr = h->operand(0)->shape().rank(), rr = h->operand(1)->shape().rank();
      std::vector<int64_t> ld, rd;
      for (int64_t i = 0; i < lr; ++i) ld.push_back(i);
      for (int64_t i = 0; i < rr; ++i) rd.push_back(lr + i);
      HloInstruction* a = AddBroadcast(c, Op(h, 0), h->shape(), ld);
      HloInstruction* b = AddBroadcast(c, Op(h, 1), h->shape(), rd);
      return New(c, HloOpcode::kMultiply, h->shape(), {a, b}); END_RULE
    // dot contracting over zero elements -> zeros.
    RULE(kDot, "dot-empty-contraction") const DotDimensionNumbers& d = h->attrs().dot->dnums;
      if (h->operand_count() != 2 || !h->shape().IsArray() || h->shape().ElementCount() == 0) return nullptr;
      bool empty = false;
      for (int64_t k : d.lhs_contracting_dimensions) if (h->operand(0)->shape().dimensions(k) == 0) empty = true;
      return empty ? Filled(c, h, 0) : nullptr; END_RULE
    // dynamic-slice taking all of the operand -> the operand.
    RULE(kDynamicSlice, "dynamic-slice-whole") (void)c; return Fits(h, h->operand(0)) ? Op(h, 0) : nullptr; END_RULE
    // dynamic-slice at constant starts -> slice (starts clamped as XLA does).
    RULE(kDynamicSlice, "dynamic-slice-constant-starts") const Shape& s = h->operand(0)->shape();
      if (h->operand_count() != s.rank() + 1) return nullptr;
      std::vector<SliceDimension> dims;
      for (int64_t i = 0; i < s.rank(); ++i) {
        std::optional<double> v = UniformValue(h->operand(i + 1));
        if (!v.has_value()) return nullptr;
        const int64_t size = h->shape().dimensions(i);
        // Not cast from the double (UB past 2^63): a start that large (s64,
        // or u64 past 2^63, which XLA compares unsigned) clamps high.
        const int64_t wanted = *v >= 9.2e18 ? s.dimensions(i) : *v <= 0 ? 0 : static_cast<int64_t>(*v);
        const int64_t start = std::clamp<int64_t>(wanted, 0, s.dimensions(i) - size);
        dims.push_back({start, start + size, 1});
      }
      HloInstruction* sl = New(c, HloOpcode::kSlice, h->shape(), {Op(h, 0)});
      sl->mutable_attrs().slice = dims;
      return sl; END_RULE
    // dynamic-update-slice writing the whole operand -> the update.
    RULE(kDynamicUpdateSlice, "dynamic-update-slice-whole") (void)c; return Fits(h, h->operand(1)) ? Op(h, 1) : nullptr; END_RULE
    // dynamic-update-slice of an empty update -> the operand.
    RULE(kDynamicUpdateSlice, "dynamic-update-slice-empty") (void)c; return h->operand(1)->shape().ElementCount() == 0 ? Op(h, 0) : nullptr; END_RULE
    // iota along a dimension of size 1 -> zeros.
    RULE(kIota, "iota-unit-dimension") if (h->shape().rank() == 0 || h->shape().dimensions(h->iota_dimension()) != 1) return nullptr;
      return Filled(c, h, 0); END_RULE
    // reduce-precision keeping every bit of the type -> x.
    RULE(kReducePrecision, "reduce-precision-noop") (void)c; const PrimitiveType t = Type(h);
      int e = 0, m = 0;
      if (t == PrimitiveType::kF32) { e = 8; m = 23; } else if (t == PrimitiveType::kF64) { e = 11; m = 52; }
      else if (t == PrimitiveType::kBF16) { e = 8; m = 7; } else if (t == PrimitiveType::kF16) { e = 5; m = 10; }
      else return nullptr;
      return h->attrs().exponent_bits >= e && h->attrs().mantissa_bits >= m ? Op(h, 0) : nullptr; END_RULE
    // get-tuple-element(tuple(...), i) -> operand i.
    RULE(kGetTupleElement, "gte-of-tuple") (void)c; return Is(h->operand(0), HloOpcode::kTuple) ? Op(Op(h, 0), h->tuple_index()) : nullptr; END_RULE
    // negate(0) -> 0 for integers.
    RULE(kNegate, "negate-zero") (void)c; return IsInteger(Type(h)) && IsUniform(h->operand(0), 0) ? Op(h, 0) : nullptr; END_RULE
    // clamp(lo, x, hi) with lo = -inf and hi = +inf -> x.
    RULE(kClamp, "clamp-unbounded") (void)c; const double inf = std::numeric_limits<double>::infinity();
      return IsFloat(h) && IsUniform(h->operand(0), -inf) && IsUniform(h->operand(2), inf) && Fits(h, h->operand(1)) ? Op(h, 1) : nullptr; END_RULE
    // sign(sign(x)) -> sign(x).
    RULE(kSign, "sign-sign") (void)c; return Is(h->operand(0), HloOpcode::kSign) ? Op(h, 0) : nullptr; END_RULE
    // floor/ceil/round of an integer-valued convert from integers -> it.
    RULE(kFloor, "floor-of-integer") (void)c; return Is(h->operand(0), HloOpcode::kConvert) && IsInteger(Type(h->operand(0)->operand(0))) && BitWidth(Type(h->operand(0)->operand(0))) <= 16 ? Op(h, 0) : nullptr; END_RULE
    RULE(kCeil, "ceil-of-integer") (void)c; return Is(h->operand(0), HloOpcode::kConvert) && IsInteger(Type(h->operand(0)->operand(0))) && BitWidth(Type(h->operand(0)->operand(0))) <= 16 ? Op(h, 0) : nullptr; END_RULE
    // broadcast(scalar constant) into a scalar -> the constant.
    RULE(kBroadcast, "broadcast-scalar-to-scalar") (void)c; return h->shape().rank() == 0 && Fits(h, h->operand(0)) ? Op(h, 0) : nullptr; END_RULE
};
// clang-format on

#undef RULE
#undef END_RULE

}  // namespace

int AlgebraicSimplifierRuleCount() {
  return static_cast<int>(sizeof(kRules) / sizeof(kRules[0]));
}

absl::StatusOr<bool> RunAlgebraicSimplifier(HloModule& module) {
  bool changed = false;
  const auto fused = FusionComputations(module);
  for (HloComputation* c : module.computations()) {
    if (fused.contains(c)) continue;
    for (int round = 0; round < 16; ++round) {
      bool round_changed = false;
      for (HloInstruction* h : c->MakeInstructionPostOrder()) {
        if (HasSideEffectDeep(h) || HasControlDeps(h)) continue;
        for (const Rule& rule : kRules) {
          if (rule.opcode != h->opcode()) continue;
          HloInstruction* replacement = rule.apply(h, c);
          if (replacement == nullptr) continue;
          absl::Status s = replacement->users().empty() &&
                                   replacement->parent() == c &&
                                   replacement->unique_id() > h->unique_id()
                               ? ReplaceKeepingShape(h, replacement)
                               : ReplaceInstruction(h, replacement);
          if (!s.ok()) return s;
          // Only `h` and its dead operands (earlier in the post order)
          // were removed, so the rest of the order stays valid.
          round_changed = true;
          break;
        }
      }
      if (!round_changed) break;
      changed = true;
    }
  }
  return changed;
}

}  // namespace xlite
