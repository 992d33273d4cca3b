#ifndef XLITE_CODEGEN_SCALAR_OPS_H_
#define XLITE_CODEGEN_SCALAR_OPS_H_

// The scalar half of the elemental emitter, shared by both backends: how one
// element of each type is held in LLVM IR, read and written in memory, and
// combined by every elementwise opcode — with exactly the evaluator's (and
// XLA's) numerics: integer division by zero and shifts past the width as
// hlo-format.md says, NaN-propagating min/max, round-to-nearest-even
// conversions with each type's saturation rules, narrow floats (f16, bf16,
// f8*, f4, e8m0) computed in f32 and rounded back after every operation.
//
// Value representation (ValueType): pred i1; s/uN iN (s4: i4, ...); f32
// float; f64 double; f16, bf16, every f8/f4/e8m0 type: their raw bits as an
// integer of the type's width (i16 / i8 / i4), converted exactly; c64
// {float, float}; c128 {double, double}. Memory representation is the
// Literal's: StorageBytes(type) per element, little-endian, pred 0/1, signed
// sub-byte integers sign-extended in their byte.

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/ir/instruction.h"
#include "hlo/ir/primitive_type.h"
#include "llvm/IR/IRBuilder.h"

namespace xlite::codegen {

/// The LLVM type a value of `type` has in IR (see above).
llvm::Type* ValueType(PrimitiveType type, llvm::LLVMContext& context);

/// Reads / writes one element of `type` at `address` (an opaque pointer).
llvm::Value* EmitLoadElement(llvm::IRBuilderBase& b, PrimitiveType type,
                             llvm::Value* address);
void EmitStoreElement(llvm::IRBuilderBase& b, PrimitiveType type,
                      llvm::Value* value, llvm::Value* address);

/// The constant value of the element of `type` stored (memory
/// representation) at `storage`, e.g. Literal::data() + i * StorageBytes.
llvm::Constant* ScalarConstant(PrimitiveType type, const uint8_t* storage,
                               llvm::LLVMContext& context);

/// Converts a value of `from` to `to` as XLA's convert does.
absl::StatusOr<llvm::Value*> EmitConvert(llvm::IRBuilderBase& b,
                                         PrimitiveType from, PrimitiveType to,
                                         llvm::Value* value);

/// The value of an elementwise instruction — any opcode of the element-wise
/// and conversion families (including compare, select, clamp, convert,
/// bitcast-convert, reduce-precision, complex, real, imag, is-finite,
/// atan2, erf, ...) — from its operands' values (one per operand, in
/// operand order; select's predicate is i1). Unimplemented with the
/// instruction's name for anything else, for an opcode the evaluator does
/// not define on the operand type (e.g. remainder of c64), and for a
/// bitcast-convert between widths (see EmitBitcastConvertSplit/Join).
absl::StatusOr<llvm::Value*> EmitElementwise(
    llvm::IRBuilderBase& b, const HloInstruction& instruction,
    absl::Span<llvm::Value* const> operands);

/// bitcast-convert between types of different widths, which is not one
/// element to one element: a wide element is a little-endian stream of
/// narrow ones (the lowest bits first), as the evaluator defines it. Split:
/// piece `index` (an integer value, 0 <= index < from_bits / to_bits) of the
/// `from` value, as a `to` value. Join: the `to` value made of `pieces` (the
/// to_bits / from_bits consecutive `from` values, lowest first).
llvm::Value* EmitBitcastConvertSplit(llvm::IRBuilderBase& b, PrimitiveType from,
                                     PrimitiveType to, llvm::Value* value,
                                     llvm::Value* index);
llvm::Value* EmitBitcastConvertJoin(llvm::IRBuilderBase& b, PrimitiveType from,
                                    PrimitiveType to,
                                    absl::Span<llvm::Value* const> pieces);

}  // namespace xlite::codegen

#endif  // XLITE_CODEGEN_SCALAR_OPS_H_
