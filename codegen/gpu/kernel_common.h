#ifndef XLITE_CODEGEN_GPU_KERNEL_COMMON_H_
#define XLITE_CODEGEN_GPU_KERNEL_COMMON_H_

// What every GPU kernel emitter does: declare the kernel, bind the
// instruction's operands to the kernel's pointer arguments for the
// elemental emitter, find the instruction computed (the fused root), and
// small index and control-flow helpers. Internal to codegen/gpu.

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "codegen/elemental.h"
#include "codegen/gpu/kernel_emitter.h"
#include "codegen/ir_array.h"
#include "codegen/kernel_target.h"
#include "hlo/ir/computation.h"

namespace xlite::codegen::gpu {

/// A kernel being emitted: its function, builder, elemental emitter with
/// the operands bound, and its result arrays (one per array leaf).
struct KernelScope {
  KernelTarget& target;
  llvm::Module& module;
  llvm::Function* function = nullptr;
  llvm::IRBuilder<>& b;
  ElementalEmitter& emitter;
  std::vector<IrArray> outputs;
  /// The arrays BeginKernel bound to operands (fusion parameters), with
  /// the alignment of their kernel parameter in bytes (0: unknown).
  struct Input {
    const HloInstruction* instruction;
    int64_t leaf;
    IrArray array;
    int64_t alignment;
  };
  std::vector<Input> inputs;
};

/// The position in `args` of `hlo`'s operand `operand_number` (an array
/// operand, output false) or of result leaf `leaf` (output true; -1: an
/// array result); -1 when there is none.
int64_t KernelArgumentIndex(const std::vector<KernelArgument>& args,
                            bool output, int64_t operand_number, int64_t leaf);

/// The instruction whose elements the kernel computes: the fused root for a
/// fusion, `hlo` itself otherwise.
const HloInstruction* ComputedRoot(const HloInstruction* hlo);

/// Declares the kernel (`block` threads per block), positions `b` in it and
/// binds `hlo`'s operands; fills `outputs`.
absl::Status BeginKernel(KernelScope& k, const HloInstruction* hlo,
                         const std::string& name,
                         const std::vector<KernelParam>& params, int64_t block);

/// Returns from the kernel; the launch with the kernel's shared bytes.
LaunchDims EndKernel(KernelScope& k, int64_t grid, int64_t block,
                     bool cooperative);

/// blockIdx.x and threadIdx.x as i64.
llvm::Value* BlockIndex64(KernelScope& k);
llvm::Value* ThreadIndex64(KernelScope& k);
/// blockIdx.x * block + threadIdx.x as i64 (a launch of `block` threads
/// per block over a 1-D grid).
llvm::Value* GlobalThreadIndex64(KernelScope& k, int64_t block);

/// Emits `then` under `condition` (in its own memoization scope); the
/// builder continues after it.
absl::Status EmitIf(KernelScope& k, llvm::Value* condition,
                    const std::function<absl::Status()>& then);

/// The values of `dims` (dimension numbers of `shape`, major to minor)
/// whose linear number in that order is `linear` (i64), written into
/// `index` (one slot per dimension of `shape`).
void DelinearizeInto(llvm::IRBuilderBase& b, llvm::Value* linear,
                     const Shape& shape, absl::Span<const int64_t> dims,
                     Index& index);

/// Product of `shape`'s sizes over `dims`.
int64_t ProductOf(const Shape& shape, absl::Span<const int64_t> dims);

/// The atomic read-modify-write computing `combiner(old, new)` on elements
/// of `shape`, if one does: param0 op param1 (either order) for op add /
/// maximum / minimum, on a 32/64-bit integer or f32/f64 element.
std::optional<AtomicOp> AtomicCombinerOf(const HloComputation& combiner,
                                         const Shape& shape);

/// The one instruction `is_hero` accepts that `root` reaches through
/// elementwise instructions of its dimensions only (`root` itself, or an
/// operand of that elementwise chain), when neither it nor any instruction
/// of the chain but `root` has a user outside the chain: the kernel may
/// then give the hero's value at the root's index. nullopt otherwise (none,
/// several, or read elsewhere at another index).
std::optional<const HloInstruction*> FindElementwiseHero(
    const HloInstruction* root,
    const std::function<bool(const HloInstruction*)>& is_hero);

/// Whether fusion `hlo` reads its operand `operand_number` only through
/// elementwise instructions (no copy) up to the root, so at the root's
/// index alone: a kernel that computes each root element from those reads
/// just before writing it (the epilogue of a transpose or concatenate) may
/// then write over that operand. False for other instructions.
bool ReadOnlyAtRootIndex(const HloInstruction* hlo, int64_t operand_number);

/// Smallest power of two >= n (n >= 1).
int64_t PowerOfTwoAtLeast(int64_t n);

}  // namespace xlite::codegen::gpu

#endif  // XLITE_CODEGEN_GPU_KERNEL_COMMON_H_
