// SliceAliasing: which accesses get which claims.

#include "cpu_backend/alias_scopes.h"

#include <gtest/gtest.h>

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"

namespace xlite::cpu {
namespace {

bool ClaimsNoAlias(llvm::Instruction* a, llvm::Instruction* b) {
  llvm::MDNode* noalias = a->getMetadata(llvm::LLVMContext::MD_noalias);
  llvm::MDNode* scope = b->getMetadata(llvm::LLVMContext::MD_alias_scope);
  if (noalias == nullptr || scope == nullptr) return false;
  for (const llvm::MDOperand& s : scope->operands()) {
    for (const llvm::MDOperand& n : noalias->operands()) {
      if (s.get() == n.get()) return true;
    }
  }
  return false;
}

TEST(SliceAliasing, DisjointSlicesAndOnlyThoseClaimNoAlias) {
  llvm::LLVMContext context;
  llvm::Module module("m", context);
  llvm::Type* ptr = llvm::PointerType::get(context, 0);
  auto* f = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(context), {ptr, ptr},
                              false),
      llvm::GlobalValue::ExternalLinkage, "f", module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", f));
  SliceAliasing aliasing;
  llvm::Value* base = b.CreateLoad(ptr, f->getArg(0));
  llvm::Value* x = base;  // allocation 0, [0, 64)
  llvm::Value* y = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), base, 64);
  llvm::Value* z = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), base, 32);
  llvm::Value* w =
      b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, f->getArg(0), 1));
  aliasing.Note(x, {0, 0, 64});
  aliasing.Note(y, {0, 64, 64});  // beside x
  aliasing.Note(z, {0, 32, 64});  // overlaps x and y
  aliasing.Note(w, {1, 0, 64});   // another allocation
  auto element = [&](llvm::Value* p, int64_t i) {
    return b.CreateInBoundsGEP(b.getFloatTy(), p, b.getInt64(i));
  };
  auto* load_x = b.CreateLoad(b.getFloatTy(), element(x, 3));
  auto* store_y = b.CreateStore(load_x, element(y, 1));
  auto* load_z = b.CreateLoad(b.getFloatTy(), element(z, 0));
  auto* store_w = b.CreateStore(load_z, w);
  auto* untraced = b.CreateLoad(b.getFloatTy(), f->getArg(1));
  b.CreateRetVoid();
  aliasing.Annotate(module);

  EXPECT_TRUE(ClaimsNoAlias(load_x, store_y));
  EXPECT_TRUE(ClaimsNoAlias(store_y, load_x));
  EXPECT_TRUE(ClaimsNoAlias(load_x, store_w));
  EXPECT_TRUE(ClaimsNoAlias(load_z, store_w));
  EXPECT_FALSE(ClaimsNoAlias(load_z, load_x));
  EXPECT_FALSE(ClaimsNoAlias(load_z, store_y));
  EXPECT_FALSE(ClaimsNoAlias(store_y, load_z));
  EXPECT_EQ(untraced->getMetadata(llvm::LLVMContext::MD_alias_scope), nullptr);
  EXPECT_EQ(untraced->getMetadata(llvm::LLVMContext::MD_noalias), nullptr);
}

}  // namespace
}  // namespace xlite::cpu
