// NvptxTarget's Blackwell tensor-core operations (tcgen05, sm_100a) as
// inline PTX. LLVM 19 emits PTX up to ISA 8.5 for sm_90 at most; a module
// that uses them is retargeted to ISA 8.7 and sm_100a after LLVM has
// written it (RetargetTcgen05Ptx in ptx_compiler.h).

#include "absl/strings/str_cat.h"
#include "gpu_backend/nvptx_asm.h"
#include "gpu_backend/nvptx_target.h"
#include "llvm/IR/InlineAsm.h"

namespace xlite::gpu {

void NvptxTarget::TmemAlloc(llvm::IRBuilderBase& b, llvm::Value* slot,
                            int64_t columns) {
  TiedAsm(b,
          "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [$0], "
          "$1;\n\ttcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;",
          {},
          {SharedAddress(b, slot), b.getInt32(static_cast<int32_t>(columns))},
          "r,n");
}

void NvptxTarget::TmemDealloc(llvm::IRBuilderBase& b, llvm::Value* address,
                              int64_t columns) {
  TiedAsm(b, "tcgen05.dealloc.cta_group::1.sync.aligned.b32 $0, $1;", {},
          {address, b.getInt32(static_cast<int32_t>(columns))}, "r,n");
}

void NvptxTarget::Tcgen05Mma(llvm::IRBuilderBase& b,
                             const codegen::WgmmaShape& shape,
                             llvm::Value* tmem, llvm::Value* desc_a,
                             llvm::Value* desc_b, llvm::Value* accumulate) {
  const uint32_t idesc = codegen::Tcgen05InstructionDescriptor(shape);
  const std::string text = absl::StrCat(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, $4, 0;\n\t"
      "tcgen05.mma.cta_group::1.kind::",
      codegen::Tcgen05KindName(shape.kind), " [$0], $1, $2, $3, p;\n\t}");
  TiedAsm(b, text, {},
          {tmem, desc_a, desc_b, b.getInt32(idesc),
           b.CreateZExt(accumulate, b.getInt32Ty())},
          "r,l,l,r,r");
}

void NvptxTarget::Tcgen05Commit(llvm::IRBuilderBase& b, llvm::Value* bar) {
  TiedAsm(b,
          "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster."
          "b64 [$0];",
          {}, {SharedAddress(b, bar)}, "r");
}

std::vector<llvm::Value*> NvptxTarget::Tcgen05Load(llvm::IRBuilderBase& b,
                                                   llvm::Value* address,
                                                   int64_t count) {
  std::string regs, constraints;
  for (int64_t i = 0; i < count; ++i) {
    absl::StrAppend(&regs, i ? ", " : "", "$", i);
    absl::StrAppend(&constraints, i ? "," : "", "=r");
  }
  absl::StrAppend(&constraints, ",r,~{memory}");
  std::vector<llvm::Type*> out_types(count, b.getInt32Ty());
  llvm::StructType* result = llvm::StructType::get(b.getContext(), out_types);
  // The wait is in the same asm: nothing reads the registers before it.
  auto* asm_value = llvm::InlineAsm::get(
      llvm::FunctionType::get(result, {b.getInt32Ty()}, false),
      absl::StrCat("tcgen05.ld.sync.aligned.32x32b.x", count, ".b32 {", regs,
                   "}, [$", count, "];\n\ttcgen05.wait::ld.sync.aligned;"),
      constraints, /*hasSideEffects=*/true);
  llvm::CallInst* call = b.CreateCall(asm_value, {address});
  call->setConvergent();
  std::vector<llvm::Value*> out;
  for (int64_t i = 0; i < count; ++i) {
    out.push_back(b.CreateExtractValue(call, static_cast<unsigned>(i)));
  }
  return out;
}

void NvptxTarget::Tcgen05Fence(llvm::IRBuilderBase& b, bool before) {
  TiedAsm(b,
          before ? "tcgen05.fence::before_thread_sync;"
                 : "tcgen05.fence::after_thread_sync;",
          {}, {}, "");
}

}  // namespace xlite::gpu
