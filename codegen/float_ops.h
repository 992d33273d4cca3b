#ifndef XLITE_CODEGEN_FLOAT_OPS_H_
#define XLITE_CODEGEN_FLOAT_OPS_H_

// Elementwise opcodes on real floats, in their compute type (float for f32
// and every narrow float, double for f64): the evaluator's expressions with
// the same libm functions, NaN-propagating max/min, no fast-math, and, in a
// module that flushes denormals (denormals.h), subnormals read as XLA:CPU
// reads them. Narrow floats are decoded before and rounded after by the
// caller.

#include "absl/status/statusor.h"
#include "hlo/ir/opcode.h"
#include "hlo/ir/primitive_type.h"
#include "llvm/IR/IRBuilder.h"

namespace xlite::codegen {

/// Unary `op` on `x` (float or double) of element type `type`; is-finite
/// gives an i1, everything else a value of x's type.
absl::StatusOr<llvm::Value*> EmitFloatUnary(llvm::IRBuilderBase& b,
                                            HloOpcode op, PrimitiveType type,
                                            llvm::Value* x);

/// Binary `op` on `x`, `y` (float or double) of element type `type`.
absl::StatusOr<llvm::Value*> EmitFloatBinary(llvm::IRBuilderBase& b,
                                             HloOpcode op, PrimitiveType type,
                                             llvm::Value* x, llvm::Value* y);

/// XLA's maximum / minimum: NaN propagating (the first NaN operand), and
/// +0 above -0; a subnormal operand reads as a zero of its sign where the
/// module flushes denormals (denormals.h).
llvm::Value* EmitFloatMax(llvm::IRBuilderBase& b, llvm::Value* x,
                          llvm::Value* y);
llvm::Value* EmitFloatMin(llvm::IRBuilderBase& b, llvm::Value* x,
                          llvm::Value* y);

}  // namespace xlite::codegen

#endif  // XLITE_CODEGEN_FLOAT_OPS_H_
