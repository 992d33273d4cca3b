// NvptxTarget's warpgroup tensor-core operations (sm_90a): wgmma and its
// fences as inline PTX. Accumulators are tied operands ("=f"/"=r" outputs
// whose inputs are the same registers), so every asm that must come
// before or after them (fence, wait) takes them in and gives them back,
// and LLVM cannot move their uses across it.

#include "absl/strings/str_cat.h"
#include "gpu_backend/nvptx_asm.h"
#include "gpu_backend/nvptx_target.h"
#include "llvm/IR/InlineAsm.h"

namespace xlite::gpu {
namespace {

using codegen::WgmmaKind;

// "f16", "bf16", ... as PTX names the operand type, and the K of one wgmma.
const char* PtxType(WgmmaKind kind) {
  switch (kind) {
    case WgmmaKind::kF16:
      return "f16";
    case WgmmaKind::kBF16:
      return "bf16";
    case WgmmaKind::kTF32:
      return "tf32";
    case WgmmaKind::kE4M3:
      return "e4m3";
    case WgmmaKind::kE5M2:
      return "e5m2";
    case WgmmaKind::kS8:
      return "s8";
  }
  return "bf16";
}

int64_t KOf(WgmmaKind kind) {
  switch (kind) {
    case WgmmaKind::kF16:
    case WgmmaKind::kBF16:
      return 16;
    case WgmmaKind::kTF32:
      return 8;
    default:
      return 32;
  }
}

}  // namespace

std::vector<llvm::Value*> TiedAsm(llvm::IRBuilderBase& b,
                                  const std::string& text,
                                  const std::vector<llvm::Value*>& acc,
                                  const std::vector<llvm::Value*>& inputs,
                                  const std::string& input_constraints) {
  if (acc.empty()) {
    std::vector<llvm::Type*> types;
    for (llvm::Value* v : inputs) types.push_back(v->getType());
    auto* asm_value = llvm::InlineAsm::get(
        llvm::FunctionType::get(b.getVoidTy(), types, false), text,
        absl::StrCat(input_constraints, input_constraints.empty() ? "" : ",",
                     "~{memory}"),
        /*hasSideEffects=*/true);
    b.CreateCall(asm_value, inputs)->setConvergent();
    return {};
  }
  const bool is_int = acc.front()->getType()->isIntegerTy();
  const char* reg = is_int ? "r" : "f";
  std::vector<llvm::Type*> out_types(acc.size(), acc.front()->getType());
  llvm::StructType* result = llvm::StructType::get(b.getContext(), out_types);
  std::string constraints;
  for (size_t i = 0; i < acc.size(); ++i) {
    absl::StrAppend(&constraints, i == 0 ? "" : ",", "=", reg);
  }
  if (!input_constraints.empty())
    absl::StrAppend(&constraints, ",", input_constraints);
  for (size_t i = 0; i < acc.size(); ++i) absl::StrAppend(&constraints, ",", i);
  absl::StrAppend(&constraints, ",~{memory}");
  std::vector<llvm::Type*> in_types;
  std::vector<llvm::Value*> args = inputs;
  args.insert(args.end(), acc.begin(), acc.end());
  for (llvm::Value* v : args) in_types.push_back(v->getType());
  auto* asm_value = llvm::InlineAsm::get(
      llvm::FunctionType::get(result, in_types, false), text, constraints,
      /*hasSideEffects=*/true);
  llvm::CallInst* call = b.CreateCall(asm_value, args);
  // .sync.aligned: the warpgroup runs it together; no pass may make it
  // depend on a condition it did not.
  call->setConvergent();
  std::vector<llvm::Value*> out;
  for (unsigned i = 0; i < acc.size(); ++i) {
    out.push_back(b.CreateExtractValue(call, i));
  }
  return out;
}

std::vector<llvm::Value*> NvptxTarget::Wgmma(
    llvm::IRBuilderBase& b, const codegen::WgmmaShape& shape,
    llvm::Value* desc_a, llvm::Value* desc_b,
    const std::vector<llvm::Value*>& acc) {
  const int64_t regs = static_cast<int64_t>(acc.size());
  const bool integer = shape.kind == WgmmaKind::kS8;
  std::string d = "{";
  for (int64_t i = 0; i < regs; ++i) absl::StrAppend(&d, i ? ", " : "", "$", i);
  d += "}";
  // A's type, then B's (which differ for e4m3 x e5m2 only).
  const std::string types =
      absl::StrCat(PtxType(shape.kind), ".", PtxType(shape.BKind()));
  // scale-d is a predicate: 1 keeps D (accumulate). Scales of A and B
  // (+1) and the transposes exist for the float kinds, transposes only
  // for the 16-bit ones.
  std::string tail;
  if (!integer) tail = ", 1, 1";
  if (shape.kind == WgmmaKind::kF16 || shape.kind == WgmmaKind::kBF16) {
    absl::StrAppend(&tail, ", ", shape.trans_a ? 1 : 0, ", ",
                    shape.trans_b ? 1 : 0);
  }
  const std::string text =
      absl::StrCat("{\n.reg .pred p;\nsetp.ne.b32 p, $", regs + 2, ", 0;\n",
                   "wgmma.mma_async.sync.aligned.m64n", shape.n, "k",
                   KOf(shape.kind), ".", integer ? "s32" : "f32", ".", types,
                   " ", d, ", $", regs, ", $", regs + 1, ", p", tail, ";\n}");
  return TiedAsm(b, text, acc, {desc_a, desc_b, b.getInt32(1)}, "l,l,r");
}

std::vector<llvm::Value*> NvptxTarget::WgmmaFence(
    llvm::IRBuilderBase& b, const std::vector<llvm::Value*>& acc) {
  return TiedAsm(b, "wgmma.fence.sync.aligned;", acc, {}, "");
}

void NvptxTarget::WgmmaCommit(llvm::IRBuilderBase& b) {
  TiedAsm(b, "wgmma.commit_group.sync.aligned;", {}, {}, "");
}

std::vector<llvm::Value*> NvptxTarget::WgmmaWait(
    llvm::IRBuilderBase& b, int64_t pending,
    const std::vector<llvm::Value*>& acc) {
  return TiedAsm(b,
                 absl::StrCat("wgmma.wait_group.sync.aligned ", pending, ";"),
                 acc, {}, "");
}

void NvptxTarget::FenceProxyAsyncShared(llvm::IRBuilderBase& b) {
  TiedAsm(b, "fence.proxy.async.shared::cta;", {}, {}, "");
}

void NvptxTarget::MbarrierInit(llvm::IRBuilderBase& b, llvm::Value* bar,
                               int64_t count) {
  TiedAsm(b,
          "mbarrier.init.shared::cta.b64 [$0], $1;\n\t"
          "fence.mbarrier_init.release.cluster;",
          {}, {SharedAddress(b, bar), b.getInt32(static_cast<int32_t>(count))},
          "r,r");
}

void NvptxTarget::MbarrierArriveExpectTx(llvm::IRBuilderBase& b,
                                         llvm::Value* bar, int64_t bytes) {
  TiedAsm(b, "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", {},
          {SharedAddress(b, bar), b.getInt32(static_cast<int32_t>(bytes))},
          "r,r");
}

void NvptxTarget::MbarrierArrive(llvm::IRBuilderBase& b, llvm::Value* bar) {
  TiedAsm(b, "mbarrier.arrive.shared::cta.b64 _, [$0];", {},
          {SharedAddress(b, bar)}, "r");
}

void NvptxTarget::MbarrierWait(llvm::IRBuilderBase& b, llvm::Value* bar,
                               llvm::Value* parity) {
  // try_wait suspends the thread for a while; loop until it holds.
  llvm::Function* f = b.GetInsertBlock()->getParent();
  llvm::LLVMContext& ctx = b.getContext();
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(ctx, "mbarrier_wait", f);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx, "mbarrier_done", f);
  llvm::Value* address = SharedAddress(b, bar);
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  auto* asm_value = llvm::InlineAsm::get(
      llvm::FunctionType::get(b.getInt32Ty(), {b.getInt32Ty(), b.getInt32Ty()},
                              false),
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2;\n\t"
      "selp.u32 $0, 1, 0, p;\n\t}",
      "=r,r,r,~{memory}", /*hasSideEffects=*/true);
  llvm::Value* ready = b.CreateCall(asm_value, {address, parity});
  b.CreateCondBr(b.CreateICmpNE(ready, b.getInt32(0)), done, loop);
  b.SetInsertPoint(done);
}

void NvptxTarget::TensorMapLoad(llvm::IRBuilderBase& b, llvm::Value* dst,
                                llvm::Value* map,
                                const std::vector<llvm::Value*>& coords,
                                llvm::Value* bar) {
  std::string list;
  std::string constraints = "r,l";
  for (size_t i = 0; i < coords.size(); ++i) {
    absl::StrAppend(&list, i == 0 ? "" : ", ", "$", i + 2);
    absl::StrAppend(&constraints, ",r");
  }
  absl::StrAppend(&constraints, ",r");
  std::vector<llvm::Value*> inputs = {SharedAddress(b, dst),
                                      b.CreatePtrToInt(map, b.getInt64Ty())};
  inputs.insert(inputs.end(), coords.begin(), coords.end());
  inputs.push_back(SharedAddress(b, bar));
  TiedAsm(b,
          absl::StrCat("cp.async.bulk.tensor.", coords.size(),
                       "d.shared::cluster.global.tile.mbarrier::complete_tx::"
                       "bytes [$0], [$1, {",
                       list, "}], [$", coords.size() + 2, "];"),
          {}, inputs, constraints);
}

llvm::Value* NvptxTarget::SharedAddress(llvm::IRBuilderBase& b,
                                        llvm::Value* pointer) {
  // A shared pointer's value is its offset in the block's window.
  llvm::Value* shared = pointer->getType()->getPointerAddressSpace() == 3
                            ? pointer
                            : b.CreateAddrSpaceCast(pointer, b.getPtrTy(3));
  return b.CreateTrunc(b.CreatePtrToInt(shared, b.getInt64Ty()),
                       b.getInt32Ty());
}

}  // namespace xlite::gpu
