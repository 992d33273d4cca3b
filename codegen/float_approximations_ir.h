#ifndef XLITE_CODEGEN_FLOAT_APPROXIMATIONS_IR_H_
#define XLITE_CODEGEN_FLOAT_APPROXIMATIONS_IR_H_

// The f32 exp, tanh and log of hlo/ir/float_approximations.h as
// LLVM IR: the same template, instantiated on IR values, so emitted code
// and the evaluator agree bit for bit. Straight-line code (selects, no
// calls), which LLVM's vectorizers widen with the loop around it.

#include "llvm/IR/IRBuilder.h"

namespace xlite::codegen {

/// e^x, tanh x, log x of an f32 `x`.
llvm::Value* EmitExpF32(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* EmitTanhF32(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* EmitLogF32(llvm::IRBuilderBase& b, llvm::Value* x);

}  // namespace xlite::codegen

#endif  // XLITE_CODEGEN_FLOAT_APPROXIMATIONS_IR_H_
