#include "gpu_backend/nvptx_target.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

namespace xlite::gpu {

using codegen::GridDim;

namespace {

llvm::Value* Intrinsic(llvm::IRBuilderBase& b, llvm::Intrinsic::ID x,
                       llvm::Intrinsic::ID y, llvm::Intrinsic::ID z,
                       GridDim d) {
  const llvm::Intrinsic::ID id = d == GridDim::kX   ? x
                                 : d == GridDim::kY ? y
                                                    : z;
  return b.CreateIntrinsic(b.getInt32Ty(), id, {});
}

void Annotate(llvm::Module& module, llvm::Function* f, absl::string_view key,
              int64_t value) {
  llvm::LLVMContext& ctx = module.getContext();
  llvm::Metadata* md[] = {
      llvm::ValueAsMetadata::get(f),
      llvm::MDString::get(ctx, llvm::StringRef(key.data(), key.size())),
      llvm::ConstantAsMetadata::get(
          llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), value))};
  module.getOrInsertNamedMetadata("nvvm.annotations")
      ->addOperand(llvm::MDNode::get(ctx, md));
}

}  // namespace

void NvptxTarget::ConfigureModule(llvm::Module& module) const {
  module.setTargetTriple(kNvptxTriple);
  module.setDataLayout(kNvptxDataLayout);
}

llvm::Function* NvptxTarget::DeclareKernel(
    llvm::Module& module, absl::string_view name,
    const std::vector<codegen::KernelParam>& params, int64_t block_size) {
  llvm::LLVMContext& ctx = module.getContext();
  std::vector<llvm::Type*> types(params.size(), llvm::PointerType::get(ctx, 0));
  auto* type =
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), types, false);
  auto* kernel = llvm::Function::Create(type, llvm::Function::ExternalLinkage,
                                        std::string(name), module);
  kernel->setCallingConv(llvm::CallingConv::PTX_Kernel);
  std::vector<llvm::Metadata*> grid_constants;
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].tensor_map) {
      // A CUtensorMap by value whose address TMA takes: byval and
      // __grid_constant__ (1-based indices), so that LLVM hands out the
      // parameter's own address instead of a local copy's.
      kernel->addParamAttr(
          i, llvm::Attribute::getWithByValType(
                 ctx, llvm::ArrayType::get(llvm::Type::getInt8Ty(ctx), 128)));
      kernel->addParamAttr(i,
                           llvm::Attribute::getWithAlignment(ctx, llvm::Align(64)));
      grid_constants.push_back(llvm::ConstantAsMetadata::get(
          llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), i + 1)));
      continue;
    }
    if (params[i].noalias) kernel->addParamAttr(i, llvm::Attribute::NoAlias);
    if (params[i].alignment > 0) {
      kernel->addParamAttr(i, llvm::Attribute::getWithAlignment(
                                  ctx, llvm::Align(params[i].alignment)));
    }
    if (params[i].size > 0) {
      kernel->addDereferenceableParamAttr(i, params[i].size);
    }
  }
  if (!grid_constants.empty()) {
    llvm::Metadata* md[] = {llvm::ValueAsMetadata::get(kernel),
                            llvm::MDString::get(ctx, "grid_constant"),
                            llvm::MDNode::get(ctx, grid_constants)};
    module.getOrInsertNamedMetadata("nvvm.annotations")
        ->addOperand(llvm::MDNode::get(ctx, md));
  }
  Annotate(module, kernel, "kernel", 1);
  Annotate(module, kernel, "reqntidx", block_size);
  llvm::BasicBlock::Create(ctx, "entry", kernel);
  return kernel;
}

llvm::Value* NvptxTarget::ThreadId(llvm::IRBuilderBase& b, GridDim d) {
  return Intrinsic(b, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x,
                   llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y,
                   llvm::Intrinsic::nvvm_read_ptx_sreg_tid_z, d);
}
llvm::Value* NvptxTarget::BlockId(llvm::IRBuilderBase& b, GridDim d) {
  return Intrinsic(b, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x,
                   llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
                   llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z, d);
}
llvm::Value* NvptxTarget::BlockDim(llvm::IRBuilderBase& b, GridDim d) {
  return Intrinsic(b, llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x,
                   llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_y,
                   llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_z, d);
}
llvm::Value* NvptxTarget::GridSize(llvm::IRBuilderBase& b, GridDim d) {
  return Intrinsic(b, llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x,
                   llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_y,
                   llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_z, d);
}

void NvptxTarget::Barrier(llvm::IRBuilderBase& b) {
  b.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
}

llvm::Value* NvptxTarget::ShuffleI32(llvm::IRBuilderBase& b,
                                     codegen::ShuffleKind kind,
                                     llvm::Value* value, llvm::Value* offset) {
  const llvm::Intrinsic::ID id = kind == codegen::ShuffleKind::kDown
                                     ? llvm::Intrinsic::nvvm_shfl_sync_down_i32
                                     : llvm::Intrinsic::nvvm_shfl_sync_bfly_i32;
  // Full warp; clamp 0x1f: lanes past the warp read their own value.
  return b.CreateIntrinsic(b.getInt32Ty(), id,
                           {b.getInt32(0xffffffffu), value, offset,
                            b.getInt32(codegen::kWarpSize - 1)});
}

std::vector<llvm::Value*> NvptxTarget::LdMatrix(llvm::IRBuilderBase& b,
                                                int64_t count,
                                                llvm::Value* row) {
  const llvm::Intrinsic::ID id =
      count == 4   ? llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_b16
      : count == 2 ? llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x2_b16
                   : llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x1_b16;
  llvm::Value* shared = row->getType()->getPointerAddressSpace() == 3
                            ? row
                            : b.CreateAddrSpaceCast(row, b.getPtrTy(3));
  llvm::Function* f = llvm::Intrinsic::getDeclaration(
      b.GetInsertBlock()->getModule(), id, {shared->getType()});
  llvm::CallInst* call = b.CreateCall(f, {shared});
  // .sync.aligned: the whole warp, at the same instruction.
  call->setConvergent();
  if (count == 1) return {call};
  std::vector<llvm::Value*> out;
  for (unsigned i = 0; i < count; ++i) {
    out.push_back(b.CreateExtractValue(call, i));
  }
  return out;
}

std::vector<llvm::Value*> NvptxTarget::Mma(llvm::IRBuilderBase& b,
                                           codegen::MmaKind kind,
                                           const std::vector<llvm::Value*>& a,
                                           const std::vector<llvm::Value*>& bv,
                                           const std::vector<llvm::Value*>& c) {
  using codegen::MmaKind;
  llvm::Intrinsic::ID id = llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_bf16;
  switch (kind) {
    case MmaKind::kF16:
      id = llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_f32_f32;
      break;
    case MmaKind::kBF16:
      break;
    case MmaKind::kTF32:
      id = llvm::Intrinsic::nvvm_mma_m16n8k8_row_col_tf32;
      break;
    case MmaKind::kS8:
      id = llvm::Intrinsic::nvvm_mma_m16n8k32_row_col_s8;
      break;
  }
  // f16 fragments are <2 x half> registers; the others i32.
  llvm::Type* half2 = llvm::FixedVectorType::get(b.getHalfTy(), 2);
  std::vector<llvm::Value*> args;
  for (const std::vector<llvm::Value*>* part : {&a, &bv}) {
    for (llvm::Value* r : *part) {
      args.push_back(kind == MmaKind::kF16 ? b.CreateBitCast(r, half2) : r);
    }
  }
  args.insert(args.end(), c.begin(), c.end());
  llvm::Function* f =
      llvm::Intrinsic::getDeclaration(b.GetInsertBlock()->getModule(), id);
  llvm::Value* d = b.CreateCall(f, args);
  std::vector<llvm::Value*> out;
  for (unsigned i = 0; i < 4; ++i) out.push_back(b.CreateExtractValue(d, i));
  return out;
}

void NvptxTarget::AsyncCopy(llvm::IRBuilderBase& b, llvm::Value* dst,
                            llvm::Value* src, int64_t bytes,
                            llvm::Value* copy) {
  auto in_space = [&](llvm::Value* p, unsigned space) {
    return p->getType()->getPointerAddressSpace() == space
               ? p
               : b.CreateAddrSpaceCast(p, b.getPtrTy(space));
  };
  // 16 bytes bypass L1 (.cg); smaller copies go through it (.ca).
  const llvm::Intrinsic::ID id =
      bytes == 16  ? llvm::Intrinsic::nvvm_cp_async_cg_shared_global_16_s
      : bytes == 8 ? llvm::Intrinsic::nvvm_cp_async_ca_shared_global_8_s
                   : llvm::Intrinsic::nvvm_cp_async_ca_shared_global_4_s;
  llvm::Function* f =
      llvm::Intrinsic::getDeclaration(b.GetInsertBlock()->getModule(), id);
  b.CreateCall(f, {in_space(dst, 3), in_space(src, 1),
                   b.CreateSelect(copy, b.getInt32(bytes), b.getInt32(0))});
}

void NvptxTarget::AsyncCopyWait(llvm::IRBuilderBase& b) {
  b.CreateIntrinsic(llvm::Intrinsic::nvvm_cp_async_wait_all, {}, {});
}

void NvptxTarget::AsyncCopyCommit(llvm::IRBuilderBase& b) {
  b.CreateIntrinsic(llvm::Intrinsic::nvvm_cp_async_commit_group, {}, {});
}

void NvptxTarget::AsyncCopyWaitGroup(llvm::IRBuilderBase& b, int64_t pending) {
  b.CreateIntrinsic(llvm::Intrinsic::nvvm_cp_async_wait_group, {},
                    {b.getInt32(static_cast<int32_t>(pending))});
}

llvm::Value* NvptxTarget::SharedArray(llvm::IRBuilderBase& b, int64_t bytes,
                                      int64_t alignment,
                                      absl::string_view name) {
  llvm::Function* kernel = b.GetInsertBlock()->getParent();
  int64_t& used = SharedBytesOf(kernel);
  const int64_t align = std::max<int64_t>(alignment, 1);
  used = (used + align - 1) / align * align + bytes;
  llvm::Module& m = *kernel->getParent();
  auto* type = llvm::ArrayType::get(b.getInt8Ty(), bytes);
  auto* global = new llvm::GlobalVariable(
      m, type, /*isConstant=*/false, llvm::GlobalValue::InternalLinkage,
      llvm::UndefValue::get(type),
      absl::StrCat(kernel->getName().str(), ".", name), nullptr,
      llvm::GlobalValue::NotThreadLocal, /*AddressSpace=*/3);
  global->setAlignment(llvm::Align(align));
  return global;
}

llvm::Value* NvptxTarget::DynamicSharedArray(llvm::IRBuilderBase& b,
                                             int64_t bytes, int64_t alignment,
                                             absl::string_view /*name*/) {
  // One base for all the kernel's dynamic arrays; offsets tell them apart.
  llvm::Function* kernel = b.GetInsertBlock()->getParent();
  int64_t& used = DynamicSharedBytesOf(kernel);
  const int64_t align = std::clamp<int64_t>(alignment, 1, 1024);
  const int64_t offset = (used + align - 1) / align * align;
  used = offset + bytes;
  // One `.extern .shared .align 1024 .b8 xlite_dynamic_shared[]` per
  // module: every kernel's dynamic shared memory starts there (1024: the
  // period of TMA's 128-byte swizzle).
  llvm::Module& m = *kernel->getParent();
  constexpr char kSymbol[] = "xlite_dynamic_shared";
  llvm::GlobalVariable* base = m.getNamedGlobal(kSymbol);
  if (base == nullptr) {
    auto* type = llvm::ArrayType::get(b.getInt8Ty(), 0);
    base = new llvm::GlobalVariable(
        m, type, /*isConstant=*/false, llvm::GlobalValue::ExternalLinkage,
        nullptr, kSymbol, nullptr, llvm::GlobalValue::NotThreadLocal,
        /*AddressSpace=*/3);
    base->setAlignment(llvm::Align(1024));
  }
  return llvm::ConstantExpr::getInBoundsGetElementPtr(b.getInt8Ty(), base,
                                                      b.getInt64(offset));
}

absl::StatusOr<std::string> NvptxTarget::MathFunction(
    absl::string_view name) const {
  if (codegen::IsGpuMathFunction(name)) return absl::StrCat("__nv_", name);
  return absl::UnimplementedError(absl::StrCat("libdevice has no __nv_", name));
}

}  // namespace xlite::gpu
