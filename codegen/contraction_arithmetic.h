#ifndef XLITE_CODEGEN_CONTRACTION_ARITHMETIC_H_
#define XLITE_CODEGEN_CONTRACTION_ARITHMETIC_H_

// The arithmetic of a sum of products as XLA:CPU and the evaluator do it
// (hlo/evaluator/dot_kernels.h): real floats accumulate in f32 (f64 when
// any side is wider), everything else in the result type, and the sum is
// rounded to the result type once, 8-bit floats from 16-bit or narrower
// operands through f16.

#include "absl/status/statusor.h"
#include "hlo/ir/primitive_type.h"
#include "llvm/IR/IRBuilder.h"

namespace xlite::codegen {

/// The type a contraction of `lhs` x `rhs` into `result` accumulates in.
PrimitiveType ContractionAccumulationType(PrimitiveType lhs, PrimitiveType rhs,
                                          PrimitiveType result);

/// acc + x * y in the accumulation type `type` (complex, real, integer
/// wrapping, or pred as or-of-ands).
llvm::Value* EmitMultiplyAccumulate(llvm::IRBuilderBase& b, PrimitiveType type,
                                    llvm::Value* acc, llvm::Value* x,
                                    llvm::Value* y);

/// The accumulated `value` (of type `acc`) rounded to `result`.
absl::StatusOr<llvm::Value*> EmitRoundAccumulated(
    llvm::IRBuilderBase& b, PrimitiveType acc, PrimitiveType lhs,
    PrimitiveType rhs, PrimitiveType result, llvm::Value* value);

}  // namespace xlite::codegen

#endif  // XLITE_CODEGEN_CONTRACTION_ARITHMETIC_H_
