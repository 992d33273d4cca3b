#ifndef XLITE_CPU_BACKEND_JIT_H_
#define XLITE_CPU_BACKEND_JIT_H_

// An ORC JIT for the host CPU (its own features), with the process's
// symbols (libm) and the runtime library's functions visible to generated
// code. One per compiled module; it owns the machine code. Modules reach it
// as host object files (EmitObject), so that a compiled module's object can
// be kept (compile_cache.h) and linked again later without LLVM's code
// generation.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/Module.h"

namespace xlite::cpu {

class CpuJit {
 public:
  /// A JIT whose generated code may call `symbols` by name.
  static absl::StatusOr<std::unique_ptr<CpuJit>> Create(
      const std::vector<std::pair<const char*, void*>>& symbols);

  /// The data layout and triple modules must be built for.
  const llvm::DataLayout& data_layout() const { return jit_->getDataLayout(); }
  std::string target_triple() const { return jit_->getTargetTriple().str(); }
  /// The host CPU name and features the code is compiled for.
  const std::string& cpu_name() const { return cpu_name_; }
  const std::string& cpu_features() const { return cpu_features_; }

  /// Links a host object file (from EmitObject) into the JIT.
  absl::Status AddObject(absl::string_view object, absl::string_view name);

  /// The address of a compiled function.
  absl::StatusOr<void*> Lookup(const std::string& name);

 private:
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::string cpu_name_;
  std::string cpu_features_;
};

/// Runs LLVM's O2 pipeline on `module` for the host (used before JIT and
/// for `hlo-opt --stage=llvm`).
void OptimizeModule(llvm::Module& module, llvm::TargetMachine* machine);

/// The host assembly of `module` (a copy is compiled; `module` is kept).
absl::StatusOr<std::string> EmitAssembly(const llvm::Module& module,
                                         llvm::TargetMachine* machine);

/// The host object file of `module` (compiled in place: `module` is left
/// as code generation leaves it), for CpuJit::AddObject.
absl::StatusOr<std::string> EmitObject(llvm::Module& module,
                                       llvm::TargetMachine* machine);

/// The host's target machine, configured as the JIT's own (position
/// independent, small code model): objects it emits link into a CpuJit, and
/// --stage=asm shows the code that runs.
absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> HostTargetMachine();

/// The host CPU's name and its features ("+avx2,-avx512f,..."), which code
/// compiled here may use.
std::string HostCpuName();
std::string HostCpuFeatures();

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_JIT_H_
