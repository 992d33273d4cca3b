#include "cpu_backend/ldexp_lowering.h"

#include <vector>

#include "codegen/ldexp.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

namespace xlite::cpu {
namespace {

bool HasFeature(const llvm::TargetMachine* machine, llvm::StringRef feature) {
  if (machine == nullptr) return false;
  llvm::SmallVector<llvm::StringRef> features;
  machine->getTargetFeatureString().split(features, ',');
  return llvm::is_contained(features, feature);
}

bool IsLdexpFunction(const llvm::Function& f) {
  return f.getName() == codegen::kLdexpFunction ||
         f.getName().starts_with(codegen::kLdexpVariantPrefix);
}

// vscalefps p, n (p 2^floor(n), rounded once as MXCSR says: to nearest).
llvm::Value* EmitScalef(llvm::IRBuilderBase& b, llvm::Value* p, llvm::Value* n,
                        unsigned lanes) {
  llvm::Intrinsic::ID id =
      lanes == 16  ? llvm::Intrinsic::x86_avx512_mask_scalef_ps_512
      : lanes == 8 ? llvm::Intrinsic::x86_avx512_mask_scalef_ps_256
                   : llvm::Intrinsic::x86_avx512_mask_scalef_ps_128;
  llvm::Value* all_lanes = lanes == 16 ? b.getInt16(0xffff) : b.getInt8(0xff);
  std::vector<llvm::Value*> args = {p, n, llvm::PoisonValue::get(p->getType()),
                                    all_lanes};
  // The 512-bit form takes a rounding operand: 4, the current direction.
  if (lanes == 16) args.push_back(b.getInt32(4));
  return b.CreateIntrinsic(id, {}, args);
}

}  // namespace

LowerLdexpCalls::LowerLdexpCalls(const llvm::TargetMachine* machine)
    : avx512f_(HasFeature(machine, "+avx512f")),
      avx512vl_(HasFeature(machine, "+avx512vl")) {}

llvm::PreservedAnalyses LowerLdexpCalls::run(llvm::Module& module,
                                             llvm::ModuleAnalysisManager&) {
  std::vector<llvm::Function*> functions;
  for (llvm::Function& f : module) {
    if (f.isDeclaration() && IsLdexpFunction(f)) functions.push_back(&f);
  }
  if (functions.empty()) return llvm::PreservedAnalyses::all();
  llvm::removeFromUsedLists(module, [](llvm::Constant* c) {
    auto* f = llvm::dyn_cast<llvm::Function>(c->stripPointerCasts());
    return f != nullptr && IsLdexpFunction(*f);
  });
  for (llvm::Function* f : functions) {
    std::vector<llvm::CallInst*> calls;
    for (llvm::User* user : f->users()) {
      if (auto* call = llvm::dyn_cast<llvm::CallInst>(user)) {
        calls.push_back(call);
      }
    }
    for (llvm::CallInst* call : calls) {
      llvm::IRBuilder<> b(call);
      llvm::Value* p = call->getArgOperand(0);
      llvm::Value* n = call->getArgOperand(1);
      auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(p->getType());
      unsigned lanes = vector == nullptr ? 1 : vector->getNumElements();
      bool scalef = avx512f_ &&
                    (lanes == 16 || ((lanes == 8 || lanes == 4) && avx512vl_));
      llvm::Value* result =
          scalef ? EmitScalef(b, p, n, lanes) : codegen::ExpandLdexp(b, p, n);
      call->replaceAllUsesWith(result);
      call->eraseFromParent();
    }
    if (f->use_empty()) f->eraseFromParent();
  }
  return llvm::PreservedAnalyses::none();
}

}  // namespace xlite::cpu
