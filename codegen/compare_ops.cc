#include "codegen/compare_ops.h"

#include "codegen/float_codec.h"
#include "hlo/ir/float_types.h"

namespace xlite::codegen {
namespace {

llvm::CmpInst::Predicate IntPredicate(ComparisonDirection direction,
                                      bool is_signed) {
  using P = llvm::CmpInst::Predicate;
  switch (direction) {
    case ComparisonDirection::kEq:
      return P::ICMP_EQ;
    case ComparisonDirection::kNe:
      return P::ICMP_NE;
    case ComparisonDirection::kLt:
      return is_signed ? P::ICMP_SLT : P::ICMP_ULT;
    case ComparisonDirection::kLe:
      return is_signed ? P::ICMP_SLE : P::ICMP_ULE;
    case ComparisonDirection::kGt:
      return is_signed ? P::ICMP_SGT : P::ICMP_UGT;
    case ComparisonDirection::kGe:
      return is_signed ? P::ICMP_SGE : P::ICMP_UGE;
  }
  return P::ICMP_EQ;
}

// C++'s operators on floats: != is true for NaN, the others are ordered.
llvm::CmpInst::Predicate FloatPredicate(ComparisonDirection direction) {
  using P = llvm::CmpInst::Predicate;
  switch (direction) {
    case ComparisonDirection::kEq:
      return P::FCMP_OEQ;
    case ComparisonDirection::kNe:
      return P::FCMP_UNE;
    case ComparisonDirection::kLt:
      return P::FCMP_OLT;
    case ComparisonDirection::kLe:
      return P::FCMP_OLE;
    case ComparisonDirection::kGt:
      return P::FCMP_OGT;
    case ComparisonDirection::kGe:
      return P::FCMP_OGE;
  }
  return P::FCMP_OEQ;
}

// TotalOrderKey: a signed integer ordering -NaN < -inf < ... < -0 < +0 <
// ... < +NaN.
llvm::Value* EmitTotalOrderKey(llvm::IRBuilderBase& b, PrimitiveType type,
                               llvm::Value* x) {
  if (type == PrimitiveType::kF32 || type == PrimitiveType::kF64) {
    llvm::Type* it = b.getIntNTy(BitWidth(type));
    llvm::Value* bits = b.CreateBitCast(x, it);
    llvm::Value* flipped = b.CreateXor(
        bits, llvm::ConstantInt::get(
                  it, llvm::APInt::getSignedMaxValue(BitWidth(type))));
    return b.CreateSelect(b.CreateICmpSLT(bits, llvm::ConstantInt::get(it, 0)),
                          flipped, bits);
  }
  const FloatFormat& f = *GetFloatFormat(type);
  llvm::Value* bits = b.CreateZExt(x, b.getInt32Ty());
  if (!f.has_sign) return bits;
  const uint32_t sign = uint32_t{1} << (f.total_bits() - 1);
  // (bits & sign) ? -(bits & ~sign) - 1 : bits
  llvm::Value* negative_key =
      b.CreateSub(b.CreateNeg(b.CreateAnd(bits, ~sign)), b.getInt32(1));
  return b.CreateSelect(b.CreateICmpNE(b.CreateAnd(bits, sign), b.getInt32(0)),
                        negative_key, bits);
}

}  // namespace

llvm::Value* EmitCompare(llvm::IRBuilderBase& b, ComparisonDirection direction,
                         ComparisonType comparison_type, PrimitiveType type,
                         llvm::Value* x, llvm::Value* y) {
  if (type == PrimitiveType::kPred || IsInteger(type)) {
    return b.CreateICmp(IntPredicate(direction, IsSignedInteger(type)), x, y);
  }
  if (IsComplex(type)) {
    llvm::Value* equal =
        b.CreateAnd(b.CreateFCmpOEQ(b.CreateExtractValue(x, {0}),
                                    b.CreateExtractValue(y, {0})),
                    b.CreateFCmpOEQ(b.CreateExtractValue(x, {1}),
                                    b.CreateExtractValue(y, {1})));
    return direction == ComparisonDirection::kNe ? b.CreateNot(equal) : equal;
  }
  if (comparison_type == ComparisonType::kTotalOrder) {
    return b.CreateICmp(IntPredicate(direction, /*is_signed=*/true),
                        EmitTotalOrderKey(b, type, x),
                        EmitTotalOrderKey(b, type, y));
  }
  return b.CreateFCmp(FloatPredicate(direction), EmitToComputeFloat(b, type, x),
                      EmitToComputeFloat(b, type, y));
}

}  // namespace xlite::codegen
