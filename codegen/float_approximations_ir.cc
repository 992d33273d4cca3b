#include "codegen/float_approximations_ir.h"

#include "codegen/ldexp.h"
#include "hlo/ir/float_approximations.h"
#include "llvm/IR/Intrinsics.h"

namespace xlite::codegen {
namespace {

// approx::ScalarF32Ops's operations on IR values (f32 and i32).
struct IrF32Ops {
  using V = llvm::Value*;
  using I = llvm::Value*;
  using B = llvm::Value*;
  llvm::IRBuilderBase& b;

  llvm::Type* F() const { return b.getFloatTy(); }
  V Unary(llvm::Intrinsic::ID id, V a) const {
    return b.CreateUnaryIntrinsic(id, a);
  }

  V K(float c) const { return llvm::ConstantFP::get(F(), c); }
  V Add(V x, V y) const { return b.CreateFAdd(x, y); }
  V Sub(V x, V y) const { return b.CreateFSub(x, y); }
  V Mul(V x, V y) const { return b.CreateFMul(x, y); }
  V Div(V x, V y) const { return b.CreateFDiv(x, y); }
  V Fma(V x, V y, V z) const {
    return b.CreateIntrinsic(llvm::Intrinsic::fma, {F()}, {x, y, z});
  }
  V Abs(V x) const { return Unary(llvm::Intrinsic::fabs, x); }
  V CopySign(V mag, V sign) const {
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, mag, sign);
  }
  V Trunc(V x) const { return Unary(llvm::Intrinsic::trunc, x); }
  V RoundEven(V x) const { return Unary(llvm::Intrinsic::roundeven, x); }
  B Lt(V x, V y) const { return b.CreateFCmpOLT(x, y); }
  B Gt(V x, V y) const { return b.CreateFCmpOGT(x, y); }
  B Eq(V x, V y) const { return b.CreateFCmpOEQ(x, y); }
  B IsNan(V x) const { return b.CreateFCmpUNO(x, x); }
  B Or(B x, B y) const { return b.CreateOr(x, y); }
  V Select(B c, V x, V y) const { return b.CreateSelect(c, x, y); }
  I SelectI(B c, I x, I y) const { return b.CreateSelect(c, x, y); }
  I Bits(V x) const { return b.CreateBitCast(x, b.getInt32Ty()); }
  V FromBits(I x) const { return b.CreateBitCast(x, F()); }
  I IK(int32_t c) const { return b.getInt32(c); }
  I IAdd(I x, I y) const { return b.CreateAdd(x, y); }
  I ISub(I x, I y) const { return b.CreateSub(x, y); }
  I IAnd(I x, I y) const { return b.CreateAnd(x, y); }
  I IOr(I x, I y) const { return b.CreateOr(x, y); }
  I IShl(I x, int s) const { return b.CreateShl(x, s); }
  I IAShr(I x, int s) const { return b.CreateAShr(x, s); }
  B IGt(I x, I y) const { return b.CreateICmpSGT(x, y); }
  V ToFloat(I x) const { return b.CreateSIToFP(x, F()); }
  I ToInt(V x) const { return b.CreateFPToSI(x, b.getInt32Ty()); }
  V Ldexp(V p, V n) const { return EmitLdexp(b, p, n); }
};

}  // namespace

llvm::Value* EmitExpF32(llvm::IRBuilderBase& b, llvm::Value* x) {
  return approx::ExpF32(IrF32Ops{b}, x);
}

llvm::Value* EmitTanhF32(llvm::IRBuilderBase& b, llvm::Value* x) {
  return approx::TanhF32(IrF32Ops{b}, x);
}

llvm::Value* EmitLogF32(llvm::IRBuilderBase& b, llvm::Value* x) {
  return approx::LogF32(IrF32Ops{b}, x);
}

}  // namespace xlite::codegen
