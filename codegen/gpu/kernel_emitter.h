#ifndef XLITE_CODEGEN_GPU_KERNEL_EMITTER_H_
#define XLITE_CODEGEN_GPU_KERNEL_EMITTER_H_

// GPU kernels for HLO instructions, written once against KernelTarget and
// built from the elemental emitter's element values:
//   - loop kernel (loop_kernel.cc): a fusion or a single elemental
//     instruction, a few elements per thread, bounds-checked, every leaf
//     of a multi-output result;
//   - row reduction (row_reduction.cc): reduced dimensions physically
//     minor, a warp per row (several rows per warp for short rows), partial
//     results combined by warp shuffles;
//   - column reduction (column_reduction.cc): reduced dimensions physically
//     major, a 32-column tile per block, partials through shared memory;
//   - tiled transpose (transpose_kernel.cc): a 32x32 tile per block read
//     along the operand's minor dimension into shared memory and written
//     along the result's;
//   - concatenate (concatenate_kernel.cc): one thread per index of the
//     longest operand, writing every operand's element there at its offset;
//   - in-place dynamic-update-slice (dynamic_update_slice_kernel.cc): the
//     operand copy (skipped in place), then the update window only;
//   - tiled GEMM (tiled_gemm_kernel.cc): a fusion marked as a tiled GEMM,
//     one dot with its operands' producers and elementwise epilogue, a
//     block per output tile, operand tiles staged through shared memory.
// Any reducer computation is applied through ElementalEmitter::EmitApplied.
//
// A kernel takes one pointer per array: every array leaf of every operand
// of the instruction, in order, then every array leaf of its result
// (KernelArguments), so the backend passes the matching buffer slices.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/kernel_target.h"
#include "hlo/ir/instruction.h"
#include "hlo/ir/tiled_gemm_config.h"
#include "llvm/IR/Module.h"

namespace xlite::codegen::gpu {

/// A TMA tensor map a kernel takes after its pointer parameters (the
/// runtime encodes it at each launch; runtime/gpu_thunks.h,
/// TensorMapDescription): kernel argument `argument`'s buffer viewed as a
/// tensor of dims.size() dimensions, innermost first, `strides` bytes
/// apart (strides[0] = element_bytes), copied in boxes of `box`
/// elements, 128-byte swizzled when `swizzle_128b`.
struct TensorMapParam {
  int64_t argument = 0;
  int64_t element_bytes = 1;
  std::vector<int64_t> dims, strides, box;
  bool swizzle_128b = false;
};

/// How a kernel is launched (x dimension only).
struct LaunchDims {
  int64_t grid = 1;
  int64_t block = 1;
  /// Shared memory per block, bytes: all of it, static and dynamic (the
  /// tiled GEMM's tiles past 48 KiB are dynamic arrays; a CUDA launch
  /// passes the part past the kernel's static arrays, opting in above
  /// 48 KiB).
  int64_t shared_bytes = 0;
  /// The kernel uses barriers or shuffles (an emulator runs its threads as
  /// cooperating fibers; others run one after another).
  bool cooperative = false;
  /// The tensor maps the kernel takes after its pointer parameters.
  std::vector<TensorMapParam> tensor_maps;
};

/// One pointer argument of a kernel: `instruction`'s array at `index`.
struct KernelArgument {
  const HloInstruction* instruction = nullptr;
  ShapeIndex index;
  Shape shape;
  bool is_output = false;
  /// For inputs: which operand of the instruction.
  int64_t operand_number = -1;
};

/// The arguments of the kernel for `hlo`, in order.
std::vector<KernelArgument> KernelArguments(const HloInstruction* hlo);

/// The instruction whose elements the kernel for `hlo` computes: the
/// fused root of a fusion, `hlo` itself otherwise.
const HloInstruction* ComputedRootOf(const HloInstruction* hlo);

/// Which emitter a kernel for `hlo` would use: "loop", "row-reduction",
/// "column-reduction", "sort", "scatter", "select-and-scatter",
/// "rng-bit-generator", "top-k", "fft", "linalg", "dynamic-update-slice",
/// "transpose", "concatenate" or "tiled-gemm".
std::string KernelKind(const HloInstruction* hlo);

/// One kernel launch of an instruction.
struct KernelLaunch {
  std::string name;
  LaunchDims dims;
  /// Set when the launch only copies kernel argument `first` into argument
  /// `second` (elementwise, same shapes), for every pair: the backend skips
  /// it when each pair is one buffer slice.
  std::vector<std::pair<int64_t, int64_t>> copies;
};

/// Emits the kernels computing `hlo`, to be launched in order, each taking
/// the KernelArguments: one (`name`) for most instructions; a scatter's
/// result is initialized by a first launch ("<name>_init", a copy), and so
/// is an in-place dynamic-update-slice's.
absl::StatusOr<std::vector<KernelLaunch>> EmitKernels(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params);

/// Whether the kernels for `hlo` read its operand `operand_number` only at
/// the element they write to, so that its result may share that operand's
/// buffer.
bool ReadsOperandInPlace(const HloInstruction* hlo, int64_t operand_number);

/// A dot as the tiled GEMM kernel sees it: batch x (M x K) . (K x N),
/// each the product of its dimensions' sizes.
struct TiledGemmSizes {
  int64_t batch = 1, m = 1, n = 1, k = 1;
};
TiledGemmSizes TiledGemmSizesOf(const HloInstruction& dot);

/// The shared memory the tiled GEMM kernel of fusion `fusion` (marked with
/// its tiling, hlo/ir/tiled_gemm_config.h) allocates, in bytes: what the
/// tile heuristic checks against a GPU's limit before compiling (static
/// arrays up to kMaxStaticSharedBytes, dynamic past it). 0 when `fusion`
/// is not such a fusion.
int64_t TiledGemmSharedBytes(const HloInstruction& fusion);

/// Whether the tiled GEMM kernel of `dot` with `config` copies both
/// operand tiles by cp.async as far as the dot tells (tensor cores, each
/// operand a parameter in the mma's input type, K physically minor in
/// 16-byte rows): what a tiling of more than 2 stages needs. The kernel
/// also needs each parameter 16-byte aligned, known only at emission.
bool TiledGemmCopiesTilesAsync(const HloInstruction& dot,
                               const TiledGemmConfig& config);

/// Whether both sides of `dot` with `c` (c.tma) may take tensor maps as
/// far as the dot tells (PlanTensorMap but for the parameters'
/// alignment): the kernel then lays its tiles out 1024-byte aligned for
/// TMA, with its mbarriers after the rhs tiles (TmaBarrierBytes), whether
/// or not the parameters turn out aligned.
bool TiledGemmTakesTensorMaps(const HloInstruction& dot,
                              const TiledGemmConfig& c);

/// Whether the tiled GEMM kernel of `dot` with `config` multiplies f8
/// operands as they are (1-byte tiles, the tensor cores' f8 rate): a
/// warpgroup tiling (sm_90a; wgmma's e4m3 and e5m2 kinds, which are
/// K-major only) of a dot whose operands are both f8e4m3fn or f8e5m2, at
/// DEFAULT precision without an algorithm (or with
/// dot_any_f8_any_f8_f32_fast_accum): wgmma accumulates f8 products in
/// less than f32, as cuBLASLt's fast accumulation that XLA then uses.
/// Elsewhere f8 operands convert exactly to f16 (or bf16) first and
/// accumulate in f32.
bool TiledGemmTakesF8(const HloInstruction& dot, const TiledGemmConfig& config);

/// Whether a kernel computes `hlo` though its opcode is a custom call (the
/// "TopK" call, the LAPACK potrf / trsm FFI calls).
bool IsKernelCustomCall(const HloInstruction* hlo);

/// Emits kernel `name` computing `hlo` into `module`; `params` (one per
/// KernelArguments entry) carry aliasing and alignment. An error names the
/// instruction when no GPU kernel can compute it.
absl::StatusOr<LaunchDims> EmitKernel(KernelTarget& target,
                                      llvm::Module& module,
                                      const HloInstruction* hlo,
                                      const std::string& name,
                                      const std::vector<KernelParam>& params);

}  // namespace xlite::codegen::gpu

#endif  // XLITE_CODEGEN_GPU_KERNEL_EMITTER_H_
