#include "cpu_backend/alias_scopes.h"

#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "cpu_backend/read_ahead.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Operator.h"

namespace xlite::cpu {
namespace {

// Functions touching more slices than this get no claims (the metadata
// grows with the square of the count).
constexpr size_t kMaxSlicesPerFunction = 96;

using SliceKey = std::tuple<int, int64_t, int64_t>;

SliceKey KeyOf(const runtime::Slice& s) {
  return {s.allocation, s.offset, s.size};
}

bool Disjoint(const runtime::Slice& a, const runtime::Slice& b) {
  return a.allocation != b.allocation || a.offset + a.size <= b.offset ||
         b.offset + b.size <= a.offset;
}

llvm::Value* PointerOf(llvm::Instruction& instruction) {
  if (auto* load = llvm::dyn_cast<llvm::LoadInst>(&instruction)) {
    return load->getPointerOperand();
  }
  if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&instruction)) {
    return store->getPointerOperand();
  }
  return nullptr;
}

}  // namespace

const runtime::Slice* SliceAliasing::SliceOf(llvm::Value* pointer) const {
  for (int depth = 0; depth < 32 && pointer != nullptr; ++depth) {
    if (auto it = slices_.find(pointer); it != slices_.end()) {
      return &it->second;
    }
    if (auto* gep = llvm::dyn_cast<llvm::GEPOperator>(pointer)) {
      pointer = gep->getPointerOperand();
    } else {
      return nullptr;
    }
  }
  return nullptr;
}

void SliceAliasing::AnnotateFunction(llvm::Function& function,
                                     llvm::MDNode* domain) const {
  std::vector<std::pair<llvm::Instruction*, const runtime::Slice*>> accesses;
  std::map<SliceKey, const runtime::Slice*> slices;
  for (llvm::BasicBlock& block : function) {
    for (llvm::Instruction& instruction : block) {
      llvm::Value* pointer = PointerOf(instruction);
      if (pointer == nullptr) continue;
      if (const runtime::Slice* slice = SliceOf(pointer)) {
        accesses.push_back({&instruction, slice});
        slices.emplace(KeyOf(*slice), slice);
      }
    }
  }
  if (slices.size() < 2 || slices.size() > kMaxSlicesPerFunction) return;
  llvm::LLVMContext& context = function.getContext();
  llvm::MDBuilder md(context);
  std::map<SliceKey, llvm::MDNode*> scopes;
  for (const auto& [key, slice] : slices) {
    scopes[key] = md.createAnonymousAliasScope(domain);
  }
  std::map<SliceKey, std::pair<llvm::MDNode*, llvm::MDNode*>> lists;
  for (const auto& [key, slice] : slices) {
    std::vector<llvm::Metadata*> others;
    for (const auto& [other_key, other] : slices) {
      if (Disjoint(*slice, *other)) others.push_back(scopes[other_key]);
    }
    lists[key] = {llvm::MDNode::get(context, {scopes[key]}),
                  llvm::MDNode::get(context, others)};
  }
  for (const auto& [instruction, slice] : accesses) {
    const auto& [scope, noalias] = lists[KeyOf(*slice)];
    instruction->setMetadata(llvm::LLVMContext::MD_alias_scope, scope);
    instruction->setMetadata(llvm::LLVMContext::MD_noalias, noalias);
  }
  if (auto it = read_ahead_.find(&function); it != read_ahead_.end()) {
    for (const auto& [slice, bytes] : it->second) {
      if (auto s = scopes.find(KeyOf(slice)); s != scopes.end()) {
        AddReadAhead(function, s->second, bytes);
      }
    }
  }
}

void SliceAliasing::Annotate(llvm::Module& module) const {
  llvm::MDBuilder md(module.getContext());
  llvm::MDNode* domain = md.createAnonymousAliasScopeDomain("xlite.buffers");
  for (llvm::Function& function : module) {
    if (!function.isDeclaration()) AnnotateFunction(function, domain);
  }
}

}  // namespace xlite::cpu
