#ifndef XLITE_GPU_BACKEND_EXECUTABLE_H_
#define XLITE_GPU_BACKEND_EXECUTABLE_H_

// A module compiled by the GPU backend: the GPU pipeline, buffer assignment
// with 256-byte alignment, a thunk sequence and its kernels, built either
// for NVIDIA GPUs (NVPTX: LLVM IR, PTX, optionally cubins checked by ptxas)
// or for the emulator (the same kernels JIT-compiled for the host, run by
// an EmulatorDevice). Anything the backend cannot compile is refused here,
// naming the instruction.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "gpu_backend/gpu_pipeline.h"
#include "gpu_backend/resource_check.h"
#include "gpu_backend/target_spec.h"
#include "hlo/ir/literal.h"
#include "hlo/ir/module.h"
#include "runtime/buffer_assignment.h"
#include "runtime/gpu_thunks.h"
#include "runtime/thunk_profile.h"

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace xlite::gpu {

namespace emulator {
class EmulatorDevice;
class HostJit;
}  // namespace emulator

enum class GpuCodeTarget { kEmulator, kNvptx };

struct GpuCompileOptions {
  /// The GPU compiled for (passes gate on it; NVPTX picks its SM).
  GpuTargetSpec spec;
  GpuCodeTarget target = GpuCodeTarget::kEmulator;
  /// Run the gpu simplification pipeline first.
  bool run_passes = true;
  /// Run priority fusion and multi-output fusion (off: every unfused
  /// instruction is its own kernel; existing fusions stay).
  bool fuse = true;
  /// Expand every GEMM custom call into kernels instead of running the
  /// ones a GEMM thunk can as thunks (GpuPipelineOptions).
  bool expand_gemm_calls = false;
  /// Tiled GEMM fusions or cuBLASLt calls (GpuPipelineOptions).
  GemmBackend gemm_backend = GemmBackend::kAuto;
  /// Forces the tiling of tiled GEMM fusions (GpuPipelineOptions).
  std::optional<TiledGemmConfig> tiled_gemm_config;
  /// Paths measured on a device for --gemm-backend=auto
  /// (GpuPipelineOptions); not owned.
  const GemmPathCache* gemm_path_cache = nullptr;
  /// Tilings ruled out per fusion (GpuPipelineOptions); Compile adds those
  /// ptxas finds spilling or whose wgmma-s it serializes.
  std::map<std::string, std::vector<TiledGemmConfig>> tiled_gemm_spilled;
  /// NVPTX: also assemble the PTX with ptxas for the spec's SM (cubin()).
  bool assemble = false;
};

/// The default spec (h100) when none is given.
absl::StatusOr<GpuCompileOptions> DefaultGpuCompileOptions(
    GpuCodeTarget target);

class GpuExecutable {
 public:
  static absl::StatusOr<std::unique_ptr<GpuExecutable>> Compile(
      std::unique_ptr<HloModule> module, const GpuCompileOptions& options);
  ~GpuExecutable();

  /// Runs on the emulator (a module compiled for it); one literal per
  /// entry parameter. With `profile` (the emulator's clock), each kernel
  /// and GEMM thunk and the run are timed into it.
  absl::StatusOr<Literal> Run(absl::Span<const Literal> arguments,
                              runtime::ThunkProfile* profile = nullptr) const;

  const HloModule& module() const { return *module_; }
  const runtime::BufferAssignment& assignment() const { return *assignment_; }
  const runtime::ThunkSequence& thunks() const { return thunks_; }
  /// The kernels' LLVM IR (optimized, as compiled).
  const std::string& llvm_ir() const { return llvm_ir_; }
  /// NVPTX: the PTX, and the cubin when assembled.
  const std::string& ptx() const { return ptx_; }
  const std::string& cubin() const { return cubin_; }
  /// What each kernel launch asks of an SM, as checked against the spec
  /// (resource_check.h); registers only where ptxas ran.
  const std::vector<KernelResources>& kernel_resources() const {
    return kernel_resources_;
  }
  /// The tilings ruled out per tiled GEMM fusion to compile this (those
  /// given, plus those ptxas found spilling or serializing wgmma-s).
  const std::map<std::string, std::vector<TiledGemmConfig>>&
  tiled_gemm_spilled() const {
    return tiled_gemm_spilled_;
  }

 private:
  GpuExecutable() = default;
  static absl::StatusOr<std::unique_ptr<GpuExecutable>> CompileOnce(
      std::unique_ptr<HloModule> module, const GpuCompileOptions& options);
  absl::Status BuildForEmulator(std::unique_ptr<llvm::LLVMContext>& context,
                                std::unique_ptr<llvm::Module>& kernels);

  std::unique_ptr<HloModule> module_;
  std::unique_ptr<runtime::BufferAssignment> assignment_;
  runtime::ThunkSequence thunks_;
  std::string llvm_ir_;
  std::string ptx_;
  std::string cubin_;
  std::vector<KernelResources> kernel_resources_;
  std::map<std::string, std::vector<TiledGemmConfig>> tiled_gemm_spilled_;
  std::unique_ptr<emulator::HostJit> jit_;
  std::unique_ptr<emulator::EmulatorDevice> device_;
};

}  // namespace xlite::gpu

#endif  // XLITE_GPU_BACKEND_EXECUTABLE_H_
