#include "gpu_backend/emulator/host_jit.h"

#include <mutex>

#include "absl/strings/str_cat.h"
#include "gpu_backend/emulator/emulator_runtime.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/TargetSelect.h"

namespace xlite::gpu::emulator {
namespace {

absl::Status ToStatus(llvm::Error error, absl::string_view what) {
  return absl::InternalError(
      absl::StrCat(what, ": ", llvm::toString(std::move(error))));
}

}  // namespace

void OptimizeForHost(llvm::Module& module) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2)
      .run(module, mam);
}

absl::StatusOr<std::unique_ptr<HostJit>> HostJit::Create() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) return ToStatus(builder.takeError(), "detecting the host");
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Default);
  auto jit =
      llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(*builder).create();
  if (!jit) return ToStatus(jit.takeError(), "creating the emulator JIT");
  auto result = std::unique_ptr<HostJit>(new HostJit());
  result->jit_ = std::move(*jit);
  llvm::orc::JITDylib& dylib = result->jit_->getMainJITDylib();
  llvm::orc::SymbolMap map;
  for (const auto& [name, address] : EmulatorRuntimeSymbols()) {
    map[result->jit_->mangleAndIntern(name)] = {
        llvm::orc::ExecutorAddr::fromPtr(address),
        llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  }
  if (llvm::Error e = dylib.define(llvm::orc::absoluteSymbols(map))) {
    return ToStatus(std::move(e), "defining the emulator runtime");
  }
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      result->jit_->getDataLayout().getGlobalPrefix());
  if (!process) return ToStatus(process.takeError(), "process symbols");
  dylib.addGenerator(std::move(*process));
  return result;
}

std::string HostJit::triple() const { return jit_->getTargetTriple().str(); }
std::string HostJit::data_layout() const {
  return jit_->getDataLayout().getStringRepresentation();
}

absl::Status HostJit::AddModule(std::unique_ptr<llvm::LLVMContext> context,
                                std::unique_ptr<llvm::Module> module) {
  OptimizeForHost(*module);
  if (llvm::Error e = jit_->addIRModule(llvm::orc::ThreadSafeModule(
          std::move(module), std::move(context)))) {
    return ToStatus(std::move(e), "adding kernels to the emulator JIT");
  }
  return absl::OkStatus();
}

absl::StatusOr<void*> HostJit::Lookup(const std::string& name) {
  auto symbol = jit_->lookup(name);
  if (!symbol) return ToStatus(symbol.takeError(), "looking up " + name);
  return symbol->toPtr<void*>();
}

}  // namespace xlite::gpu::emulator
