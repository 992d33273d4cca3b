#ifndef XLITE_GPU_BACKEND_RESOURCE_CHECK_H_
#define XLITE_GPU_BACKEND_RESOURCE_CHECK_H_

// Compile-time checks that every kernel fits the target GPU, so that a
// kernel too big for it is refused when it is compiled, naming the
// instruction and the numbers, instead of failing its launch on the device
// (or, for tensor memory, hanging in tcgen05.alloc):
//   - shared memory per block, static plus dynamic, at most the spec's
//     opt-in limit (GpuTargetSpec::shared_memory_per_block; unchecked when
//     a spec file leaves it 0);
//   - registers, when ptxas ran and reported them: at most 255 per
//     thread, and per block at most the SM's register file, allocated per
//     warp in units of 256 registers;
//   - tensor memory, on targets with tcgen05 (compute capability 10.x with
//     the "a" or "f" feature set: sm_100a, sm_103a; not sm_120): at most 512
//     columns held at once by one block (a column count the PTX does not
//     show as a constant, nor a register moved from one, is not counted).
// All three fail with RESOURCE_EXHAUSTED listing every kernel over a limit.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "gpu_backend/target_spec.h"
#include "runtime/gpu_thunks.h"

namespace xlite::gpu {

/// Tensor-memory columns of one SM (Blackwell's tcgen05).
inline constexpr int64_t kTensorMemoryColumns = 512;
/// Registers one thread may use.
inline constexpr int64_t kMaxRegistersPerThread = 255;

/// What one kernel launch asks of an SM, as far as compile time knows.
struct KernelResources {
  /// The kernel's symbol and the instruction (fusion) it computes.
  std::string kernel;
  std::string instruction;
  int64_t threads_per_block = 1;
  int64_t static_shared_bytes = 0;
  int64_t dynamic_shared_bytes = 0;
  /// Registers per thread; known only when ptxas ran.
  std::optional<int64_t> registers_per_thread;
  /// Bytes of register spills (stores and loads); when ptxas ran.
  int64_t spill_bytes = 0;
  /// ptxas's report that it serialized the kernel's wgmma-s; when ptxas
  /// ran, empty if it did not.
  std::string wgmma_serialized;
  /// Peak tensor-memory columns it allocates (0: none).
  int64_t tensor_memory_columns = 0;
};

/// Whether `spec` has tensor memory (tcgen05): 10.x with "a" or "f".
bool HasTensorMemory(const GpuTargetSpec& spec);

/// One entry per kernel launch of `thunks` (nested sequences included).
/// Shared memory: the launch's shared bytes describe the kernel's static
/// arrays (codegen's LaunchDims); when `ptx` is given, the static bytes are
/// the PTX's (ptxas's when `ptxas_log` has them) and any launch bytes
/// beyond those count as dynamic. Registers come from `ptxas_log` (a
/// `ptxas -v` report), tensor memory from the PTX.
std::vector<KernelResources> CollectKernelResources(
    const runtime::ThunkSequence& thunks, absl::string_view ptx = "",
    absl::string_view ptxas_log = "");

/// OK when every kernel fits `spec`; else RESOURCE_EXHAUSTED naming each
/// kernel over a limit, its instruction, what it needs and the limit of
/// the spec (name and SM).
absl::Status CheckKernelResources(const std::vector<KernelResources>& kernels,
                                  const GpuTargetSpec& spec);

}  // namespace xlite::gpu

#endif  // XLITE_GPU_BACKEND_RESOURCE_CHECK_H_
