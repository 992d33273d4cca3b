#ifndef XLITE_CODEGEN_GPU_REDUCTION_COMMON_H_
#define XLITE_CODEGEN_GPU_REDUCTION_COMMON_H_

// A partial reduction a thread holds: the accumulated value and whether it
// has seen any element. Partials combine without assuming the init value is
// an identity: the init is applied once, when the final result is written,
// as the evaluator applies it. Internal to codegen/gpu.

#include <memory>
#include <vector>

#include "codegen/gpu/kernel_common.h"
#include "codegen/gpu/kernels.h"

namespace xlite::codegen::gpu {

class Partial {
 public:
  /// Stack slots (in the kernel's entry block), starting empty with
  /// `init` in the value slot.
  Partial(KernelScope& k, const HloComputation* reducer, llvm::Value* init);

  llvm::Value* value() const;
  llvm::Value* valid() const;  // i1

  /// Adds one element.
  absl::Status Add(llvm::Value* element);
  /// Adds another partial (value, i1 valid).
  absl::Status Combine(llvm::Value* other, llvm::Value* other_valid);
  /// The result: init combined with the partial, or init if it is empty.
  absl::StatusOr<llvm::Value*> Finish(llvm::Value* init);

  llvm::Type* type() const { return type_; }

 private:
  absl::StatusOr<llvm::Value*> Apply(llvm::Value* x, llvm::Value* y);

  KernelScope& k_;
  const HloComputation* reducer_;
  llvm::Type* type_;
  llvm::AllocaInst* value_;
  llvm::AllocaInst* valid_;
};

/// The reduce the kernel computes (the instruction or its fused root).
const HloInstruction* ReduceOf(const HloInstruction* hlo);

/// The reduces the kernel computes, one per result leaf: the instruction
/// or its fused root, or every leaf of a multi-output fusion's root tuple
/// when they are all reduces alike (same operand shape, layout and
/// dimensions). Otherwise the root alone (which may be no reduce).
std::vector<const HloInstruction*> ReducesOf(const HloInstruction* hlo);

/// The partials of `reduces` (one each, in order), with their init values.
struct Partials {
  std::vector<std::unique_ptr<Partial>> partials;
  std::vector<llvm::Value*> inits;
};
absl::StatusOr<Partials> MakePartials(
    KernelScope& k, const std::vector<const HloInstruction*>& reduces);

/// Adds the element of every reduce's operand at `input`.
absl::Status AddElements(KernelScope& k,
                         const std::vector<const HloInstruction*>& reduces,
                         Partials& partials, const Index& input);

/// The operand index of the reduced element: `kept_linear` over the kept
/// dimensions and `reduced_linear` over the reduced ones (each in their
/// major-to-minor order); and the output index of the kept part.
void ReductionIndices(llvm::IRBuilderBase& b, const ReductionShape& shape,
                      const Shape& operand, llvm::Value* kept_linear,
                      llvm::Value* reduced_linear, Index& input,
                      Index& output);

}  // namespace xlite::codegen::gpu

#endif  // XLITE_CODEGEN_GPU_REDUCTION_COMMON_H_
