#ifndef XLITE_CODEGEN_COMPLEX_OPS_H_
#define XLITE_CODEGEN_COMPLEX_OPS_H_

// Elementwise opcodes on c64 ({float, float}) and c128 ({double, double}):
// componentwise ones (add, subtract, negate, real, imag, is-finite) inline,
// the rest through the scalar runtime's helpers, which evaluate the
// evaluator's std::complex expressions.

#include "absl/status/statusor.h"
#include "hlo/ir/opcode.h"
#include "hlo/ir/primitive_type.h"
#include "llvm/IR/IRBuilder.h"

namespace xlite::codegen {

/// Unary `op` on complex `x` of `type`: abs, real and imag give the
/// component type, is-finite an i1, the rest a complex value.
absl::StatusOr<llvm::Value*> EmitComplexUnary(llvm::IRBuilderBase& b,
                                              HloOpcode op, PrimitiveType type,
                                              llvm::Value* x);

/// Binary `op` on complex `x`, `y` of `type`.
absl::StatusOr<llvm::Value*> EmitComplexBinary(llvm::IRBuilderBase& b,
                                               HloOpcode op, PrimitiveType type,
                                               llvm::Value* x, llvm::Value* y);

/// {re, im} of `type` (c64 or c128) from its two components.
llvm::Value* EmitMakeComplex(llvm::IRBuilderBase& b, PrimitiveType type,
                             llvm::Value* re, llvm::Value* im);

}  // namespace xlite::codegen

#endif  // XLITE_CODEGEN_COMPLEX_OPS_H_
