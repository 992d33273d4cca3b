#ifndef XLITE_CODEGEN_CONVERSION_OPS_H_
#define XLITE_CODEGEN_CONVERSION_OPS_H_

// The conversion family besides convert: bitcast-convert (a value's bits
// reinterpreted), reduce-precision and stochastic-convert, as
// hlo/evaluator/convert.cc computes them.

#include <cstdint>

#include "absl/status/statusor.h"
#include "hlo/ir/primitive_type.h"
#include "llvm/IR/IRBuilder.h"

namespace xlite::codegen {

/// The BitWidth(type) bits of a value as an integer (iN): what its storage
/// holds, masked to the width (pred: 0/1 in 8 bits; c64: re in the low
/// half).
llvm::Value* EmitToBits(llvm::IRBuilderBase& b, PrimitiveType type,
                        llvm::Value* value);
/// The value whose bits are `bits` (pred: bits != 0).
llvm::Value* EmitFromBits(llvm::IRBuilderBase& b, PrimitiveType type,
                          llvm::Value* bits);

/// reduce-precision of float `type` to `exponent_bits` and `mantissa_bits`.
llvm::Value* EmitReducePrecision(llvm::IRBuilderBase& b, PrimitiveType type,
                                 llvm::Value* value, int64_t exponent_bits,
                                 int64_t mantissa_bits);

/// stochastic-convert of float `from` with unsigned `random` bits to the
/// signed integer type `to`.
absl::StatusOr<llvm::Value*> EmitStochasticConvert(
    llvm::IRBuilderBase& b, PrimitiveType from, PrimitiveType random_type,
    PrimitiveType to, llvm::Value* value, llvm::Value* random);

}  // namespace xlite::codegen

#endif  // XLITE_CODEGEN_CONVERSION_OPS_H_
