#include "codegen/math_library.h"

#include <string>
#include <vector>

#include "llvm/IR/Module.h"

namespace xlite::codegen {
namespace {

llvm::Module& CurrentModule(llvm::IRBuilderBase& b) {
  return *b.GetInsertBlock()->getModule();
}

}  // namespace

llvm::Value* EmitLibmCall(llvm::IRBuilderBase& b, absl::string_view name,
                          absl::Span<llvm::Value* const> args,
                          llvm::Type* result_type) {
  std::vector<llvm::Type*> params;
  for (llvm::Value* arg : args) params.push_back(arg->getType());
  auto* type = llvm::FunctionType::get(result_type, params, false);
  llvm::FunctionCallee callee = CurrentModule(b).getOrInsertFunction(
      llvm::StringRef(name.data(), name.size()), type);
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    // libm functions may set errno, which nothing here reads: let LLVM move
    // and drop them like pure functions (it may not change their values).
    f->setDoesNotThrow();
    f->setMemoryEffects(llvm::MemoryEffects::none());
  }
  return b.CreateCall(callee,
                      std::vector<llvm::Value*>(args.begin(), args.end()));
}

llvm::Value* EmitMathCall(llvm::IRBuilderBase& b, absl::string_view name,
                          absl::Span<llvm::Value* const> args) {
  llvm::Type* type = args[0]->getType();
  std::string symbol(name);
  if (type->isFloatTy()) symbol += "f";
  return EmitLibmCall(b, symbol, args, type);
}

void EmitRuntimeCall(llvm::IRBuilderBase& b, absl::string_view name,
                     absl::Span<llvm::Value* const> pointers) {
  std::vector<llvm::Type*> params(pointers.size(), b.getPtrTy());
  auto* type = llvm::FunctionType::get(b.getVoidTy(), params, false);
  llvm::FunctionCallee callee = CurrentModule(b).getOrInsertFunction(
      llvm::StringRef(name.data(), name.size()), type);
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    f->setDoesNotThrow();
    // Reads its inputs, writes its outputs; nothing else.
    f->setMemoryEffects(llvm::MemoryEffects::argMemOnly());
  }
  b.CreateCall(callee,
               std::vector<llvm::Value*>(pointers.begin(), pointers.end()));
}

llvm::AllocaInst* EmitEntryAlloca(llvm::IRBuilderBase& b, llvm::Type* type) {
  llvm::Function* function = b.GetInsertBlock()->getParent();
  llvm::BasicBlock& entry = function->getEntryBlock();
  llvm::IRBuilder<> entry_builder(&entry, entry.getFirstInsertionPt());
  return entry_builder.CreateAlloca(type);
}

}  // namespace xlite::codegen
