#ifndef XLITE_HLO_IR_FLOAT_APPROXIMATIONS_H_
#define XLITE_HLO_IR_FLOAT_APPROXIMATIONS_H_

// exp, tanh and log of f32 (and of the narrow floats, which compute in
// f32) as polynomial approximations, written once over an "operations"
// type so that the evaluator (ScalarF32Ops, C++ floats) and the emitted
// code (codegen/float_approximations_ir.h, LLVM values) perform the very
// same IEEE operations in the same order: fused multiply-adds where a
// multiply feeds an add, nothing left to a compiler's contraction. Their
// results are equal bit for bit; the emitted form has no calls and no
// branches, so loops over it vectorize.
//
// Accuracy (float_approximations_test, against double-precision libm over
// every f32 in range): exp and log within 1 ulp, tanh within 2; special
// values as libm (NaN in, NaN out; exp overflows to inf and underflows
// through the subnormals to 0; log(0) = -inf, log(x < 0) = NaN; tanh(-0)
// = -0). XLA:CPU likewise computes these with polynomial approximations
// (Eigen's, a few ulp) rather than libm.
//
// Ops provides, for values V (f32), masks B and 32-bit integers I:
//   V K(float)                       a constant
//   V Add, Sub, Mul, Div (V, V)      IEEE, rounded once
//   V Fma(V a, V b, V c)             a * b + c rounded once
//   V Abs(V), CopySign(V mag, V sign), Trunc(V), RoundEven(V)
//   B Lt, Gt, Eq (V, V), IsNan(V), Or(B, B)
//   V Select(B, V, V)                I SelectI(B, I, I)
//   I Bits(V), V FromBits(I)         the IEEE bits, reinterpreted
//   I IK(int32_t), IAdd, ISub, IAnd, IOr (I, I), IShl(I, int),
//   I IAShr(I, int), B IGt(I, I)
//   V ToFloat(I)                     exact for |i| < 2^24
//   I ToInt(V)                       of an integral value in int32 range
//   V Ldexp(V p, V n)                p 2^n rounded once, for p in [1/2, 2]
//                                    and integral n in [-152, 128] (or
//                                    NaN p and n: a NaN)

#include <bit>
#include <cmath>
#include <cstdint>

namespace xlite::approx {

// e^x. x = n ln2 + r, |r| <= ln2/2 (n rounded to nearest, r reduced with
// ln2 in two parts by fused multiply-adds, so exactly but for the last
// rounding); e^r = 1 + r + r^2 q(r), q a degree-4 fit (relative error
// 3e-9 on the interval); then Ldexp(e^r, n), rounded once, so results near
// overflow and subnormal ones are too. A NaN runs through as a NaN.
template <typename Ops>
typename Ops::V ExpF32(const Ops& o, typename Ops::V x) {
  using V = typename Ops::V;
  // Below -104 the result rounds to 0 (e^x < 2^-150): it is selected, and
  // the polynomial runs on 0 instead; an underflowing multiply costs a
  // microcode assist on many cores (the masked entries of a softmax are
  // all such). Past 88.8 the result is inf; clamping there keeps n in
  // [-150, 128]. Neither comparison holds for NaN, which stays.
  const auto tiny = o.Lt(x, o.K(-104.0f));
  V xc = o.Select(o.Gt(x, o.K(88.8f)), o.K(88.8f), x);
  xc = o.Select(tiny, o.K(0.0f), xc);
  const V n = o.RoundEven(o.Mul(xc, o.K(0x1.715476p+0f)));
  V r = o.Fma(n, o.K(-0x1.62e430p-1f), xc);
  r = o.Fma(n, o.K(0x1.05c610p-29f), r);
  V q = o.K(0x1.6a2448p-10f);
  q = o.Fma(q, r, o.K(0x1.1239d4p-7f));
  q = o.Fma(q, r, o.K(0x1.5558f2p-5f));
  q = o.Fma(q, r, o.K(0x1.555492p-3f));
  q = o.Fma(q, r, o.K(0x1.fffffcp-2f));
  q = o.Fma(q, r, o.K(1.0f));
  const V p = o.Fma(q, r, o.K(1.0f));
  return o.Select(tiny, o.K(0.0f), o.Ldexp(p, n));
}

// tanh x = sign(x) t(|x|): below 0.5, t(a) = a + a^3 p(a^2), p a degree-4
// fit (relative error 4e-10); from 0.5 on, t(a) = 1 - 2 / (e^(2a) + 1),
// where the subtraction loses nothing (t >= 0.46) and e^(2a) = inf gives 1.
// A subnormal x is x itself, as the polynomial gives it with gradual
// underflow and XLA:CPU's tanh gives it with denormals flushed (where the
// polynomial would read it as zero).
template <typename Ops>
typename Ops::V TanhF32(const Ops& o, typename Ops::V x) {
  using V = typename Ops::V;
  const V a = o.Abs(x);
  const V u = o.Mul(a, a);
  V p = o.K(-0x1.b3a63cp-8f);
  p = o.Fma(p, u, o.K(0x1.5cf23cp-6f));
  p = o.Fma(p, u, o.K(-0x1.b98accp-5f));
  p = o.Fma(p, u, o.K(0x1.110f22p-3f));
  p = o.Fma(p, u, o.K(-0x1.555552p-2f));
  const V small = o.Fma(o.Mul(a, u), p, a);
  const V e = ExpF32(o, o.Add(a, a));
  const V large = o.Sub(o.K(1.0f), o.Div(o.K(2.0f), o.Add(e, o.K(1.0f))));
  const V t = o.CopySign(o.Select(o.Lt(a, o.K(0.5f)), small, large), x);
  return o.Select(o.Lt(a, o.K(0x1p-126f)), x, t);
}

// log x = e ln2 + log1p(f), x = 2^e (1 + f) with 1 + f in [sqrt(1/2),
// sqrt(2)) (subnormals scaled by 2^23 first); log1p(f) = f - f^2/2 +
// f^3 P(f), P a degree-7 fit (relative error 6e-9); ln2 in two parts, the
// high one short enough that e * ln2_hi is exact.
template <typename Ops>
typename Ops::V LogF32(const Ops& o, typename Ops::V x) {
  using V = typename Ops::V;
  using I = typename Ops::I;
  const auto subnormal = o.Lt(x, o.K(0x1p-126f));
  const V xs = o.Select(subnormal, o.Mul(x, o.K(0x1p23f)), x);
  const I bits = o.Bits(xs);
  I e = o.ISub(o.IAShr(bits, 23), o.IK(127));
  I m = o.IOr(o.IAnd(bits, o.IK(0x7fffff)), o.IK(0x3f800000));
  const auto above = o.IGt(m, o.IK(0x3fb504f3));  // 1 + f > sqrt(2)
  m = o.SelectI(above, o.ISub(m, o.IK(1 << 23)), m);
  e = o.SelectI(above, o.IAdd(e, o.IK(1)), e);
  const V ef = o.Sub(o.ToFloat(e), o.Select(subnormal, o.K(23.0f), o.K(0.0f)));
  const V f = o.Sub(o.FromBits(m), o.K(1.0f));
  const V f2 = o.Mul(f, f);
  V p = o.K(-0x1.38b4ccp-4f);
  p = o.Fma(p, f, o.K(0x1.055b46p-3f));
  p = o.Fma(p, f, o.K(-0x1.0d8552p-3f));
  p = o.Fma(p, f, o.K(0x1.22da22p-3f));
  p = o.Fma(p, f, o.K(-0x1.547244p-3f));
  p = o.Fma(p, f, o.K(0x1.99a008p-3f));
  p = o.Fma(p, f, o.K(-0x1.000228p-2f));
  p = o.Fma(p, f, o.K(0x1.555554p-2f));
  V y = o.Mul(o.Mul(f2, f), p);
  y = o.Fma(ef, o.K(-2.12194440e-4f), y);
  y = o.Fma(f2, o.K(-0.5f), y);
  V r = o.Add(f, y);
  r = o.Fma(ef, o.K(0.693359375f), r);
  const V inf = o.K(INFINITY);
  r = o.Select(o.Eq(x, inf), inf, r);
  r = o.Select(o.Eq(x, o.K(0.0f)), o.K(-INFINITY), r);
  r = o.Select(o.Lt(x, o.K(0.0f)), o.K(NAN), r);
  return o.Select(o.IsNan(x), x, r);
}

// The operations on C++ floats: what the evaluator runs.
struct ScalarF32Ops {
  using V = float;
  using I = int32_t;
  using B = bool;
  V K(float c) const { return c; }
  V Add(V a, V b) const { return a + b; }
  V Sub(V a, V b) const { return a - b; }
  V Mul(V a, V b) const { return a * b; }
  V Div(V a, V b) const { return a / b; }
  V Fma(V a, V b, V c) const { return std::fma(a, b, c); }
  V Abs(V a) const { return std::fabs(a); }
  V CopySign(V mag, V sign) const { return std::copysign(mag, sign); }
  V Trunc(V a) const { return std::trunc(a); }
  V RoundEven(V a) const { return std::nearbyint(a); }
  B Lt(V a, V b) const { return a < b; }
  B Gt(V a, V b) const { return a > b; }
  B Eq(V a, V b) const { return a == b; }
  B IsNan(V a) const { return std::isnan(a); }
  B Or(B a, B b) const { return a || b; }
  V Select(B c, V a, V b) const { return c ? a : b; }
  I SelectI(B c, I a, I b) const { return c ? a : b; }
  I Bits(V a) const { return std::bit_cast<I>(a); }
  V FromBits(I a) const { return std::bit_cast<V>(a); }
  I IK(int32_t c) const { return c; }
  I IAdd(I a, I b) const {
    return static_cast<I>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
  }
  I ISub(I a, I b) const {
    return static_cast<I>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
  }
  I IAnd(I a, I b) const { return a & b; }
  I IOr(I a, I b) const { return a | b; }
  I IShl(I a, int s) const {
    return static_cast<I>(static_cast<uint32_t>(a) << s);
  }
  I IAShr(I a, int s) const { return a >> s; }
  B IGt(I a, I b) const { return a > b; }
  V ToFloat(I a) const { return static_cast<V>(a); }
  I ToInt(V a) const { return static_cast<I>(a); }
  V Ldexp(V p, V n) const {
    return std::isnan(n) ? p : std::ldexp(p, static_cast<int>(n));
  }
};

inline float ExpF32(float x) { return ExpF32(ScalarF32Ops(), x); }
inline float TanhF32(float x) { return TanhF32(ScalarF32Ops(), x); }
inline float LogF32(float x) { return LogF32(ScalarF32Ops(), x); }

}  // namespace xlite::approx

#endif  // XLITE_HLO_IR_FLOAT_APPROXIMATIONS_H_
