#ifndef XLITE_CODEGEN_FLOAT_CODEC_H_
#define XLITE_CODEGEN_FLOAT_CODEC_H_

// Narrow floats (f16, bf16, every f8, f4e2m1fn, f8e8m0fnu) live in IR as
// their raw bits. These emit, with integer operations only, exactly what
// hlo/ir/float_types.h computes: the exact f32 value of a bit pattern, and
// round-to-nearest-even back with each type's overflow, NaN and zero rules.

#include "hlo/ir/primitive_type.h"
#include "llvm/IR/IRBuilder.h"

namespace xlite::codegen {

/// DecodeToF32: bits (the type's iN) -> float. f16 NaN keeps its payload.
llvm::Value* EmitDecodeToF32(llvm::IRBuilderBase& b, PrimitiveType type,
                             llvm::Value* bits);

/// EncodeFromF32: float -> bits (iN).
llvm::Value* EmitEncodeFromF32(llvm::IRBuilderBase& b, PrimitiveType type,
                               llvm::Value* value);

/// ConvertFromF64 (XLA:CPU's convert): double -> bits (iN); f16 and bf16
/// round through f32, the f8 and f4 types once.
llvm::Value* EmitEncodeFromF64(llvm::IRBuilderBase& b, PrimitiveType type,
                               llvm::Value* value);

/// DecodeToF64 of f8e8m0fnu: bits (i8) -> double, exactly, on the bits.
llvm::Value* EmitE8M0ToF64(llvm::IRBuilderBase& b, llvm::Value* bits);

/// The type arithmetic on `type` happens in: f64 for f64 (and c128), f32 for
/// f32 and every narrow float.
PrimitiveType ComputeFloatType(PrimitiveType type);

/// A float value of `type` as its compute type (decodes narrow floats).
llvm::Value* EmitToComputeFloat(llvm::IRBuilderBase& b, PrimitiveType type,
                                llvm::Value* value);
/// A compute-type value stored back as `type` (rounds narrow floats, as
/// EncodeOpResultFromF32: the f8/f4 types XLA:CPU computes in f16 through
/// f16).
llvm::Value* EmitFromComputeFloat(llvm::IRBuilderBase& b, PrimitiveType type,
                                  llvm::Value* value);

}  // namespace xlite::codegen

#endif  // XLITE_CODEGEN_FLOAT_CODEC_H_
