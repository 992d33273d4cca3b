#ifndef XLITE_CODEGEN_GPU_KERNELS_H_
#define XLITE_CODEGEN_GPU_KERNELS_H_

// The individual kernel emitters behind EmitKernel (kernel_emitter.h).
// Internal to codegen/gpu.

#include <optional>
#include <string>
#include <vector>

#include "codegen/gpu/kernel_emitter.h"

namespace xlite::codegen::gpu {

absl::StatusOr<LaunchDims> EmitLoopKernel(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params);

/// A sort, serially per row (sort_kernel.cc).
absl::StatusOr<LaunchDims> EmitSortKernel(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params);

/// A scatter, or a fusion whose root is one: the init copy and the
/// updates (scatter_kernel.cc).
absl::StatusOr<std::vector<KernelLaunch>> EmitScatterKernels(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params);
/// Whether operand `operand_number` of the scatter (fusion) `hlo` is only
/// a scattered operand (read by the init copy at the index it writes).
bool ScatterReadsInPlace(const HloInstruction* hlo, int64_t operand_number);

/// select-and-scatter: the init value, then the selections and their
/// combining (select_and_scatter_kernel.cc).
absl::StatusOr<std::vector<KernelLaunch>> EmitSelectAndScatterKernels(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params);

/// rng-bit-generator, one thread per element (rng_bit_generator_kernel.cc).
absl::StatusOr<LaunchDims> EmitRngBitGeneratorKernel(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params);

/// Whether `hlo` is a top-k: the topk op or the "TopK" custom call.
bool IsTopK(const HloInstruction* hlo);
/// top-k by ranks, one thread per operand element (top_k_kernel.cc).
absl::StatusOr<LaunchDims> EmitTopKKernel(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params);

/// fft as a direct DFT, one thread per output element (fft_kernel.cc).
absl::StatusOr<LaunchDims> EmitFftKernel(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params);

/// Whether `hlo` is cholesky / triangular-solve (the opcodes or the LAPACK
/// FFI calls), and whether its kernel reads operand `operand_number` only
/// before writing the same element (the calls' in-place operand).
bool IsLinalg(const HloInstruction* hlo);
bool LinalgReadsInPlace(const HloInstruction* hlo, int64_t operand_number);
/// cholesky / triangular-solve, one thread per matrix (linalg_kernels.cc).
absl::StatusOr<LaunchDims> EmitLinalgKernel(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params);

/// How a reduce's dimensions lie in its operand's layout.
struct ReductionShape {
  bool is_row = false;
  /// Operand dimensions, major to minor, reduced and kept.
  std::vector<int64_t> reduced;
  std::vector<int64_t> kept;
};
/// The row or column shape of a single-output reduce computed by `hlo`
/// (the instruction or its fused root), or nullopt when neither applies.
std::optional<ReductionShape> ClassifyReduction(const HloInstruction* hlo);

absl::StatusOr<LaunchDims> EmitRowReduction(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const ReductionShape& shape, const std::string& name,
    const std::vector<KernelParam>& params);

absl::StatusOr<LaunchDims> EmitColumnReduction(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const ReductionShape& shape, const std::string& name,
    const std::vector<KernelParam>& params);

/// Whether `hlo` is a dynamic-update-slice (or a fusion rooted at one or
/// at a tuple of them) whose operand the kernels may update in place, and
/// whether operand `operand_number` is such an updated operand
/// (dynamic_update_slice_kernel.cc).
bool IsInPlaceDynamicUpdateSlice(const HloInstruction* hlo);
bool InPlaceDusReadsInPlace(const HloInstruction* hlo, int64_t operand_number);
/// The operand copy ("<name>_init", skipped in place) and the update window;
/// one loop kernel when no result shares its operand's buffer.
absl::StatusOr<std::vector<KernelLaunch>> EmitInPlaceDusKernels(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params);

/// Whether the concatenate kernel computes `hlo`: a concatenate, or a
/// fusion with an array result that is one followed only by elementwise
/// instructions (concatenate_kernel.cc).
bool IsConcatenateKernel(const HloInstruction* hlo);
/// One thread per index of the longest operand, writing each operand's
/// element (through the elementwise epilogue) there at its offset.
absl::StatusOr<LaunchDims> EmitConcatenateKernel(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params);

/// A tiled transpose: its hero (a transpose, or a copy changing layout)
/// and the normalized view of the hero's operand (transpose_kernel.cc).
struct TransposeTiling {
  const HloInstruction* hero = nullptr;
  /// Normalized dimensions, in the operand's physical order: each a run of
  /// operand dimensions (major to minor) that stays together.
  std::vector<std::vector<int64_t>> runs;
  std::vector<int64_t> sizes;
  /// The normalized dimension that becomes the result's minor one, the
  /// operand's minor one, and the others.
  int64_t a = -1;
  int64_t c = -1;
  std::vector<int64_t> batch;
};
/// The tiling of `hlo` when the transpose kernel computes it: its result
/// is one transpose moving the minor dimension (large enough), followed
/// only by elementwise instructions.
std::optional<TransposeTiling> TiledTransposeOf(const HloInstruction* hlo);
absl::StatusOr<LaunchDims> EmitTransposeKernel(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const TransposeTiling& tiling, const std::string& name,
    const std::vector<KernelParam>& params);

/// Whether `hlo` is a fusion marked as a tiled GEMM
/// (hlo/ir/tiled_gemm_config.h).
bool IsTiledGemmKernel(const HloInstruction* hlo);
/// One dot and its elementwise epilogue, a block per output tile staged
/// through shared memory (tiled_gemm_kernel.cc).
absl::StatusOr<LaunchDims> EmitTiledGemmKernel(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params);

}  // namespace xlite::codegen::gpu

#endif  // XLITE_CODEGEN_GPU_KERNELS_H_
