#include "cpu_backend/jit.h"

#include <algorithm>
#include <mutex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cpu_backend/ldexp_lowering.h"
#include "cpu_backend/read_ahead.h"
#include "cpu_backend/streaming_stores.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/Utils/Cloning.h"

namespace xlite::cpu {

namespace {

void InitializeLlvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

absl::Status ToStatus(llvm::Error error, absl::string_view what) {
  std::string message = llvm::toString(std::move(error));
  return absl::InternalError(absl::StrCat(what, ": ", message));
}

// The host's target machine settings, shared by the JIT and by the target
// machine that emits its objects. LLJIT links with JITLink on x86-64 and
// AArch64 ELF, which wants position-independent code in the small code
// model; saying so here keeps both sides in agreement.
absl::StatusOr<llvm::orc::JITTargetMachineBuilder> HostMachineBuilder() {
  InitializeLlvm();
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) return ToStatus(builder.takeError(), "detecting the host CPU");
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Default);
  builder->setRelocationModel(llvm::Reloc::PIC_);
  builder->setCodeModel(llvm::CodeModel::Small);
  return std::move(*builder);
}

}  // namespace

std::string HostCpuName() { return llvm::sys::getHostCPUName().str(); }

std::string HostCpuFeatures() {
  std::vector<std::string> features;
  for (const auto& [name, enabled] : llvm::sys::getHostCPUFeatures()) {
    features.push_back((enabled ? "+" : "-") + name.str());
  }
  // A StringMap's order is its hash table's; sort for a stable string.
  std::sort(features.begin(), features.end());
  return absl::StrJoin(features, ",");
}

absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> HostTargetMachine() {
  absl::StatusOr<llvm::orc::JITTargetMachineBuilder> builder =
      HostMachineBuilder();
  if (!builder.ok()) return builder.status();
  auto machine = builder->createTargetMachine();
  if (!machine) return ToStatus(machine.takeError(), "host target machine");
  return std::move(*machine);
}

void OptimizeModule(llvm::Module& module, llvm::TargetMachine* machine) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  // SLP vectorization as clang's -O2 has it: the joint lanes of a
  // reduction (codegen ValuesAt) are W scalar chains that it turns into
  // vector ones, each lane's operations unchanged.
  llvm::PipelineTuningOptions tuning;
  tuning.SLPVectorization = true;
  llvm::PassBuilder pb(machine, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.registerOptimizerLastEPCallback([machine](llvm::ModulePassManager& passes,
                                               llvm::OptimizationLevel) {
    passes.addPass(LowerLdexpCalls(machine));
    passes.addPass(
        llvm::createModuleToFunctionPassAdaptor(MarkStreamingStores()));
    passes.addPass(
        llvm::createModuleToFunctionPassAdaptor(InsertReadAheadPrefetches()));
  });
  llvm::ModulePassManager mpm =
      pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
  mpm.run(module, mam);
}

absl::StatusOr<std::string> EmitAssembly(const llvm::Module& module,
                                         llvm::TargetMachine* machine) {
  std::unique_ptr<llvm::Module> copy = llvm::CloneModule(module);
  llvm::SmallString<4096> text;
  llvm::raw_svector_ostream os(text);
  llvm::legacy::PassManager passes;
  if (machine->addPassesToEmitFile(passes, os, nullptr,
                                   llvm::CodeGenFileType::AssemblyFile)) {
    return absl::InternalError("the host target cannot emit assembly");
  }
  passes.run(*copy);
  return std::string(text.str());
}

absl::StatusOr<std::string> EmitObject(llvm::Module& module,
                                       llvm::TargetMachine* machine) {
  llvm::SmallString<0> bytes;
  llvm::raw_svector_ostream os(bytes);
  llvm::legacy::PassManager passes;
  if (machine->addPassesToEmitFile(passes, os, nullptr,
                                   llvm::CodeGenFileType::ObjectFile)) {
    return absl::InternalError("the host target cannot emit object files");
  }
  passes.run(module);
  return std::string(bytes.str());
}

absl::StatusOr<std::unique_ptr<CpuJit>> CpuJit::Create(
    const std::vector<std::pair<const char*, void*>>& symbols) {
  absl::StatusOr<llvm::orc::JITTargetMachineBuilder> builder =
      HostMachineBuilder();
  if (!builder.ok()) return builder.status();
  auto result = std::unique_ptr<CpuJit>(new CpuJit());
  result->cpu_name_ = builder->getCPU();
  result->cpu_features_ = HostCpuFeatures();
  auto jit = llvm::orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(std::move(*builder))
                 .create();
  if (!jit) return ToStatus(jit.takeError(), "creating the JIT");
  result->jit_ = std::move(*jit);
  llvm::orc::JITDylib& dylib = result->jit_->getMainJITDylib();
  llvm::orc::SymbolMap map;
  for (const auto& [name, address] : symbols) {
    map[result->jit_->mangleAndIntern(name)] = {
        llvm::orc::ExecutorAddr::fromPtr(address),
        llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  }
  if (!map.empty()) {
    if (llvm::Error e = dylib.define(llvm::orc::absoluteSymbols(map))) {
      return ToStatus(std::move(e), "defining runtime symbols");
    }
  }
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      result->jit_->getDataLayout().getGlobalPrefix());
  if (!process) return ToStatus(process.takeError(), "process symbols");
  dylib.addGenerator(std::move(*process));
  return result;
}

absl::Status CpuJit::AddObject(absl::string_view object,
                               absl::string_view name) {
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(object.data(), object.size()),
          llvm::StringRef(name.data(), name.size()));
  if (llvm::Error e = jit_->addObjectFile(std::move(buffer))) {
    return ToStatus(std::move(e), "linking the module's object file");
  }
  return absl::OkStatus();
}

absl::StatusOr<void*> CpuJit::Lookup(const std::string& name) {
  auto symbol = jit_->lookup(name);
  if (!symbol) return ToStatus(symbol.takeError(), "looking up " + name);
  return symbol->toPtr<void*>();
}

}  // namespace xlite::cpu
