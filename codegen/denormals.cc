#include "codegen/denormals.h"

#include "llvm/IR/Constants.h"

namespace xlite::codegen {
namespace {

constexpr char kFlag[] = "xlite.flushes-denormals";

}  // namespace

void EnableFlushedDenormals(llvm::Module& module) {
  if (!FlushesDenormals(module)) {
    module.addModuleFlag(llvm::Module::Max, kFlag, 1);
  }
}

bool FlushesDenormals(const llvm::Module& module) {
  return module.getModuleFlag(kFlag) != nullptr;
}

llvm::Value* EmitReadAsHardware(llvm::IRBuilderBase& b, llvm::Value* x) {
  if (!FlushesDenormals(*b.GetInsertBlock()->getModule())) return x;
  // Exponent field zero: a zero or a subnormal; either way the sign alone.
  llvm::Type* type = x->getType();
  const unsigned bits = type->getScalarSizeInBits();
  llvm::Type* int_type = type->getWithNewType(b.getIntNTy(bits));
  const int mantissa = type->getScalarType()->isFloatTy() ? 23 : 52;
  auto k = [&](const llvm::APInt& v) {
    return llvm::ConstantInt::get(int_type, v);
  };
  const llvm::APInt sign = llvm::APInt::getSignMask(bits);
  const llvm::APInt exponent =
      llvm::APInt::getBitsSet(bits, mantissa, bits - 1);
  llvm::Value* i = b.CreateBitCast(x, int_type);
  llvm::Value* zero_exponent =
      b.CreateICmpEQ(b.CreateAnd(i, k(exponent)), k(llvm::APInt(bits, 0)));
  return b.CreateBitCast(
      b.CreateSelect(zero_exponent, b.CreateAnd(i, k(sign)), i), type);
}

}  // namespace xlite::codegen
