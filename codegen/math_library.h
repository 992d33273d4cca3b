#ifndef XLITE_CODEGEN_MATH_LIBRARY_H_
#define XLITE_CODEGEN_MATH_LIBRARY_H_

// Calls from emitted code into the C math library and the scalar runtime.
// The evaluator computes with libm (std::exp(float) is expf, ...); emitted
// code calls the very same symbols, declared in the module on first use, so
// the two agree bit for bit. No fast-math flags anywhere.

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "llvm/IR/IRBuilder.h"

namespace xlite::codegen {

/// Calls the external function `name` (declared in the current module if it
/// is not yet) taking and returning values of the types of `args` /
/// `result_type`. The call is marked as not touching memory or errno as the
/// builder's caller sees it.
llvm::Value* EmitLibmCall(llvm::IRBuilderBase& b, absl::string_view name,
                          absl::Span<llvm::Value* const> args,
                          llvm::Type* result_type);

/// The float (f32) or double (f64) flavour of a libm function: "exp" with a
/// float argument calls "expf".
llvm::Value* EmitMathCall(llvm::IRBuilderBase& b, absl::string_view name,
                          absl::Span<llvm::Value* const> args);

/// Calls the void runtime helper `name(ptr...)` (scalar_runtime.h).
void EmitRuntimeCall(llvm::IRBuilderBase& b, absl::string_view name,
                     absl::Span<llvm::Value* const> pointers);

/// A stack slot for `type` in the entry block of the current function, so
/// that slots used inside loops do not grow the stack.
llvm::AllocaInst* EmitEntryAlloca(llvm::IRBuilderBase& b, llvm::Type* type);

}  // namespace xlite::codegen

#endif  // XLITE_CODEGEN_MATH_LIBRARY_H_
