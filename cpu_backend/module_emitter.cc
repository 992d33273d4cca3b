#include "cpu_backend/module_emitter.h"

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "codegen/denormals.h"
#include "codegen/elemental.h"
#include "codegen/ldexp.h"
#include "codegen/ldexp.h"
#include "codegen/loops.h"
#include "codegen/scalar_ops.h"
#include "cpu_backend/contraction_calls.h"
#include "cpu_backend/contraction_strategy.h"
#include "cpu_backend/emitter_context.h"
#include "cpu_backend/kernel_chain.h"
#include "cpu_backend/rng_emitter.h"
#include "hlo/ir/opcode.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

namespace xlite::cpu {

using codegen::IrArray;

llvm::Function* EmitterContext::NewKernel(llvm::IRBuilderBase& b,
                                          const std::string& name) {
  llvm::Type* ptr = llvm::PointerType::get(context(), 0);
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(context()),
                                       {ptr, ptr}, false);
  auto* f = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage,
                                   UniqueName(name), llvm_module_);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  b.SetInsertPoint(llvm::BasicBlock::Create(context(), "entry", f));
  return f;
}

llvm::Function* EmitterContext::NewKernelPart(llvm::IRBuilderBase& b,
                                              const std::string& name) {
  llvm::Type* ptr = llvm::PointerType::get(context(), 0);
  llvm::Type* i64 = b.getInt64Ty();
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(context()),
                                       {ptr, ptr, i64, i64}, false);
  auto* f = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage,
                                   UniqueName(name), llvm_module_);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  // A part is a large kernel's share of the work (parallel_for's tasks):
  // its loops vectorize as wide as the host allows. An AVX-512 host's
  // default is 256-bit vectors; 512-bit ones halve the instructions of
  // arithmetic-heavy loops (an exp: 62 -> 42 us over 128K floats on one
  // core), while small inline code keeps 256 (a tiny RNN step was slower
  // with 512). Hosts with narrower vectors cap the width at theirs.
  f->addFnAttr("prefer-vector-width", "512");
  b.SetInsertPoint(llvm::BasicBlock::Create(context(), "entry", f));
  return f;
}

void EmitterContext::CallKernelParts(llvm::IRBuilderBase& b,
                                     llvm::Function* part, int64_t count,
                                     int64_t max_tasks) {
  llvm::Type* ptr = llvm::PointerType::get(context(), 0);
  llvm::Type* i64 = b.getInt64Ty();
  llvm::FunctionCallee run = Runtime(
      "xlite_cpu_parallel_range",
      llvm::FunctionType::get(b.getVoidTy(), {ptr, ptr, ptr, i64, i64}, false));
  llvm::Function* f = b.GetInsertBlock()->getParent();
  b.CreateCall(run, {part, f->getArg(0), f->getArg(1), b.getInt64(count),
                     b.getInt64(max_tasks)});
}

std::string EmitterContext::UniqueName(const std::string& base) {
  return absl::StrCat(base, ".", next_id_++);
}

llvm::Value* EmitterContext::SliceAddress(llvm::IRBuilderBase& b,
                                          const runtime::Slice& slice) {
  llvm::Function* f = b.GetInsertBlock()->getParent();
  llvm::Value* table = f->getArg(0);
  llvm::Type* ptr = llvm::PointerType::get(context(), 0);
  llvm::LoadInst* base = b.CreateLoad(
      ptr, b.CreateConstInBoundsGEP1_64(ptr, table, slice.allocation));
  // The table does not change while the module runs: LLVM may hoist
  // these loads out of loops.
  base->setMetadata(llvm::LLVMContext::MD_invariant_load,
                    llvm::MDNode::get(context(), {}));
  base->setMetadata(llvm::LLVMContext::MD_nonnull,
                    llvm::MDNode::get(context(), {}));
  llvm::Value* address =
      slice.offset == 0
          ? base
          : b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), base, slice.offset);
  aliasing_.Note(address, slice);
  return address;
}

absl::StatusOr<IrArray> EmitterContext::ArrayFor(
    llvm::IRBuilderBase& b, const HloInstruction* instruction,
    const ShapeIndex& index) {
  if (auto it = chain_scratch_.find(instruction);
      it != chain_scratch_.end() && index.empty()) {
    // The scratch holds the block's rows from the part's first: the
    // elements of rows [first, first + block) at their layout's strides.
    const ChainScratch& scratch = it->second;
    llvm::Function* f = b.GetInsertBlock()->getParent();
    const runtime::Slice slot{static_cast<int>(scratch.slot), 0,
                              instruction->shape().ByteSizeOfElements()};
    llvm::Value* base = SliceAddress(b, slot);
    codegen::Index origin(instruction->shape().rank(), b.getInt64(0));
    origin[scratch.row_dim] =
        b.CreateMul(f->getArg(2), b.getInt64(chain_rows_per_iteration_));
    return IrArray::View(base, instruction->shape(),
                         codegen::PhysicalStrides(instruction->shape()),
                         std::move(origin));
  }
  absl::StatusOr<runtime::Slice> slice =
      assignment_.GetSlice(instruction, index);
  if (!slice.ok()) return slice.status();
  const Shape* shape = instruction->shape().Subshape(index);
  return IrArray(SliceAddress(b, *slice), *shape);
}

void EmitterContext::CallKernel(llvm::IRBuilderBase& b,
                                llvm::Function* kernel) {
  llvm::Function* f = b.GetInsertBlock()->getParent();
  b.CreateCall(kernel, {f->getArg(0), f->getArg(1)});
}

llvm::FunctionCallee EmitterContext::Runtime(const std::string& name,
                                             llvm::FunctionType* type) {
  return llvm_module_.getOrInsertFunction(name, type);
}

absl::Status EmitterContext::EmitComputation(
    llvm::IRBuilderBase& b, const HloComputation& computation) {
  const std::vector<const HloInstruction*>& schedule =
      assignment_.Schedule(&computation);
  // Chains are emitted where their first member was; the rest are in them.
  const std::vector<KernelChain> chains = FindKernelChains(*this, schedule);
  absl::flat_hash_map<const HloInstruction*, const KernelChain*> starts;
  absl::flat_hash_set<const HloInstruction*> chained;
  for (const KernelChain& chain : chains) {
    starts[chain.members[0]] = &chain;
    chained.insert(chain.members.begin(), chain.members.end());
  }
  for (const HloInstruction* instruction : schedule) {
    auto start = starts.find(instruction);
    if (start != starts.end()) {
      if (absl::Status s = EmitChain(b, *start->second); !s.ok()) return s;
      continue;
    }
    if (chained.contains(instruction)) continue;
    if (absl::Status s = EmitInstruction(b, instruction); !s.ok()) return s;
  }
  return absl::OkStatus();
}

namespace {

// replica-id / partition-id: a u32 from the run context.
absl::Status EmitDeviceId(EmitterContext& ctx, llvm::IRBuilderBase& b,
                          const HloInstruction* hlo) {
  absl::StatusOr<IrArray> out = ctx.ArrayFor(b, hlo);
  if (!out.ok()) return out.status();
  llvm::Function* f = b.GetInsertBlock()->getParent();
  const int field = hlo->opcode() == HloOpcode::kReplicaId ? 0 : 1;
  llvm::Value* id = b.CreateLoad(
      b.getInt64Ty(),
      b.CreateConstInBoundsGEP1_64(b.getInt64Ty(), f->getArg(1), field));
  b.CreateStore(b.CreateTrunc(id, b.getInt32Ty()), out->base());
  return absl::OkStatus();
}

}  // namespace

absl::Status EmitterContext::EmitInstruction(
    llvm::IRBuilderBase& b, const HloInstruction* instruction) {
  if (OnlyNamesBuffers(instruction->opcode())) return absl::OkStatus();
  if (!IsTimed(instruction)) return EmitInstructionCode(b, instruction);
  const int32_t site = ProfileSiteOf(instruction);
  EmitProfileMark(b, /*begin=*/true, site);
  if (absl::Status s = EmitInstructionCode(b, instruction); !s.ok()) return s;
  EmitProfileMark(b, /*begin=*/false, site);
  return absl::OkStatus();
}

absl::Status EmitterContext::EmitChain(llvm::IRBuilderBase& b,
                                       const KernelChain& chain) {
  if (profile_sites_ == nullptr) return EmitKernelChain(*this, b, chain);
  const int32_t site = ProfileSiteOfChain(chain.members);
  EmitProfileMark(b, /*begin=*/true, site);
  if (absl::Status s = EmitKernelChain(*this, b, chain); !s.ok()) return s;
  EmitProfileMark(b, /*begin=*/false, site);
  return absl::OkStatus();
}

absl::Status EmitterContext::EmitInstructionCode(
    llvm::IRBuilderBase& b, const HloInstruction* instruction) {
  const HloOpcode op = instruction->opcode();
  switch (op) {
    case HloOpcode::kWhile:
    case HloOpcode::kConditional:
    case HloOpcode::kCall:
      return EmitControlFlow(*this, b, instruction);
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
    case HloOpcode::kInfeed:
    case HloOpcode::kOutfeed:
      return codegen::Unsupported(
          instruction,
          "host transfers (send, recv, infeed, outfeed) are not "
          "supported by the cpu backend");
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
      return EmitDeviceId(*this, b, instruction);
    case HloOpcode::kRng:
      return EmitRng(*this, b, instruction);
    case HloOpcode::kRngGetAndUpdateState:
      return EmitRngGetAndUpdateState(*this, b, instruction);
    case HloOpcode::kScatter:
      return EmitScatterKernel(*this, b, instruction);
    case HloOpcode::kSort:
      return EmitSortKernel(*this, b, instruction);
    case HloOpcode::kDot:
      if (DotUsesLibrary(*instruction)) {
        return EmitDotLibraryCall(*this, b, instruction);
      }
      return EmitElementalKernel(*this, b, instruction);
    case HloOpcode::kConvolution:
      if (ConvolutionUsesLibrary(*instruction)) {
        return EmitConvolutionLibraryCall(*this, b, instruction);
      }
      return EmitElementalKernel(*this, b, instruction);
    case HloOpcode::kFusion: {
      const HloInstruction* root =
          instruction->fused_computation()->root_instruction();
      if (root->opcode() == HloOpcode::kScatter) {
        return EmitScatterKernel(*this, b, instruction);
      }
      if (DotUsesLibrary(*instruction)) {
        return EmitDotLibraryCall(*this, b, instruction);
      }
      return EmitElementalKernel(*this, b, instruction);
    }
    case HloOpcode::kCustomCall:
    case HloOpcode::kFft:
    case HloOpcode::kRngBitGenerator:
    case HloOpcode::kTopK:
    case HloOpcode::kCholesky:
    case HloOpcode::kTriangularSolve:
    case HloOpcode::kSelectAndScatter:
    case HloOpcode::kBatchNormTraining:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormGrad:
      return EmitLibraryCall(*this, b, instruction);
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllGather:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kCollectiveReduce:
      // A group of one device: the copies XLA defines; otherwise the
      // in-process exchange between the devices' threads.
      if (module_.config().replica_count * module_.config().num_partitions ==
          1) {
        return EmitLibraryCall(*this, b, instruction);
      }
      return EmitCollective(*this, b, instruction);
    case HloOpcode::kScan:
      // ConvertScanToWhile (scan_to_while.h) turned every other scan into a
      // loop.
      return codegen::Unsupported(
          instruction,
          "a scan that slices or stacks tuple-shaped values "
          "(scans of arrays become while loops)");
    case HloOpcode::kRaggedAllToAll:
      // Moves rows even within one device: always the runtime's exchange.
      return EmitCollective(*this, b, instruction);
    default:
      return EmitElementalKernel(*this, b, instruction);
  }
}

absl::Status EmitModule(const HloModule& module,
                        const runtime::BufferAssignment& assignment,
                        llvm::Module& llvm_module,
                        std::vector<ProfileSite>* profile_sites) {
  EmitterContext ctx(module, assignment, llvm_module);
  if (profile_sites != nullptr) ctx.EnableProfiling(profile_sites);
  // OptimizeModule lowers these after vectorization (vscalefps on AVX-512).
  codegen::EnableLdexpCalls(llvm_module);
  // The code runs with denormals flushed (below): maximum, minimum and the
  // like read subnormals as the hardware does.
  codegen::EnableFlushedDenormals(llvm_module);
  llvm::LLVMContext& context = llvm_module.getContext();
  llvm::Type* ptr = llvm::PointerType::get(context, 0);
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(context),
                                       {ptr, ptr}, false);
  auto* entry = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                                       kEntryName, llvm_module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", entry));
  // The whole run flushes denormals, as XLA:CPU's does; the caller's mode
  // comes back at the end (runtime_lib.h).
  llvm::Value* saved_mode =
      b.CreateCall(ctx.Runtime("xlite_cpu_flush_denormals",
                               llvm::FunctionType::get(b.getInt64Ty(), false)));
  if (NeedsRngEngine(module)) EmitRngEngineSetup(ctx, b);
  // Refusals from the shared emitters name the backend here.
  if (absl::Status s = ctx.EmitComputation(b, *module.entry_computation());
      !s.ok()) {
    return codegen::NameBackend(s, "cpu");
  }
  b.CreateCall(ctx.Runtime("xlite_cpu_restore_denormals",
                           llvm::FunctionType::get(b.getVoidTy(),
                                                   {b.getInt64Ty()}, false)),
               {saved_mode});
  b.CreateRetVoid();
  ctx.aliasing().Annotate(llvm_module);
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (llvm::verifyModule(llvm_module, &os)) {
    return absl::InternalError(
        absl::StrCat("generated LLVM IR is invalid: ", os.str()));
  }
  return absl::OkStatus();
}

}  // namespace xlite::cpu
