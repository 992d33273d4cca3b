#include "gpu_backend/ptx_compiler.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"

namespace xlite::gpu {
namespace {

void InitializeNvptx() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

bool IsExecutable(const std::string& path) {
  return !path.empty() && access(path.c_str(), X_OK) == 0;
}

absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> NvptxMachine(
    const std::string& sm) {
  InitializeNvptx();
  std::string error;
  const llvm::Target* target =
      llvm::TargetRegistry::lookupTarget("nvptx64-nvidia-cuda", error);
  if (target == nullptr) {
    return absl::InternalError(absl::StrCat("no NVPTX target in LLVM: ", error));
  }
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      "nvptx64-nvidia-cuda", sm, "+ptx80", options, std::nullopt,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (machine == nullptr) {
    return absl::InternalError(absl::StrCat("no NVPTX machine for ", sm));
  }
  return machine;
}

}  // namespace

std::string PtxTargetFor(const GpuTargetSpec& spec) {
  if (spec.compute_capability_major >= 10) return "sm_90";
  if (spec.compute_capability_major == 9) return "sm_90a";
  return absl::StrCat("sm_", spec.compute_capability_major,
                      spec.compute_capability_minor);
}

std::string CubinArchFor(const GpuTargetSpec& spec) { return spec.SmName(); }

std::string RetargetTcgen05Ptx(std::string ptx, const GpuTargetSpec& spec) {
  if (spec.compute_capability_major < 10 ||
      ptx.find("tcgen05.") == std::string::npos) {
    return ptx;
  }
  auto replace_line = [&](const std::string& directive,
                          const std::string& line) {
    const size_t at = ptx.find(directive);
    if (at == std::string::npos) return;
    const size_t end = ptx.find('\n', at);
    ptx.replace(at, end == std::string::npos ? end : end - at, line);
  };
  replace_line(".version ", ".version 8.7");
  replace_line(".target ", absl::StrCat(".target ", CubinArchFor(spec)));
  return ptx;
}

absl::Status LinkLibdevice(llvm::Module& module) {
  bool needed = false;
  for (const llvm::Function& f : module) {
    needed |= f.isDeclaration() && f.getName().starts_with("__nv_");
  }
  if (needed) {
    const char* env = std::getenv("XLITE_LIBDEVICE");
    const std::string path =
        env != nullptr ? env : "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc";
    auto buffer = llvm::MemoryBuffer::getFile(path);
    if (!buffer) {
      return absl::NotFoundError(absl::StrCat(
          "libdevice not found at ", path, " (set XLITE_LIBDEVICE)"));
    }
    auto libdevice = llvm::parseBitcodeFile((*buffer)->getMemBufferRef(),
                                            module.getContext());
    if (!libdevice) {
      return absl::InternalError(absl::StrCat(
          "reading ", path, ": ", llvm::toString(libdevice.takeError())));
    }
    (*libdevice)->setTargetTriple(module.getTargetTriple());
    (*libdevice)->setDataLayout(module.getDataLayout());
    if (llvm::Linker::linkModules(module, std::move(*libdevice),
                                  llvm::Linker::Flags::LinkOnlyNeeded)) {
      return absl::InternalError("linking libdevice failed");
    }
  }
  // Everything but the kernels is internal: unused code goes away.
  for (llvm::Function& f : module) {
    if (!f.isDeclaration() &&
        f.getCallingConv() != llvm::CallingConv::PTX_Kernel) {
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
    }
  }
  if (module.getModuleFlag("nvvm-reflect-ftz") == nullptr) {
    module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t{0});
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> CompileToPtx(llvm::Module& module,
                                         const std::string& ptx_target) {
  absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> machine =
      NvptxMachine(ptx_target);
  if (!machine.ok()) return machine.status();
  module.setDataLayout((*machine)->createDataLayout());
  if (absl::Status s = LinkLibdevice(module); !s.ok()) return s;
  {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb(machine->get());
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2)
        .run(module, mam);
  }
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream os(text);
  llvm::legacy::PassManager passes;
  if ((*machine)->addPassesToEmitFile(passes, os, nullptr,
                                      llvm::CodeGenFileType::AssemblyFile)) {
    return absl::InternalError("the NVPTX target cannot emit PTX");
  }
  passes.run(module);
  return std::string(text.str());
}

absl::StatusOr<std::string> FindPtxas() {
  if (const char* env = std::getenv("XLITE_PTXAS"); env != nullptr) {
    if (IsExecutable(env)) return std::string(env);
    return absl::NotFoundError(
        absl::StrCat("XLITE_PTXAS=", env, " is not an executable"));
  }
  if (IsExecutable("/usr/local/cuda/bin/ptxas")) {
    return std::string("/usr/local/cuda/bin/ptxas");
  }
  if (const char* path = std::getenv("PATH"); path != nullptr) {
    for (absl::string_view dir : absl::StrSplit(path, ':')) {
      std::string candidate = absl::StrCat(dir, "/ptxas");
      if (IsExecutable(candidate)) return candidate;
    }
  }
  return absl::NotFoundError(
      "ptxas not found: set XLITE_PTXAS, install the CUDA toolkit under "
      "/usr/local/cuda, or put ptxas on PATH");
}

absl::StatusOr<std::string> AssembleWithPtxas(const std::string& ptx,
                                              const std::string& arch,
                                              std::string* resource_log) {
  absl::StatusOr<std::string> ptxas = FindPtxas();
  if (!ptxas.ok()) return ptxas.status();
  char dir_template[] = "/tmp/xlite-ptxas-XXXXXX";
  if (mkdtemp(dir_template) == nullptr) {
    return absl::InternalError("cannot make a temporary directory for ptxas");
  }
  const std::string dir = dir_template;
  const std::string in = dir + "/kernels.ptx", out = dir + "/kernels.cubin",
                    log = dir + "/ptxas.log";
  std::ofstream(in) << ptx;
  const pid_t pid = fork();
  if (pid == 0) {
    std::freopen(log.c_str(), "w", stderr);
    std::freopen(log.c_str(), "a", stdout);
    const std::string arch_flag = "-arch=" + arch;
    if (resource_log != nullptr) {
      execl(ptxas->c_str(), "ptxas", "-v", arch_flag.c_str(), in.c_str(), "-o",
            out.c_str(), static_cast<char*>(nullptr));
    } else {
      execl(ptxas->c_str(), "ptxas", arch_flag.c_str(), in.c_str(), "-o",
            out.c_str(), static_cast<char*>(nullptr));
    }
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) < 0) {
    return absl::InternalError("cannot run ptxas");
  }
  std::stringstream messages, cubin;
  messages << std::ifstream(log).rdbuf();
  const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (ok) cubin << std::ifstream(out, std::ios::binary).rdbuf();
  if (resource_log != nullptr) *resource_log = messages.str();
  std::remove(in.c_str());
  std::remove(out.c_str());
  std::remove(log.c_str());
  rmdir(dir.c_str());
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ptxas -arch=", arch, " failed: ", messages.str()));
  }
  return cubin.str();
}

}  // namespace xlite::gpu
