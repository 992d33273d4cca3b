#include "codegen/contraction_arithmetic.h"

#include <algorithm>

#include "codegen/scalar_ops.h"

namespace xlite::codegen {

namespace {

bool IsRealFloat(PrimitiveType t) {
  return IsFloatingPoint(t) && !IsComplex(t);
}

}  // namespace

PrimitiveType ContractionAccumulationType(PrimitiveType lhs, PrimitiveType rhs,
                                          PrimitiveType result) {
  if (!IsRealFloat(lhs) || !IsRealFloat(rhs) || !IsRealFloat(result)) {
    return result;
  }
  const int widest = std::max({BitWidth(lhs), BitWidth(rhs), BitWidth(result)});
  return widest > 32 ? PrimitiveType::kF64 : PrimitiveType::kF32;
}

llvm::Value* EmitMultiplyAccumulate(llvm::IRBuilderBase& b, PrimitiveType type,
                                    llvm::Value* acc, llvm::Value* x,
                                    llvm::Value* y) {
  if (IsComplex(type)) {
    auto part = [&](llvm::Value* v, unsigned i) {
      return b.CreateExtractValue(v, i);
    };
    llvm::Value* re = b.CreateFSub(b.CreateFMul(part(x, 0), part(y, 0)),
                                   b.CreateFMul(part(x, 1), part(y, 1)));
    llvm::Value* im = b.CreateFAdd(b.CreateFMul(part(x, 0), part(y, 1)),
                                   b.CreateFMul(part(x, 1), part(y, 0)));
    llvm::Value* out =
        b.CreateInsertValue(acc, b.CreateFAdd(part(acc, 0), re), 0);
    return b.CreateInsertValue(out, b.CreateFAdd(part(acc, 1), im), 1);
  }
  if (type == PrimitiveType::kF32 || type == PrimitiveType::kF64) {
    return b.CreateFAdd(acc, b.CreateFMul(x, y));
  }
  if (type == PrimitiveType::kPred) {
    return b.CreateOr(acc, b.CreateAnd(x, y));
  }
  return b.CreateAdd(acc, b.CreateMul(x, y));
}

absl::StatusOr<llvm::Value*> EmitRoundAccumulated(
    llvm::IRBuilderBase& b, PrimitiveType acc, PrimitiveType lhs,
    PrimitiveType rhs, PrimitiveType result, llvm::Value* value) {
  if (acc == result) return value;
  if (IsFloatingPoint(result) && BitWidth(result) <= 8 &&
      result != PrimitiveType::kF8E8M0FNU && BitWidth(lhs) <= 16 &&
      BitWidth(rhs) <= 16) {
    absl::StatusOr<llvm::Value*> half =
        EmitConvert(b, acc, PrimitiveType::kF16, value);
    if (!half.ok()) return half.status();
    return EmitConvert(b, PrimitiveType::kF16, result, *half);
  }
  return EmitConvert(b, acc, result, value);
}

}  // namespace xlite::codegen
