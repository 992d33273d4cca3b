// How one element of each type is held in IR and in memory (the Literal's
// layout): ValueType, EmitLoadElement, EmitStoreElement, ScalarConstant.

#include <cstring>

#include "codegen/scalar_ops.h"

namespace xlite::codegen {
llvm::Type* ValueType(PrimitiveType type, llvm::LLVMContext& context) {
  switch (type) {
    case PrimitiveType::kPred:
      return llvm::Type::getInt1Ty(context);
    case PrimitiveType::kF32:
      return llvm::Type::getFloatTy(context);
    case PrimitiveType::kF64:
      return llvm::Type::getDoubleTy(context);
    case PrimitiveType::kC64: {
      llvm::Type* f = llvm::Type::getFloatTy(context);
      return llvm::StructType::get(context, {f, f});
    }
    case PrimitiveType::kC128: {
      llvm::Type* d = llvm::Type::getDoubleTy(context);
      return llvm::StructType::get(context, {d, d});
    }
    default:
      // Integers of every width and the narrow floats' raw bits.
      return llvm::Type::getIntNTy(context, BitWidth(type));
  }
}

llvm::Value* EmitLoadElement(llvm::IRBuilderBase& b, PrimitiveType type,
                             llvm::Value* address) {
  llvm::LLVMContext& context = b.getContext();
  llvm::Type* value_type = ValueType(type, context);
  if (type == PrimitiveType::kPred) {
    return b.CreateICmpNE(b.CreateLoad(b.getInt8Ty(), address), b.getInt8(0));
  }
  if (BitWidth(type) < 8) {
    // s1..s4, u1..u4, f4e2m1fn: the low bits of their byte.
    return b.CreateTrunc(b.CreateLoad(b.getInt8Ty(), address), value_type);
  }
  return b.CreateLoad(value_type, address);
}

void EmitStoreElement(llvm::IRBuilderBase& b, PrimitiveType type,
                      llvm::Value* value, llvm::Value* address) {
  if (type == PrimitiveType::kPred) {
    b.CreateStore(b.CreateZExt(value, b.getInt8Ty()), address);
    return;
  }
  if (BitWidth(type) < 8) {
    llvm::Value* byte = IsSignedInteger(type)
                            ? b.CreateSExt(value, b.getInt8Ty())
                            : b.CreateZExt(value, b.getInt8Ty());
    b.CreateStore(byte, address);
    return;
  }
  b.CreateStore(value, address);
}

llvm::Constant* ScalarConstant(PrimitiveType type, const uint8_t* storage,
                               llvm::LLVMContext& context) {
  llvm::Type* value_type = ValueType(type, context);
  auto read = [&](int offset, int bytes) {
    uint64_t bits = 0;
    std::memcpy(&bits, storage + offset, bytes);
    return bits;
  };
  switch (type) {
    case PrimitiveType::kPred:
      return llvm::ConstantInt::get(value_type, storage[0] != 0 ? 1 : 0);
    case PrimitiveType::kF32:
    case PrimitiveType::kF64: {
      const int bytes = StorageBytes(type);
      llvm::APInt bits(bytes * 8, read(0, bytes));
      return llvm::ConstantFP::get(
          context, llvm::APFloat(value_type->getFltSemantics(), bits));
    }
    case PrimitiveType::kC64:
    case PrimitiveType::kC128: {
      const PrimitiveType part = ComplexComponentType(type);
      const int bytes = StorageBytes(part);
      return llvm::ConstantStruct::getAnon(
          context, {ScalarConstant(part, storage, context),
                    ScalarConstant(part, storage + bytes, context)});
    }
    default: {
      const int width = BitWidth(type);
      const uint64_t bits = read(0, StorageBytes(type));
      return llvm::ConstantInt::get(
          value_type, width >= 64 ? bits : bits & ((uint64_t{1} << width) - 1));
    }
  }
}

}  // namespace xlite::codegen
