#ifndef XLITE_CODEGEN_LDEXP_H_
#define XLITE_CODEGEN_LDEXP_H_

// p 2^n in f32, rounded once: the last step of the exp approximation.
// Portable IR does it with two exponent-bit factors and two multiplies
// (nine vector instructions); AVX-512 has one instruction for it,
// vscalefps, which LLVM 19 neither selects nor lets the loop vectorizer
// reach (llvm.ldexp stays a scalar libm call). So a module whose backend
// opts in (EnableLdexpCalls, the CPU one) gets a call of xlite_ldexp_f32
// instead, declared with vector variants of 4, 8 and 16 lanes that the
// vectorizers widen it to; after vectorization the backend replaces every
// such call (cpu_backend/ldexp_lowering.h). Other modules (GPU kernels,
// tests) get the portable IR directly.

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace xlite::codegen {

/// The scalar function and the prefix of its vector variants
/// (xlite_ldexp_v4f32, _v8f32, _v16f32).
inline constexpr char kLdexpFunction[] = "xlite_ldexp_f32";
inline constexpr char kLdexpVariantPrefix[] = "xlite_ldexp_v";

/// Makes EmitLdexp in `module` emit calls that a later pass lowers.
void EnableLdexpCalls(llvm::Module& module);

/// p 2^n for f32 `p` and `n` (scalars or vectors of the same shape): `n`
/// integral in [-152, 128], or NaN with `p` NaN (the result is then NaN).
/// Rounded once, subnormal and infinite results included.
llvm::Value* EmitLdexp(llvm::IRBuilderBase& b, llvm::Value* p, llvm::Value* n);

/// The portable form of EmitLdexp, never a call.
llvm::Value* ExpandLdexp(llvm::IRBuilderBase& b, llvm::Value* p,
                         llvm::Value* n);

}  // namespace xlite::codegen

#endif  // XLITE_CODEGEN_LDEXP_H_
