#include "codegen/ldexp.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

namespace xlite::codegen {
namespace {

constexpr char kFlag[] = "xlite.ldexp-calls";
constexpr int kVariantLanes[] = {4, 8, 16};

bool CallsEnabled(const llvm::Module& module) {
  return module.getModuleFlag(kFlag) != nullptr;
}

// The scalar declaration, with its vector variants declared and kept
// (llvm.compiler.used) until the vectorizers have run: unused declarations
// are otherwise dropped early, and with them the mapping.
llvm::Function* LdexpDeclaration(llvm::Module& module) {
  if (llvm::Function* f = module.getFunction(kLdexpFunction)) return f;
  llvm::LLVMContext& context = module.getContext();
  llvm::Type* f32 = llvm::Type::getFloatTy(context);
  auto declare = [&](llvm::Type* type, llvm::StringRef name) {
    auto* f = llvm::Function::Create(
        llvm::FunctionType::get(type, {type, type}, false),
        llvm::GlobalValue::ExternalLinkage, name, module);
    f->addFnAttr(llvm::Attribute::NoUnwind);
    f->addFnAttr(llvm::Attribute::WillReturn);
    f->setDoesNotAccessMemory();
    return f;
  };
  llvm::Function* scalar = declare(f32, kLdexpFunction);
  std::vector<llvm::GlobalValue*> variants;
  for (int lanes : kVariantLanes) {
    variants.push_back(
        declare(llvm::FixedVectorType::get(f32, lanes),
                absl::StrCat(kLdexpVariantPrefix, lanes, "f32")));
  }
  llvm::appendToCompilerUsed(module, variants);
  return scalar;
}

// The vector-function ABI names that map the scalar call to its variants.
std::string VariantMappings() {
  std::string mappings;
  for (int lanes : kVariantLanes) {
    absl::StrAppend(&mappings, mappings.empty() ? "" : ",", "_ZGV_LLVM_N",
                    lanes, "vv_", kLdexpFunction, "(", kLdexpVariantPrefix,
                    lanes, "f32)");
  }
  return mappings;
}

}  // namespace

void EnableLdexpCalls(llvm::Module& module) {
  if (!CallsEnabled(module)) {
    module.addModuleFlag(llvm::Module::Max, kFlag, 1);
  }
}

llvm::Value* EmitLdexp(llvm::IRBuilderBase& b, llvm::Value* p, llvm::Value* n) {
  llvm::Module& module = *b.GetInsertBlock()->getModule();
  if (!CallsEnabled(module) || p->getType()->isVectorTy()) {
    return ExpandLdexp(b, p, n);
  }
  llvm::CallInst* call = b.CreateCall(LdexpDeclaration(module), {p, n});
  call->addFnAttr(llvm::Attribute::get(
      b.getContext(), "vector-function-abi-variant", VariantMappings()));
  return call;
}

llvm::Value* ExpandLdexp(llvm::IRBuilderBase& b, llvm::Value* p,
                         llvm::Value* n) {
  llvm::Type* int_type = p->getType()->getWithNewType(b.getInt32Ty());
  auto k = [&](int32_t v) { return llvm::ConstantInt::get(int_type, v); };
  // A NaN n would make the conversion poison; p is NaN then anyway.
  llvm::Value* finite_n = b.CreateSelect(
      b.CreateFCmpUNO(n, n), llvm::ConstantFP::get(n->getType(), 0.0), n);
  llvm::Value* ni = b.CreateFPToSI(finite_n, int_type);
  // n = n1 + n2, n1 = floor(n / 2): both in [-76, 64], so each 2^k is a
  // normal float and p 2^n1 is exact; the second product rounds once.
  llvm::Value* n1 = b.CreateAShr(ni, k(1));
  llvm::Value* n2 = b.CreateSub(ni, n1);
  auto pow2 = [&](llvm::Value* e) {
    return b.CreateBitCast(b.CreateShl(b.CreateAdd(e, k(127)), k(23)),
                           p->getType());
  };
  return b.CreateFMul(b.CreateFMul(p, pow2(n1)), pow2(n2));
}

}  // namespace xlite::codegen
