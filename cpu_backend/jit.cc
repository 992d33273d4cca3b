#include "cpu_backend/jit.h"

#include <mutex>

#include "absl/strings/str_cat.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

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

std::string HostFeatures() {
  std::string features;
  for (const auto& [name, enabled] : llvm::sys::getHostCPUFeatures()) {
    if (!features.empty()) features += ",";
    features += (enabled ? "+" : "-") + name.str();
  }
  return features;
}

}  // namespace

absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> HostTargetMachine() {
  InitializeLlvm();
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) return ToStatus(builder.takeError(), "detecting the host CPU");
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Default);
  auto machine = builder->createTargetMachine();
  if (!machine) return ToStatus(machine.takeError(), "host target machine");
  return std::move(*machine);
}

void OptimizeModule(llvm::Module& module, llvm::TargetMachine* machine) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(machine);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
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

absl::StatusOr<std::unique_ptr<CpuJit>> CpuJit::Create(
    const std::vector<std::pair<const char*, void*>>& symbols) {
  InitializeLlvm();
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) return ToStatus(builder.takeError(), "detecting the host CPU");
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Default);
  auto result = std::unique_ptr<CpuJit>(new CpuJit());
  result->cpu_name_ = builder->getCPU();
  result->cpu_features_ = HostFeatures();
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

absl::Status CpuJit::AddModule(std::unique_ptr<llvm::Module> module,
                               std::unique_ptr<llvm::LLVMContext> context) {
  llvm::orc::ThreadSafeModule tsm(std::move(module), std::move(context));
  if (llvm::Error e = jit_->addIRModule(std::move(tsm))) {
    return ToStatus(std::move(e), "compiling the module");
  }
  return absl::OkStatus();
}

absl::StatusOr<void*> CpuJit::Lookup(const std::string& name) {
  auto symbol = jit_->lookup(name);
  if (!symbol) return ToStatus(symbol.takeError(), "looking up " + name);
  return symbol->toPtr<void*>();
}

}  // namespace xlite::cpu
