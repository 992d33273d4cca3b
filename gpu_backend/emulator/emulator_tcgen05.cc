// EmulatorTarget's Blackwell tensor-core operations: each a call into the
// runtime (emulator_runtime.h), which keeps the block's tensor memory and
// the multiplies in flight (tensor_memory.h). The fences order nothing
// more here.

#include "gpu_backend/emulator/emulator_target.h"
#include "gpu_backend/emulator/tensor_memory.h"

namespace xlite::gpu::emulator {
namespace {

Tcgen05Kind KindOf(codegen::WgmmaKind kind) {
  switch (kind) {
    case codegen::WgmmaKind::kTF32:
      return Tcgen05Kind::kTf32;
    case codegen::WgmmaKind::kE4M3:
    case codegen::WgmmaKind::kE5M2:
      return Tcgen05Kind::kF8f6f4;
    case codegen::WgmmaKind::kS8:
      return Tcgen05Kind::kI8;
    default:
      return Tcgen05Kind::kF16;
  }
}

}  // namespace

void EmulatorTarget::TmemAlloc(llvm::IRBuilderBase& b, llvm::Value* slot,
                               int64_t columns) {
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  b.CreateCall(m.getOrInsertFunction("xlite_emu_tmem_alloc", b.getVoidTy(),
                                     b.getPtrTy(), b.getInt32Ty()),
               {slot, b.getInt32(static_cast<int32_t>(columns))});
}

void EmulatorTarget::TmemDealloc(llvm::IRBuilderBase& b, llvm::Value* address,
                                 int64_t columns) {
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  b.CreateCall(m.getOrInsertFunction("xlite_emu_tmem_dealloc", b.getVoidTy(),
                                     b.getInt32Ty(), b.getInt32Ty()),
               {address, b.getInt32(static_cast<int32_t>(columns))});
}

void EmulatorTarget::Tcgen05Mma(llvm::IRBuilderBase& b,
                                const codegen::WgmmaShape& shape,
                                llvm::Value* tmem, llvm::Value* desc_a,
                                llvm::Value* desc_b, llvm::Value* accumulate) {
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  llvm::FunctionCallee f = m.getOrInsertFunction(
      "xlite_emu_tcgen05_mma", b.getVoidTy(), b.getInt32Ty(), b.getInt32Ty(),
      b.getInt32Ty(), b.getInt64Ty(), b.getInt64Ty(), b.getInt32Ty());
  const uint32_t idesc = codegen::Tcgen05InstructionDescriptor(shape);
  b.CreateCall(f, {b.getInt32(static_cast<int32_t>(KindOf(shape.kind))),
                   b.getInt32(static_cast<int32_t>(idesc)), tmem, desc_a,
                   desc_b, b.CreateZExt(accumulate, b.getInt32Ty())});
}

void EmulatorTarget::Tcgen05Commit(llvm::IRBuilderBase& b, llvm::Value* bar) {
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  b.CreateCall(m.getOrInsertFunction("xlite_emu_tcgen05_commit", b.getVoidTy(),
                                     b.getPtrTy()),
               {bar});
}

std::vector<llvm::Value*> EmulatorTarget::Tcgen05Load(llvm::IRBuilderBase& b,
                                                      llvm::Value* address,
                                                      int64_t count) {
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  llvm::BasicBlock& entry = b.GetInsertBlock()->getParent()->getEntryBlock();
  llvm::IRBuilder<> at(&entry, entry.getFirstInsertionPt());
  llvm::Type* regs = llvm::ArrayType::get(b.getInt32Ty(), count);
  llvm::Value* array = at.CreateAlloca(regs);
  b.CreateCall(
       m.getOrInsertFunction("xlite_emu_tcgen05_ld", b.getVoidTy(),
                             b.getInt32Ty(), b.getInt32Ty(), b.getPtrTy()),
       {address, b.getInt32(static_cast<int32_t>(count)), array})
      ->setConvergent();
  std::vector<llvm::Value*> out;
  for (int64_t i = 0; i < count; ++i) {
    out.push_back(b.CreateLoad(
        b.getInt32Ty(),
        b.CreateConstGEP2_32(regs, array, 0, static_cast<unsigned>(i))));
  }
  return out;
}

void EmulatorTarget::Tcgen05Fence(llvm::IRBuilderBase&, bool) {}

}  // namespace xlite::gpu::emulator
