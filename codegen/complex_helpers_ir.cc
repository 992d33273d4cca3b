#include "codegen/complex_helpers_ir.h"

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "codegen/math_library.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"

namespace xlite::codegen {
namespace {

struct Complex {
  llvm::Value* re;
  llvm::Value* im;
};

// Complex arithmetic on {re, im} pairs of one real type, from real IR and
// libm calls. Special values follow C99 Annex G as glibc/libgcc do.
class ComplexMath {
 public:
  ComplexMath(llvm::IRBuilderBase& b, llvm::Type* type) : b_(b), t_(type) {}

  llvm::Value* K(double v) { return llvm::ConstantFP::get(t_, v); }
  llvm::Value* Inf() { return llvm::ConstantFP::getInfinity(t_); }
  llvm::Value* Call(const char* name, std::vector<llvm::Value*> args) {
    return EmitMathCall(b_, name, args);
  }
  llvm::Value* Fabs(llvm::Value* v) {
    return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v);
  }
  llvm::Value* CopySign(llvm::Value* mag, llvm::Value* sign) {
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, mag, sign);
  }
  llvm::Value* IsNan(llvm::Value* v) { return b_.CreateFCmpUNO(v, v); }
  llvm::Value* IsInf(llvm::Value* v) { return b_.CreateFCmpOEQ(Fabs(v), Inf()); }
  llvm::Value* IsFinite(llvm::Value* v) {
    return b_.CreateFCmpONE(Fabs(v), Inf());
  }
  llvm::Value* IsZero(llvm::Value* v) { return b_.CreateFCmpOEQ(v, K(0)); }
  llvm::Value* Sel(llvm::Value* c, llvm::Value* t, llvm::Value* f) {
    return b_.CreateSelect(c, t, f);
  }
  Complex Sel(llvm::Value* c, Complex t, Complex f) {
    return {Sel(c, t.re, f.re), Sel(c, t.im, f.im)};
  }
  llvm::Value* Add(llvm::Value* x, llvm::Value* y) { return b_.CreateFAdd(x, y); }
  llvm::Value* Sub(llvm::Value* x, llvm::Value* y) { return b_.CreateFSub(x, y); }
  llvm::Value* Mul(llvm::Value* x, llvm::Value* y) { return b_.CreateFMul(x, y); }
  llvm::Value* Div(llvm::Value* x, llvm::Value* y) { return b_.CreateFDiv(x, y); }
  llvm::Value* Neg(llvm::Value* x) { return b_.CreateFNeg(x); }
  llvm::Value* And(llvm::Value* x, llvm::Value* y) { return b_.CreateAnd(x, y); }
  llvm::Value* Or(llvm::Value* x, llvm::Value* y) { return b_.CreateOr(x, y); }
  // An infinite component as +-1, a finite one as +-0 (Annex G's "box").
  llvm::Value* Box(llvm::Value* v) {
    return CopySign(Sel(IsInf(v), K(1), K(0)), v);
  }
  // v, or +-0 where `when` holds and v is NaN.
  llvm::Value* NanToZero(llvm::Value* when, llvm::Value* v) {
    return Sel(And(when, IsNan(v)), CopySign(K(0), v), v);
  }

  llvm::Value* Abs(Complex z) { return Call("hypot", {z.re, z.im}); }

  Complex Multiply(Complex x, Complex y) {
    llvm::Value *a = x.re, *b = x.im, *c = y.re, *d = y.im;
    llvm::Value *ac = Mul(a, c), *bd = Mul(b, d), *ad = Mul(a, d),
                *bc = Mul(b, c);
    Complex naive{Sub(ac, bd), Add(ad, bc)};
    // Both parts NaN: recover the infinities the operands carry.
    llvm::Value* x_inf = Or(IsInf(a), IsInf(b));
    a = Sel(x_inf, Box(a), a);
    b = Sel(x_inf, Box(b), b);
    c = NanToZero(x_inf, c);
    d = NanToZero(x_inf, d);
    llvm::Value* y_inf = Or(IsInf(c), IsInf(d));
    c = Sel(y_inf, Box(c), c);
    d = Sel(y_inf, Box(d), d);
    a = NanToZero(y_inf, a);
    b = NanToZero(y_inf, b);
    llvm::Value* recalc = Or(x_inf, y_inf);
    llvm::Value* overflow = And(
        b_.CreateNot(recalc),
        Or(Or(IsInf(ac), IsInf(bd)), Or(IsInf(ad), IsInf(bc))));
    a = NanToZero(overflow, a);
    b = NanToZero(overflow, b);
    c = NanToZero(overflow, c);
    d = NanToZero(overflow, d);
    Complex recovered{Mul(Inf(), Sub(Mul(a, c), Mul(b, d))),
                      Mul(Inf(), Add(Mul(a, d), Mul(b, c)))};
    llvm::Value* both_nan = And(IsNan(naive.re), IsNan(naive.im));
    return Sel(And(both_nan, Or(recalc, overflow)), recovered, naive);
  }

  // Smith's algorithm, then Annex G's recovery when both parts are NaN.
  Complex Divide(Complex x, Complex y) {
    llvm::Value *a = x.re, *b = x.im, *c = y.re, *d = y.im;
    llvm::Value* c_major = b_.CreateFCmpOGE(Fabs(c), Fabs(d));
    llvm::Value* r1 = Div(d, c);
    llvm::Value* den1 = Add(c, Mul(d, r1));
    Complex q1{Div(Add(a, Mul(b, r1)), den1), Div(Sub(b, Mul(a, r1)), den1)};
    llvm::Value* r2 = Div(c, d);
    llvm::Value* den2 = Add(Mul(c, r2), d);
    Complex q2{Div(Add(Mul(a, r2), b), den2), Div(Sub(Mul(b, r2), a), den2)};
    Complex q = Sel(c_major, q1, q2);
    llvm::Value* both_nan = And(IsNan(q.re), IsNan(q.im));
    // x / 0 with x not NaN.
    llvm::Value* zero_den = And(And(IsZero(c), IsZero(d)),
                                Or(b_.CreateNot(IsNan(a)),
                                   b_.CreateNot(IsNan(b))));
    llvm::Value* signed_inf = CopySign(Inf(), c);
    Complex by_zero{Mul(signed_inf, a), Mul(signed_inf, b)};
    // Infinite / finite.
    llvm::Value* x_inf = And(Or(IsInf(a), IsInf(b)),
                             And(IsFinite(c), IsFinite(d)));
    llvm::Value *ba = Box(a), *bb = Box(b);
    Complex inf_num{Mul(Inf(), Add(Mul(ba, c), Mul(bb, d))),
                    Mul(Inf(), Sub(Mul(bb, c), Mul(ba, d)))};
    // Finite / infinite.
    llvm::Value* y_inf = And(Or(IsInf(c), IsInf(d)),
                             And(IsFinite(a), IsFinite(b)));
    llvm::Value *bc = Box(c), *bd = Box(d);
    Complex inf_den{Mul(K(0), Add(Mul(a, bc), Mul(b, bd))),
                    Mul(K(0), Sub(Mul(b, bc), Mul(a, bd)))};
    Complex recovered =
        Sel(zero_den, by_zero, Sel(x_inf, inf_num, Sel(y_inf, inf_den, q)));
    return Sel(both_nan, recovered, q);
  }

  Complex Exp(Complex z) {
    llvm::Value *x = z.re, *y = z.im;
    // exp(x) overflows before exp(x) * cos(y) does: scale by halves.
    llvm::Value* big = b_.CreateFCmpOGT(x, K(t_->isFloatTy() ? 80 : 700));
    llvm::Value* half = Call("exp", {Mul(x, K(0.5))});
    llvm::Value* e = Call("exp", {x});
    llvm::Value *c = Call("cos", {y}), *s = Call("sin", {y});
    Complex r{Sel(big, Mul(Mul(half, c), half), Mul(e, c)),
              Sel(big, Mul(Mul(half, s), half), Mul(e, s))};
    r = Sel(IsZero(y), Complex{e, y}, r);
    // exp(-inf + i y) for y infinite or NaN is 0; exp(+inf + i y), inf+NaN i.
    llvm::Value* odd_y = b_.CreateNot(IsFinite(y));
    llvm::Value* vanishes = And(b_.CreateFCmpOEQ(x, Neg(Inf())), odd_y);
    llvm::Value* explodes = And(b_.CreateFCmpOEQ(x, Inf()), odd_y);
    r = Sel(explodes, Complex{Inf(), Sub(y, y)}, r);
    return Sel(vanishes, Complex{K(0), CopySign(K(0), y)}, r);
  }

  Complex Log(Complex z) {
    return {Call("log", {Abs(z)}), Call("atan2", {z.im, z.re})};
  }

  Complex Sqrt(Complex z) {
    llvm::Value *x = z.re, *y = z.im;
    llvm::Value* t = Call(
        "sqrt", {Add(Mul(Fabs(x), K(0.5)), Mul(Abs(z), K(0.5)))});
    llvm::Value* other = Mul(Div(Fabs(y), t), K(0.5));
    Complex positive{t, CopySign(other, y)};
    Complex negative{other, CopySign(t, y)};
    Complex r = Sel(b_.CreateFCmpOGE(x, K(0)), positive, negative);
    r = Sel(And(IsZero(x), IsZero(y)), Complex{K(0), y}, r);
    return Sel(IsInf(y), Complex{Inf(), y}, r);
  }

  Complex Sin(Complex z) {
    llvm::Value *x = z.re, *y = z.im;
    llvm::Value* re = Mul(Call("sin", {x}), Call("cosh", {y}));
    llvm::Value* im = Mul(Call("cos", {x}), Call("sinh", {y}));
    return {Sel(IsZero(x), x, re), Sel(IsZero(y), y, im)};
  }

  Complex Cos(Complex z) {
    llvm::Value *x = z.re, *y = z.im;
    llvm::Value* re = Mul(Call("cos", {x}), Call("cosh", {y}));
    llvm::Value* im = Neg(Mul(Call("sin", {x}), Call("sinh", {y})));
    llvm::Value* zero_im = Neg(Mul(x, CopySign(K(1), y)));
    return {re, Sel(IsZero(x), zero_im, im)};
  }

  // tan(x + iy) = (sin x cos x + i sinh y cosh y) / (cos^2 x + sinh^2 y);
  // for large |y|, 4 sin x cos x e^-2|y| + i sign(y).
  Complex Tan(Complex z) { return TanParts(z.re, z.im, /*swap=*/false); }
  // tanh(x + iy) = (sinh x cosh x + i sin y cos y) / (sinh^2 x + cos^2 y).
  Complex Tanh(Complex z) { return TanParts(z.im, z.re, /*swap=*/true); }

  Complex Power(Complex x, Complex y) {
    Complex r = Exp(Multiply(y, Log(x)));
    llvm::Value* zeros = And(And(IsZero(x.re), IsZero(x.im)),
                             And(IsZero(y.re), IsZero(y.im)));
    return Sel(zeros, Complex{K(1), K(0)}, r);
  }

 private:
  Complex TanParts(llvm::Value* u, llvm::Value* v, bool swap) {
    llvm::Value *su = Call("sin", {u}), *cu = Call("cos", {u});
    llvm::Value *shv = Call("sinh", {v}), *chv = Call("cosh", {v});
    llvm::Value* den = Add(Mul(cu, cu), Mul(shv, shv));
    llvm::Value* trig = Div(Mul(su, cu), den);
    llvm::Value* hyp = Div(Mul(shv, chv), den);
    llvm::Value* big = b_.CreateFCmpOGT(Fabs(v), K(40));
    llvm::Value* tiny = Mul(Mul(K(4), Mul(su, cu)),
                            Call("exp", {Mul(K(-2), Fabs(v))}));
    // An infinite v gives +-0 + i sign(v) whatever u is (even NaN).
    trig = Sel(big, Sel(IsInf(v), CopySign(K(0), u), tiny), trig);
    hyp = Sel(big, CopySign(K(1), v), hyp);
    return swap ? Complex{hyp, trig} : Complex{trig, hyp};
  }

  llvm::IRBuilderBase& b_;
  llvm::Type* t_;
};

// The helper's value from its operands (in the work type).
absl::StatusOr<Complex> Evaluate(ComplexMath& m, const std::string& op,
                                 const std::vector<Complex>& in) {
  const Complex one{m.K(1), m.K(0)};
  if (in.size() == 2) {
    if (op == "multiply") return m.Multiply(in[0], in[1]);
    if (op == "divide") return m.Divide(in[0], in[1]);
    if (op == "power") return m.Power(in[0], in[1]);
    return absl::UnimplementedError(absl::StrCat("no complex ", op));
  }
  const Complex x = in[0];
  if (op == "abs") return Complex{m.Abs(x), m.K(0)};
  if (op == "sign") {
    llvm::Value* h = m.Abs(x);
    llvm::Value* zero = m.And(m.IsZero(x.re), m.IsZero(x.im));
    return m.Sel(zero, Complex{m.K(0), m.K(0)},
                 Complex{m.Div(x.re, h), m.Div(x.im, h)});
  }
  if (op == "exp") return m.Exp(x);
  if (op == "expm1") {
    Complex e = m.Exp(x);
    return Complex{m.Sub(e.re, m.K(1)), m.Sub(e.im, m.K(0))};
  }
  if (op == "log") return m.Log(x);
  if (op == "log1p") return m.Log({m.Add(x.re, m.K(1)), m.Add(x.im, m.K(0))});
  if (op == "sqrt") return m.Sqrt(x);
  if (op == "rsqrt") return m.Divide(one, m.Sqrt(x));
  if (op == "sin") return m.Sin(x);
  if (op == "cos") return m.Cos(x);
  if (op == "tan") return m.Tan(x);
  if (op == "tanh") return m.Tanh(x);
  if (op == "logistic") {
    Complex e = m.Exp({m.Neg(x.re), m.Neg(x.im)});
    return m.Divide(one, {m.Add(m.K(1), e.re), m.Add(m.K(0), e.im)});
  }
  return absl::UnimplementedError(absl::StrCat("no complex ", op));
}

absl::Status DefineHelper(llvm::Function& f, llvm::Type* part,
                          const std::string& op) {
  llvm::LLVMContext& ctx = f.getContext();
  const size_t inputs = f.arg_size() - 1;
  if (inputs < 1 || inputs > 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("complex helper ", f.getName().str(), " has ",
                     f.arg_size(), " parameters"));
  }
  f.setLinkage(llvm::GlobalValue::InternalLinkage);
  f.addFnAttr(llvm::Attribute::AlwaysInline);
  f.setMemoryEffects(llvm::MemoryEffects::argMemOnly());
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", &f));
  // c64's work is done in double (one rounding at the end) except its
  // multiply, whose float products are what overflow decides NaN-ness on.
  llvm::Type* work =
      part->isFloatTy() && op != "multiply" ? b.getDoubleTy() : part;
  std::vector<Complex> in;
  for (size_t i = 0; i < inputs; ++i) {
    llvm::Value* p = f.getArg(i);
    llvm::Value* re = b.CreateLoad(part, p);
    llvm::Value* im = b.CreateLoad(part, b.CreateConstGEP1_64(part, p, 1));
    in.push_back({b.CreateFPExt(re, work), b.CreateFPExt(im, work)});
  }
  ComplexMath math(b, work);
  absl::StatusOr<Complex> r = Evaluate(math, op, in);
  if (!r.ok()) {
    f.deleteBody();
    return r.status();
  }
  llvm::Value* out = f.getArg(inputs);
  b.CreateStore(b.CreateFPTrunc(r->re, part), out);
  if (op != "abs") {
    b.CreateStore(b.CreateFPTrunc(r->im, part),
                  b.CreateConstGEP1_64(part, out, 1));
  }
  b.CreateRetVoid();
  return absl::OkStatus();
}

}  // namespace

absl::Status DefineComplexHelpers(llvm::Module& module) {
  // Defining a helper declares math functions: collect first.
  std::vector<llvm::Function*> declared;
  for (llvm::Function& f : module) {
    if (f.isDeclaration()) declared.push_back(&f);
  }
  for (llvm::Function* helper : declared) {
    llvm::Function& f = *helper;
    const std::string name = f.getName().str();
    llvm::Type* part = nullptr;
    std::string op;
    if (absl::StartsWith(name, "xlite_c64_")) {
      part = llvm::Type::getFloatTy(module.getContext());
      op = name.substr(10);
    } else if (absl::StartsWith(name, "xlite_c128_")) {
      part = llvm::Type::getDoubleTy(module.getContext());
      op = name.substr(11);
    } else {
      continue;
    }
    if (absl::Status s = DefineHelper(f, part, op); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace xlite::codegen
