#ifndef XLITE_GPU_BACKEND_PTX_COMPILER_H_
#define XLITE_GPU_BACKEND_PTX_COMPILER_H_

// From a kernel module built with NvptxTarget to PTX and cubins: libdevice
// linked in (only what is called, then internalized), LLVM's O2 and NVPTX
// code generation for the spec's SM, and ptxas (run as a subprocess) for
// the cubin. LLVM 19 stops at sm_90a / PTX 8.5: Blackwell gets sm_90 PTX,
// which ptxas compiles for sm_100a and later.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gpu_backend/target_spec.h"
#include "llvm/IR/Module.h"

namespace xlite::gpu {

/// The PTX target LLVM emits for `spec`: "sm_90a" for Hopper, "sm_90" for
/// Blackwell and later, the spec's own SM below.
std::string PtxTargetFor(const GpuTargetSpec& spec);

/// The SASS architecture ptxas compiles for: the spec's SmName().
std::string CubinArchFor(const GpuTargetSpec& spec);

/// Links libdevice into `module` when it calls __nv_* functions
/// ($XLITE_LIBDEVICE, else the CUDA toolkit's nvvm/libdevice).
absl::Status LinkLibdevice(llvm::Module& module);

/// Optimizes `module` (O2) for `ptx_target` and prints its PTX. The module
/// is left optimized (what --stage=llvm shows).
absl::StatusOr<std::string> CompileToPtx(llvm::Module& module,
                                         const std::string& ptx_target);

/// `ptx` (LLVM's, for PtxTargetFor(spec)) as PTX ISA 8.7 for `spec`'s own
/// architecture (CubinArchFor) when it uses tcgen05 instructions (inline
/// PTX LLVM 19 cannot target: they need ISA 8.6 and sm_100a or later);
/// otherwise unchanged. Only a Blackwell spec's PTX may use them.
std::string RetargetTcgen05Ptx(std::string ptx, const GpuTargetSpec& spec);

/// ptxas: $XLITE_PTXAS, else /usr/local/cuda/bin/ptxas, else on PATH; an
/// error saying so when none is found.
absl::StatusOr<std::string> FindPtxas();

/// Assembles `ptx` with `ptxas -arch=<arch>`; the cubin, or ptxas's
/// messages as the error. With `resource_log`, ptxas also runs with -v and
/// its report of each kernel's registers and shared memory lands there.
absl::StatusOr<std::string> AssembleWithPtxas(
    const std::string& ptx, const std::string& arch,
    std::string* resource_log = nullptr);

}  // namespace xlite::gpu

#endif  // XLITE_GPU_BACKEND_PTX_COMPILER_H_
