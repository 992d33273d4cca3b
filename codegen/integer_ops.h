#ifndef XLITE_CODEGEN_INTEGER_OPS_H_
#define XLITE_CODEGEN_INTEGER_OPS_H_

// Elementwise opcodes on pred (i1) and integers of any width (iN, sub-byte
// types wrap at their width exactly as the evaluator's Store does): wrapping
// arithmetic, XLA's division by zero and INT_MIN / -1, shifts past the
// width, power by squaring, mulhi, popcnt and count-leading-zeros.

#include "absl/status/statusor.h"
#include "hlo/ir/opcode.h"
#include "hlo/ir/primitive_type.h"
#include "llvm/IR/IRBuilder.h"

namespace xlite::codegen {

/// Unary `op` on `x` of pred or integer `type`.
absl::StatusOr<llvm::Value*> EmitIntegerUnary(llvm::IRBuilderBase& b,
                                              HloOpcode op, PrimitiveType type,
                                              llvm::Value* x);

/// Binary `op` on `x`, `y` of pred or integer `type`.
absl::StatusOr<llvm::Value*> EmitIntegerBinary(llvm::IRBuilderBase& b,
                                               HloOpcode op, PrimitiveType type,
                                               llvm::Value* x, llvm::Value* y);

}  // namespace xlite::codegen

#endif  // XLITE_CODEGEN_INTEGER_OPS_H_
