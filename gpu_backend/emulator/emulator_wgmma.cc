// EmulatorTarget's warpgroup tensor-core operations: a wgmma is a call
// into the runtime, which issues it when the whole warpgroup has reached
// it, commits and waits are calls too, and the runtime computes a wgmma
// when its group is waited for (emulator_runtime.h, wgmma_queue.h); the
// accumulators go in and out through an array on the thread's stack.
// Shared addresses are offsets from the block's shared buffer, as on a
// GPU they are offsets in its shared window. Fences, which order nothing
// more here, pass the accumulators through.

#include "gpu_backend/emulator/emulator_target.h"
#include "gpu_backend/emulator/warpgroup_mma.h"

namespace xlite::gpu::emulator {

namespace {

// An i32 array of `acc`'s size at the kernel's entry (each fiber has its
// own stack), holding `acc`.
llvm::Value* StoreRegisters(llvm::IRBuilderBase& b,
                            const std::vector<llvm::Value*>& acc,
                            llvm::Type*& regs) {
  llvm::Function* kernel = b.GetInsertBlock()->getParent();
  llvm::BasicBlock& entry = kernel->getEntryBlock();
  llvm::IRBuilder<> at(&entry, entry.getFirstInsertionPt());
  regs = llvm::ArrayType::get(b.getInt32Ty(), acc.size());
  llvm::Value* array = at.CreateAlloca(regs);
  for (size_t i = 0; i < acc.size(); ++i) {
    b.CreateStore(acc[i], b.CreateConstGEP2_32(regs, array, 0, i));
  }
  return array;
}

// The registers back from the array, typed as `acc`.
std::vector<llvm::Value*> LoadRegisters(llvm::IRBuilderBase& b,
                                        const std::vector<llvm::Value*>& acc,
                                        llvm::Type* regs, llvm::Value* array) {
  std::vector<llvm::Value*> d;
  for (size_t i = 0; i < acc.size(); ++i) {
    d.push_back(b.CreateLoad(acc[i]->getType(),
                             b.CreateConstGEP2_32(regs, array, 0, i)));
  }
  return d;
}

}  // namespace

std::vector<llvm::Value*> EmulatorTarget::Wgmma(
    llvm::IRBuilderBase& b, const codegen::WgmmaShape& shape,
    llvm::Value* desc_a, llvm::Value* desc_b,
    const std::vector<llvm::Value*>& acc) {
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  llvm::Type* regs = nullptr;
  llvm::Value* array = StoreRegisters(b, acc, regs);
  llvm::Type* ptr = b.getPtrTy();
  llvm::FunctionCallee f = m.getOrInsertFunction(
      "xlite_emu_wgmma", b.getVoidTy(), b.getInt32Ty(), b.getInt32Ty(),
      b.getInt64Ty(), b.getInt64Ty(), ptr, ptr);
  const int32_t op =
      WgmmaOpWord(static_cast<int32_t>(shape.kind), shape.n, shape.trans_a,
                  shape.trans_b, static_cast<int32_t>(shape.BKind()));
  // Convergent: a copy of the call (same site number) in two branches
  // would pass the runtime's check.
  b.CreateCall(f, {b.getInt32(op), b.getInt32(++mma_sites_), desc_a, desc_b,
                   array, array})
      ->setConvergent();
  return LoadRegisters(b, acc, regs, array);
}

std::vector<llvm::Value*> EmulatorTarget::WgmmaFence(
    llvm::IRBuilderBase&, const std::vector<llvm::Value*>& acc) {
  return acc;
}

void EmulatorTarget::WgmmaCommit(llvm::IRBuilderBase& b) {
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  b.CreateCall(m.getOrInsertFunction("xlite_emu_wgmma_commit", b.getVoidTy()))
      ->setConvergent();
}

std::vector<llvm::Value*> EmulatorTarget::WgmmaWait(
    llvm::IRBuilderBase& b, int64_t pending,
    const std::vector<llvm::Value*>& acc) {
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  llvm::FunctionCallee f =
      m.getOrInsertFunction("xlite_emu_wgmma_wait", b.getVoidTy(),
                            b.getInt32Ty(), b.getPtrTy(), b.getInt32Ty());
  llvm::Type* regs = nullptr;
  llvm::Value* array = acc.empty()
                           ? llvm::ConstantPointerNull::get(b.getPtrTy())
                           : StoreRegisters(b, acc, regs);
  b.CreateCall(f, {b.getInt32(static_cast<int32_t>(pending)), array,
                   b.getInt32(static_cast<int32_t>(acc.size()))})
      ->setConvergent();
  if (acc.empty()) return {};
  return LoadRegisters(b, acc, regs, array);
}

void EmulatorTarget::FenceProxyAsyncShared(llvm::IRBuilderBase&) {}

void EmulatorTarget::MbarrierInit(llvm::IRBuilderBase& b, llvm::Value* bar,
                                  int64_t count) {
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  b.CreateCall(m.getOrInsertFunction("xlite_emu_mbarrier_init", b.getVoidTy(),
                                     b.getPtrTy(), b.getInt32Ty()),
               {bar, b.getInt32(static_cast<int32_t>(count))});
}

void EmulatorTarget::MbarrierArriveExpectTx(llvm::IRBuilderBase& b,
                                            llvm::Value* bar, int64_t bytes) {
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  b.CreateCall(
      m.getOrInsertFunction("xlite_emu_mbarrier_arrive_expect_tx",
                            b.getVoidTy(), b.getPtrTy(), b.getInt32Ty()),
      {bar, b.getInt32(static_cast<int32_t>(bytes))});
}

void EmulatorTarget::MbarrierArrive(llvm::IRBuilderBase& b, llvm::Value* bar) {
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  b.CreateCall(m.getOrInsertFunction("xlite_emu_mbarrier_arrive", b.getVoidTy(),
                                     b.getPtrTy()),
               {bar});
}

void EmulatorTarget::MbarrierWait(llvm::IRBuilderBase& b, llvm::Value* bar,
                                  llvm::Value* parity) {
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  b.CreateCall(m.getOrInsertFunction("xlite_emu_mbarrier_wait", b.getVoidTy(),
                                     b.getPtrTy(), b.getInt32Ty()),
               {bar, parity});
}

void EmulatorTarget::TensorMapLoad(llvm::IRBuilderBase& b, llvm::Value* dst,
                                   llvm::Value* map,
                                   const std::vector<llvm::Value*>& coords,
                                   llvm::Value* bar) {
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  llvm::Type* array = llvm::ArrayType::get(b.getInt32Ty(), 5);
  llvm::BasicBlock& entry = b.GetInsertBlock()->getParent()->getEntryBlock();
  llvm::IRBuilder<> at(&entry, entry.getFirstInsertionPt());
  llvm::Value* slots = at.CreateAlloca(array);
  for (size_t i = 0; i < coords.size(); ++i) {
    b.CreateStore(coords[i], b.CreateConstGEP2_32(array, slots, 0, i));
  }
  b.CreateCall(
      m.getOrInsertFunction("xlite_emu_tma_load", b.getVoidTy(), b.getPtrTy(),
                            b.getPtrTy(), b.getPtrTy(), b.getPtrTy()),
      {dst, map, slots, bar});
}

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
