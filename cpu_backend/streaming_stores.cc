#include "cpu_backend/streaming_stores.h"

#include <vector>

#include "codegen/loops.h"
#include "hlo/ir/primitive_type.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

namespace xlite::cpu {

namespace {

// True when a walk in layout order splits along the minor dimension: every
// other dimension is 1.
bool SplitAlongMinor(const Shape& result) {
  const llvm::SmallVector<int64_t, 6> order = codegen::MajorToMinor(result);
  for (int64_t d : order) {
    if (result.dimensions(d) > 1 && d != order.back()) return false;
  }
  return true;
}

}  // namespace

bool StreamsResult(const Shape& result,
                   const std::optional<codegen::Tiling>& tiling) {
  if (!result.IsArray() || result.ByteSizeOfElements() < kStreamingResultBytes)
    return false;
  const int bits = BitWidth(result.element_type());
  if (bits < 8 || bits % 8 != 0) return false;
  const int64_t bytes = bits / 8;
  const llvm::SmallVector<int64_t, 6> order = codegen::MajorToMinor(result);
  if (order.empty()) return false;
  if (!tiling && SplitAlongMinor(result)) return true;  // AlignStreamingRange
  const int64_t row = result.dimensions(order.back()) * bytes;
  if (row % kStreamingAlignment != 0) return false;
  if (!tiling) return true;
  // A tiled walk's innermost loop runs along the result's minor dimension
  // within a tile: each tile's rows start at a multiple of its side.
  return tiling->minor == order.back() &&
         tiling->Side(tiling->minor) * bytes % kStreamingAlignment == 0;
}

void MarkStreamingVersion(llvm::Function& f) {
  f.addFnAttr(kStreamingAttribute);
  // Inlined into its dispatcher, the attribute would be lost.
  f.addFnAttr(llvm::Attribute::NoInline);
}

void AssumeStreamingAlignment(llvm::IRBuilderBase& b,
                              const codegen::IrArray& out) {
  const llvm::DataLayout& layout =
      b.GetInsertBlock()->getModule()->getDataLayout();
  b.CreateAlignmentAssumption(layout, out.base(), kStreamingAlignment);
}

llvm::PreservedAnalyses MarkStreamingStores::run(
    llvm::Function& f, llvm::FunctionAnalysisManager&) {
  if (!f.hasFnAttribute(kStreamingAttribute)) {
    return llvm::PreservedAnalyses::all();
  }
  llvm::LLVMContext& context = f.getContext();
  llvm::MDNode* marker = llvm::MDNode::get(
      context, llvm::ConstantAsMetadata::get(
                   llvm::ConstantInt::get(llvm::Type::getInt32Ty(context), 1)));
  const llvm::DataLayout& layout = f.getParent()->getDataLayout();
  bool changed = false;
  for (llvm::BasicBlock& block : f) {
    for (llvm::Instruction& i : block) {
      auto* store = llvm::dyn_cast<llvm::StoreInst>(&i);
      if (store == nullptr || store->isVolatile()) continue;
      llvm::Type* type = store->getValueOperand()->getType();
      if (!type->isVectorTy()) continue;
      const uint64_t bytes = layout.getTypeStoreSize(type).getFixedValue();
      // Scalar remainders and unaligned vectors stay ordinary stores (an
      // unaligned streaming store becomes scalar ones); so do the tiles
      // staged on the stack, which are read again at once.
      if (bytes < 16 || store->getAlign().value() < bytes) continue;
      if (llvm::isa<llvm::AllocaInst>(
              llvm::getUnderlyingObject(store->getPointerOperand()))) {
        continue;
      }
      store->setMetadata(llvm::LLVMContext::MD_nontemporal, marker);
      changed = true;
    }
  }
  return changed ? llvm::PreservedAnalyses::none()
                 : llvm::PreservedAnalyses::all();
}

codegen::SplitRange AlignStreamingRange(
    llvm::IRBuilderBase& b, const codegen::SplitRange& range,
    const Shape& result, const std::optional<codegen::Tiling>& tiling) {
  // Whole tiles or rows start aligned (StreamsResult).
  if (tiling || !SplitAlongMinor(result)) return range;
  const llvm::SmallVector<int64_t, 6> order = codegen::MajorToMinor(result);
  const int64_t step =
      kStreamingAlignment / (BitWidth(result.element_type()) / 8);
  const int64_t n = result.dimensions(order.back());
  auto up = [&](llvm::Value* x) {
    llvm::Value* rounded =
        b.CreateAnd(b.CreateAdd(x, b.getInt64(step - 1)), b.getInt64(-step));
    return b.CreateSelect(b.CreateICmpSGT(rounded, b.getInt64(n)),
                          b.getInt64(n), rounded);
  };
  return {up(range.begin), up(range.end)};
}

void EmitStreamingFence(llvm::IRBuilderBase& b) {
  // A sequentially consistent fence is an mfence on x86, which drains the
  // write-combining buffers that streaming stores go through.
  b.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
}

void EmitAlignmentDispatch(llvm::IRBuilderBase& b, llvm::Function* dispatcher,
                           llvm::Value* result_base, llvm::Function* streaming,
                           llvm::Function* plain) {
  llvm::LLVMContext& context = b.getContext();
  llvm::Value* address = b.CreatePtrToInt(result_base, b.getInt64Ty());
  llvm::Value* aligned = b.CreateICmpEQ(
      b.CreateAnd(address, b.getInt64(kStreamingAlignment - 1)), b.getInt64(0));
  auto* stream = llvm::BasicBlock::Create(context, "streaming", dispatcher);
  auto* store = llvm::BasicBlock::Create(context, "plain", dispatcher);
  b.CreateCondBr(aligned, stream, store);
  std::vector<llvm::Value*> args;
  for (llvm::Argument& arg : dispatcher->args()) args.push_back(&arg);
  b.SetInsertPoint(stream);
  b.CreateCall(streaming, args);
  b.CreateRetVoid();
  b.SetInsertPoint(store);
  b.CreateCall(plain, args);
  b.CreateRetVoid();
}

}  // namespace xlite::cpu
