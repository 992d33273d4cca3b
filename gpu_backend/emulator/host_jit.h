#ifndef XLITE_GPU_BACKEND_EMULATOR_HOST_JIT_H_
#define XLITE_GPU_BACKEND_EMULATOR_HOST_JIT_H_

// A small ORC LLJIT for the emulator: kernel modules built with
// EmulatorTarget are optimized (O2) and compiled for the host, with the
// emulator runtime and the process's libm visible to them. (The CPU
// backend has its own JIT; backends do not share code with each other.)

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/Module.h"

namespace xlite::gpu::emulator {

class HostJit {
 public:
  static absl::StatusOr<std::unique_ptr<HostJit>> Create();

  /// The triple and data layout kernel modules must be built for.
  std::string triple() const;
  std::string data_layout() const;

  /// Optimizes and adds `module` (with its context).
  absl::Status AddModule(std::unique_ptr<llvm::LLVMContext> context,
                         std::unique_ptr<llvm::Module> module);

  absl::StatusOr<void*> Lookup(const std::string& name);

 private:
  std::unique_ptr<llvm::orc::LLJIT> jit_;
};

/// LLVM's O2 pipeline on `module` (for the host).
void OptimizeForHost(llvm::Module& module);

}  // namespace xlite::gpu::emulator

#endif  // XLITE_GPU_BACKEND_EMULATOR_HOST_JIT_H_
