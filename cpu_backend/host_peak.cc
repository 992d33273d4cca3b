#include "cpu_backend/host_peak.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "cpu_backend/jit.h"
#include "cpu_backend/runtime_lib/profile_counters.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

namespace xlite::cpu {

namespace {

constexpr int kTries = 5;
constexpr int64_t kCopyBytes = int64_t{64} << 20;
constexpr int kLanes = 8;
// Independent chains: enough to cover the latency of two FMA pipes and
// few enough to stay in 16 vector registers.
constexpr int kChains = 12;
constexpr int64_t kFmaIterations = int64_t{1} << 22;
constexpr char kFmaName[] = "xlite_peak_fma";

double CopyBytesPerSecond() {
  std::vector<uint8_t> from(kCopyBytes, 1), to(kCopyBytes, 0);
  int64_t best = INT64_MAX;
  for (int t = 0; t < kTries; ++t) {
    const int64_t start = ProfileCounters::Now();
    std::memcpy(to.data(), from.data(), kCopyBytes);
    best = std::min(best, ProfileCounters::Now() - start);
    from[t] = to[kCopyBytes - 1 - t];  // keeps the copies observable
  }
  return 2.0 * kCopyBytes / (std::max<int64_t>(best, 1) * 1e-9);
}

// void xlite_peak_fma(float* out, i64 n): n rounds of kChains independent
// <kLanes x float> multiply-adds; stores their sum so none is dead.
std::unique_ptr<llvm::Module> FmaModule(llvm::LLVMContext& context,
                                        const CpuJit& jit) {
  auto module = std::make_unique<llvm::Module>("peak", context);
  module->setDataLayout(jit.data_layout());
  module->setTargetTriple(jit.target_triple());
  llvm::IRBuilder<> b(context);
  auto* type = llvm::FunctionType::get(b.getVoidTy(),
                                       {b.getPtrTy(), b.getInt64Ty()}, false);
  auto* f = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                                   kFmaName, *module);
  auto* entry = llvm::BasicBlock::Create(context, "entry", f);
  auto* loop = llvm::BasicBlock::Create(context, "loop", f);
  auto* exit = llvm::BasicBlock::Create(context, "exit", f);
  llvm::Type* vec = llvm::FixedVectorType::get(b.getFloatTy(), kLanes);
  b.SetInsertPoint(entry);
  llvm::Value* scale = llvm::ConstantFP::get(vec, 0.999999);
  llvm::Value* add = llvm::ConstantFP::get(vec, 1e-7);
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2);
  i->addIncoming(b.getInt64(0), entry);
  std::vector<llvm::PHINode*> chains;
  std::vector<llvm::Value*> next;
  llvm::Function* fma = llvm::Intrinsic::getDeclaration(
      module.get(), llvm::Intrinsic::fmuladd, {vec});
  for (int c = 0; c < kChains; ++c) {  // the phis first, as LLVM requires
    chains.push_back(b.CreatePHI(vec, 2));
    chains.back()->addIncoming(llvm::ConstantFP::get(vec, 1.0 + c), entry);
  }
  for (llvm::PHINode* chain : chains) {
    next.push_back(b.CreateCall(fma, {chain, scale, add}));
    chain->addIncoming(next.back(), loop);
  }
  llvm::Value* i1 = b.CreateAdd(i, b.getInt64(1));
  i->addIncoming(i1, loop);
  b.CreateCondBr(b.CreateICmpSLT(i1, f->getArg(1)), loop, exit);
  b.SetInsertPoint(exit);
  llvm::Value* sum = next[0];
  for (int c = 1; c < kChains; ++c) sum = b.CreateFAdd(sum, next[c]);
  b.CreateStore(sum, f->getArg(0));
  b.CreateRetVoid();
  return module;
}

absl::StatusOr<double> FmaFlopsPerSecond(std::string* cpu) {
  absl::StatusOr<std::unique_ptr<CpuJit>> jit = CpuJit::Create({});
  if (!jit.ok()) return jit.status();
  *cpu = (*jit)->cpu_name();
  auto context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> module = FmaModule(*context, **jit);
  if (llvm::verifyModule(*module, &llvm::errs())) {
    return absl::InternalError("the peak-FLOP kernel is invalid IR");
  }
  absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> machine =
      HostTargetMachine();
  if (!machine.ok()) return machine.status();
  OptimizeModule(*module, machine->get());
  absl::StatusOr<std::string> object = EmitObject(*module, machine->get());
  if (!object.ok()) return object.status();
  if (absl::Status s = (*jit)->AddObject(*object, "xlite_peak_fma"); !s.ok()) {
    return s;
  }
  absl::StatusOr<void*> address = (*jit)->Lookup(kFmaName);
  if (!address.ok()) return address.status();
  auto* run = reinterpret_cast<void (*)(float*, int64_t)>(*address);
  alignas(64) float out[kLanes];
  int64_t best = INT64_MAX;
  for (int t = 0; t < kTries; ++t) {
    const int64_t start = ProfileCounters::Now();
    run(out, kFmaIterations);
    best = std::min(best, ProfileCounters::Now() - start);
  }
  const double flops = 2.0 * kLanes * kChains * kFmaIterations;
  return flops / (std::max<int64_t>(best, 1) * 1e-9);
}

absl::StatusOr<HostPeak> Measure() {
  HostPeak peak;
  absl::StatusOr<double> flops = FmaFlopsPerSecond(&peak.cpu);
  if (!flops.ok()) return flops.status();
  peak.flops_per_second = *flops;
  peak.bytes_per_second = CopyBytesPerSecond();
  return peak;
}

}  // namespace

absl::StatusOr<HostPeak> MeasuredHostPeak() {
  static const auto* const kPeak = new absl::StatusOr<HostPeak>(Measure());
  return *kPeak;
}

}  // namespace xlite::cpu
