#include "gpu_backend/emulator/emulator_target.h"

#include "absl/strings/str_cat.h"
#include "codegen/gpu/kernel_emitter.h"

namespace xlite::gpu::emulator {

using codegen::GridDim;

namespace {

llvm::Value* Sreg(llvm::IRBuilderBase& b, int which) {
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  llvm::FunctionCallee f =
      m.getOrInsertFunction("xlite_emu_sreg", b.getInt32Ty(), b.getInt32Ty());
  if (auto* fn = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
    // Constant within a thread.
    fn->setMemoryEffects(llvm::MemoryEffects::none());
    fn->setDoesNotThrow();
  }
  return b.CreateCall(f, {b.getInt32(which)});
}

int Dim(GridDim d) { return static_cast<int>(d); }

}  // namespace

std::string EmulatorTarget::EntryName(absl::string_view name) {
  return absl::StrCat(name, ".entry");
}

void EmulatorTarget::ConfigureModule(llvm::Module& module) const {
  module.setTargetTriple(triple_);
  module.setDataLayout(data_layout_);
}

llvm::Function* EmulatorTarget::DeclareKernel(
    llvm::Module& module, absl::string_view name,
    const std::vector<codegen::KernelParam>& params, int64_t block_size) {
  llvm::LLVMContext& ctx = module.getContext();
  llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
  std::vector<llvm::Type*> types(params.size(), ptr);
  auto* type =
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), types, false);
  auto* kernel = llvm::Function::Create(type, llvm::Function::ExternalLinkage,
                                        std::string(name), module);
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].noalias) kernel->addParamAttr(i, llvm::Attribute::NoAlias);
    if (params[i].alignment > 0) {
      kernel->addParamAttr(i, llvm::Attribute::getWithAlignment(
                                  ctx, llvm::Align(params[i].alignment)));
    }
  }
  // The entry the runtime calls: kernel(args[0], ..., args[n-1]).
  auto* entry_type =
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr}, false);
  auto* entry = llvm::Function::Create(
      entry_type, llvm::Function::ExternalLinkage, EntryName(name), module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", entry));
  std::vector<llvm::Value*> args;
  for (size_t i = 0; i < params.size(); ++i) {
    args.push_back(
        b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, entry->getArg(0), i)));
  }
  b.CreateCall(kernel, args);
  b.CreateRetVoid();
  llvm::BasicBlock::Create(ctx, "entry", kernel);
  return kernel;
}

llvm::Value* EmulatorTarget::ThreadId(llvm::IRBuilderBase& b, GridDim d) {
  return Sreg(b, 0 + Dim(d));
}
llvm::Value* EmulatorTarget::BlockId(llvm::IRBuilderBase& b, GridDim d) {
  return Sreg(b, 3 + Dim(d));
}
llvm::Value* EmulatorTarget::BlockDim(llvm::IRBuilderBase& b, GridDim d) {
  return Sreg(b, 6 + Dim(d));
}
llvm::Value* EmulatorTarget::GridSize(llvm::IRBuilderBase& b, GridDim d) {
  return Sreg(b, 9 + Dim(d));
}

void EmulatorTarget::Barrier(llvm::IRBuilderBase& b) {
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  b.CreateCall(m.getOrInsertFunction("xlite_emu_barrier", b.getVoidTy()));
}

llvm::Value* EmulatorTarget::ShuffleI32(llvm::IRBuilderBase& b,
                                        codegen::ShuffleKind kind,
                                        llvm::Value* value,
                                        llvm::Value* offset) {
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  llvm::FunctionCallee f =
      m.getOrInsertFunction("xlite_emu_shfl", b.getInt32Ty(), b.getInt32Ty(),
                            b.getInt32Ty(), b.getInt32Ty());
  return b.CreateCall(
      f,
      {b.getInt32(kind == codegen::ShuffleKind::kDown ? 0 : 1), value, offset});
}

std::vector<llvm::Value*> EmulatorTarget::LdMatrix(llvm::IRBuilderBase& b,
                                                   int64_t count,
                                                   llvm::Value* row) {
  llvm::Function* kernel = b.GetInsertBlock()->getParent();
  llvm::Module& m = *kernel->getParent();
  llvm::BasicBlock& entry = kernel->getEntryBlock();
  llvm::IRBuilder<> at(&entry, entry.getFirstInsertionPt());
  llvm::Type* regs = llvm::ArrayType::get(b.getInt32Ty(), 4);
  llvm::Value* out = at.CreateAlloca(regs);
  llvm::FunctionCallee f =
      m.getOrInsertFunction("xlite_emu_ldmatrix", b.getVoidTy(), b.getInt32Ty(),
                            b.getInt32Ty(), b.getPtrTy(), b.getPtrTy());
  // The call site: lanes of a warp must meet at the same one.
  b.CreateCall(f, {b.getInt32(static_cast<int32_t>(count)),
                   b.getInt32(++mma_sites_), row, out})
      ->setConvergent();
  std::vector<llvm::Value*> d;
  for (int64_t i = 0; i < count; ++i) {
    d.push_back(
        b.CreateLoad(b.getInt32Ty(), b.CreateConstGEP2_32(regs, out, 0, i)));
  }
  return d;
}

std::vector<llvm::Value*> EmulatorTarget::Mma(
    llvm::IRBuilderBase& b, codegen::MmaKind kind,
    const std::vector<llvm::Value*>& a, const std::vector<llvm::Value*>& bv,
    const std::vector<llvm::Value*>& c) {
  llvm::Function* kernel = b.GetInsertBlock()->getParent();
  llvm::Module& m = *kernel->getParent();
  // The lane's registers go to the runtime through four arrays at the
  // kernel's entry (each fiber has its own stack).
  llvm::BasicBlock& entry = kernel->getEntryBlock();
  llvm::IRBuilder<> at(&entry, entry.getFirstInsertionPt());
  llvm::Type* regs = llvm::ArrayType::get(b.getInt32Ty(), 4);
  llvm::Value* arrays[4];
  for (llvm::Value*& array : arrays) array = at.CreateAlloca(regs);
  const std::vector<llvm::Value*>* parts[3] = {&a, &bv, &c};
  for (int p = 0; p < 3; ++p) {
    for (size_t i = 0; i < parts[p]->size(); ++i) {
      b.CreateStore((*parts[p])[i],
                    b.CreateConstGEP2_32(regs, arrays[p], 0, i));
    }
  }
  llvm::Type* ptr = b.getPtrTy();
  llvm::FunctionCallee f =
      m.getOrInsertFunction("xlite_emu_mma", b.getVoidTy(), b.getInt32Ty(),
                            b.getInt32Ty(), ptr, ptr, ptr, ptr);
  // The call site: lanes of a warp must meet at the same one.
  b.CreateCall(
      f, {b.getInt32(static_cast<int32_t>(kind)), b.getInt32(++mma_sites_),
          arrays[0], arrays[1], arrays[2], arrays[3]});
  std::vector<llvm::Value*> d;
  for (unsigned i = 0; i < 4; ++i) {
    d.push_back(b.CreateLoad(c[i]->getType(),
                             b.CreateConstGEP2_32(regs, arrays[3], 0, i)));
  }
  return d;
}

void EmulatorTarget::AsyncCopy(llvm::IRBuilderBase& b, llvm::Value* dst,
                               llvm::Value* src, int64_t bytes,
                               llvm::Value* copy) {
  // Recorded now, landed when the thread waits (async_copy_queue.h).
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  llvm::FunctionCallee f =
      m.getOrInsertFunction("xlite_emu_cp_async", b.getVoidTy(), b.getPtrTy(),
                            b.getPtrTy(), b.getInt32Ty(), b.getInt32Ty());
  b.CreateCall(f, {dst, src, b.getInt32(static_cast<int32_t>(bytes)),
                   b.CreateZExt(copy, b.getInt32Ty())});
}

void EmulatorTarget::AsyncCopyWait(llvm::IRBuilderBase& b) {
  AsyncCopyWaitGroup(b, -1);
}

void EmulatorTarget::AsyncCopyCommit(llvm::IRBuilderBase& b) {
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  b.CreateCall(
      m.getOrInsertFunction("xlite_emu_cp_async_commit", b.getVoidTy()));
}

void EmulatorTarget::AsyncCopyWaitGroup(llvm::IRBuilderBase& b,
                                        int64_t pending) {
  // Negative: every copy (AsyncCopyWait).
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  b.CreateCall(m.getOrInsertFunction("xlite_emu_cp_async_wait", b.getVoidTy(),
                                     b.getInt32Ty()),
               {b.getInt32(static_cast<int32_t>(pending))});
}

llvm::Value* EmulatorTarget::SharedArray(llvm::IRBuilderBase& b, int64_t bytes,
                                         int64_t alignment,
                                         absl::string_view name) {
  llvm::Function* kernel = b.GetInsertBlock()->getParent();
  int64_t& used = SharedBytesOf(kernel);
  const int64_t align = std::max<int64_t>(alignment, 1);
  const int64_t offset = (used + align - 1) / align * align;
  used = offset + bytes;
  llvm::Module& m = *kernel->getParent();
  // The base, once per kernel, at its entry.
  llvm::BasicBlock& entry = kernel->getEntryBlock();
  llvm::IRBuilder<> at(&entry, entry.getFirstInsertionPt());
  llvm::Value* base =
      at.CreateCall(m.getOrInsertFunction("xlite_emu_shared", at.getPtrTy()));
  return at.CreateConstGEP1_64(at.getInt8Ty(), base, offset, std::string(name));
}

llvm::Value* EmulatorTarget::DynamicSharedArray(llvm::IRBuilderBase& b,
                                                int64_t bytes,
                                                int64_t alignment,
                                                absl::string_view name) {
  // One buffer per block holds every array, static or dynamic, sized by
  // the launch's shared bytes (the kernel's SharedBytes()).
  return SharedArray(b, bytes, alignment, name);
}

absl::StatusOr<std::string> EmulatorTarget::MathFunction(
    absl::string_view name) const {
  if (codegen::IsGpuMathFunction(name)) return std::string(name);
  return absl::UnimplementedError(absl::StrCat("libdevice has no __nv_", name));
}

}  // namespace xlite::gpu::emulator
