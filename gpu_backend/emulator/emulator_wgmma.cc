// EmulatorTarget's warpgroup tensor-core operations: a wgmma is a call
// into the runtime, which computes it when the whole warpgroup has
// reached it (emulator_runtime.h, warpgroup_mma.h); shared addresses are
// offsets from the block's shared buffer, as on a GPU they are offsets in
// its shared window. The runtime computes a wgmma at once, so the fences
// and waits, which order nothing more here, pass the accumulators through.

#include "gpu_backend/emulator/emulator_target.h"
#include "gpu_backend/emulator/warpgroup_mma.h"

namespace xlite::gpu::emulator {

std::vector<llvm::Value*> EmulatorTarget::Wgmma(
    llvm::IRBuilderBase& b, const codegen::WgmmaShape& shape,
    llvm::Value* desc_a, llvm::Value* desc_b,
    const std::vector<llvm::Value*>& acc) {
  llvm::Function* kernel = b.GetInsertBlock()->getParent();
  llvm::Module& m = *kernel->getParent();
  // The thread's accumulators go to the runtime through an array at the
  // kernel's entry (each fiber has its own stack).
  llvm::BasicBlock& entry = kernel->getEntryBlock();
  llvm::IRBuilder<> at(&entry, entry.getFirstInsertionPt());
  llvm::Type* regs = llvm::ArrayType::get(b.getInt32Ty(), acc.size());
  llvm::Value* array = at.CreateAlloca(regs);
  for (size_t i = 0; i < acc.size(); ++i) {
    b.CreateStore(acc[i], b.CreateConstGEP2_32(regs, array, 0, i));
  }
  llvm::Type* ptr = b.getPtrTy();
  llvm::FunctionCallee f = m.getOrInsertFunction(
      "xlite_emu_wgmma", b.getVoidTy(), b.getInt32Ty(), b.getInt32Ty(),
      b.getInt64Ty(), b.getInt64Ty(), ptr, ptr);
  const int32_t op = WgmmaOpWord(static_cast<int32_t>(shape.kind), shape.n,
                                 shape.trans_a, shape.trans_b,
                                 static_cast<int32_t>(shape.BKind()));
  // Convergent: a copy of the call (same site number) in two branches
  // would pass the runtime's check.
  b.CreateCall(f, {b.getInt32(op), b.getInt32(++mma_sites_), desc_a, desc_b,
                   array, array})
      ->setConvergent();
  std::vector<llvm::Value*> d;
  for (size_t i = 0; i < acc.size(); ++i) {
    d.push_back(b.CreateLoad(acc[i]->getType(),
                             b.CreateConstGEP2_32(regs, array, 0, i)));
  }
  return d;
}

std::vector<llvm::Value*> EmulatorTarget::WgmmaFence(
    llvm::IRBuilderBase&, const std::vector<llvm::Value*>& acc) {
  return acc;
}

void EmulatorTarget::WgmmaCommit(llvm::IRBuilderBase&) {}

std::vector<llvm::Value*> EmulatorTarget::WgmmaWait(
    llvm::IRBuilderBase&, int64_t, const std::vector<llvm::Value*>& acc) {
  return acc;
}

void EmulatorTarget::FenceProxyAsyncShared(llvm::IRBuilderBase&) {}

llvm::Value* EmulatorTarget::SharedAddress(llvm::IRBuilderBase& b,
                                           llvm::Value* pointer) {
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  llvm::Value* base =
      b.CreateCall(m.getOrInsertFunction("xlite_emu_shared", b.getPtrTy()));
  llvm::Value* offset = b.CreateSub(b.CreatePtrToInt(pointer, b.getInt64Ty()),
                                    b.CreatePtrToInt(base, b.getInt64Ty()));
  return b.CreateTrunc(offset, b.getInt32Ty());
}

}  // namespace xlite::gpu::emulator
