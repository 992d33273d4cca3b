#include "cpu_backend/read_ahead.h"

#include <utility>
#include <vector>

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"

namespace xlite::cpu {
namespace {

// Whether `load`'s alias scope list names `scope`.
bool InScope(const llvm::LoadInst& load, const llvm::MDNode* scope) {
  const llvm::MDNode* scopes =
      load.getMetadata(llvm::LLVMContext::MD_alias_scope);
  if (scopes == nullptr) return false;
  for (const llvm::MDOperand& op : scopes->operands()) {
    if (op.get() == scope) return true;
  }
  return false;
}

}  // namespace

void AddReadAhead(llvm::Function& f, llvm::MDNode* scope, int64_t bytes) {
  llvm::LLVMContext& context = f.getContext();
  std::vector<llvm::Metadata*> entries;
  if (llvm::MDNode* old = f.getMetadata(kReadAheadMetadata)) {
    for (const llvm::MDOperand& op : old->operands()) entries.push_back(op);
  }
  entries.push_back(llvm::MDNode::get(
      context, {scope, llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(
                           llvm::Type::getInt64Ty(context), bytes))}));
  f.setMetadata(kReadAheadMetadata, llvm::MDNode::get(context, entries));
}

llvm::PreservedAnalyses InsertReadAheadPrefetches::run(
    llvm::Function& f, llvm::FunctionAnalysisManager&) {
  llvm::MDNode* requests = f.getMetadata(kReadAheadMetadata);
  if (requests == nullptr) return llvm::PreservedAnalyses::all();
  std::vector<std::pair<const llvm::MDNode*, int64_t>> wanted;
  for (const llvm::MDOperand& op : requests->operands()) {
    auto* entry = llvm::cast<llvm::MDNode>(op.get());
    auto* bytes =
        llvm::mdconst::extract<llvm::ConstantInt>(entry->getOperand(1));
    wanted.push_back({llvm::cast<llvm::MDNode>(entry->getOperand(0).get()),
                      bytes->getSExtValue()});
  }
  std::vector<std::pair<llvm::LoadInst*, int64_t>> loads;
  for (llvm::BasicBlock& block : f) {
    for (llvm::Instruction& i : block) {
      auto* load = llvm::dyn_cast<llvm::LoadInst>(&i);
      // Vector loads only: the scalar remainders would prefetch each line
      // many times.
      if (load == nullptr || !load->getType()->isVectorTy()) continue;
      for (const auto& [scope, bytes] : wanted) {
        if (InScope(*load, scope)) loads.push_back({load, bytes});
      }
    }
  }
  for (const auto& [load, bytes] : loads) {
    llvm::IRBuilder<> b(load);
    llvm::Value* ahead = b.CreateGEP(b.getInt8Ty(), load->getPointerOperand(),
                                     b.getInt64(bytes));
    // A read, kept in every cache level (the next block's first member
    // reads it soon), of data.
    b.CreateIntrinsic(llvm::Intrinsic::prefetch, {ahead->getType()},
                      {ahead, b.getInt32(0), b.getInt32(3), b.getInt32(1)});
  }
  f.setMetadata(kReadAheadMetadata, nullptr);
  return loads.empty() ? llvm::PreservedAnalyses::all()
                       : llvm::PreservedAnalyses::none();
}

}  // namespace xlite::cpu
