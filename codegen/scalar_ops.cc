// EmitElementwise: routes each opcode to its family (integer_ops,
// float_ops, complex_ops, compare_ops, convert_ops, conversion_ops) and
// holds the few that only move values (select, clamp, complex). Narrow
// floats are decoded to f32 before and rounded back after every operation.

#include "codegen/scalar_ops.h"

#include "absl/strings/str_cat.h"
#include "codegen/compare_ops.h"
#include "codegen/complex_ops.h"
#include "codegen/conversion_ops.h"
#include "codegen/float_codec.h"
#include "codegen/float_ops.h"
#include "codegen/integer_ops.h"

namespace xlite::codegen {
namespace {

absl::StatusOr<llvm::Value*> EmitUnary(llvm::IRBuilderBase& b, HloOpcode op,
                                       PrimitiveType type, llvm::Value* x) {
  if (type == PrimitiveType::kPred || IsInteger(type)) {
    return EmitIntegerUnary(b, op, type, x);
  }
  if (IsComplex(type)) return EmitComplexUnary(b, op, type, x);
  absl::StatusOr<llvm::Value*> result =
      EmitFloatUnary(b, op, type, EmitToComputeFloat(b, type, x));
  if (!result.ok() || op == HloOpcode::kIsFinite) return result;
  return EmitFromComputeFloat(b, type, *result);
}

absl::StatusOr<llvm::Value*> EmitBinary(llvm::IRBuilderBase& b, HloOpcode op,
                                        PrimitiveType type, llvm::Value* x,
                                        llvm::Value* y) {
  if (type == PrimitiveType::kPred || IsInteger(type)) {
    return EmitIntegerBinary(b, op, type, x, y);
  }
  if (IsComplex(type)) return EmitComplexBinary(b, op, type, x, y);
  absl::StatusOr<llvm::Value*> result =
      EmitFloatBinary(b, op, type, EmitToComputeFloat(b, type, x),
                      EmitToComputeFloat(b, type, y));
  if (!result.ok()) return result;
  return EmitFromComputeFloat(b, type, *result);
}

// clamp(lo, x, hi) = minimum(maximum(x, lo), hi), each rounded to the type.
absl::StatusOr<llvm::Value*> EmitClamp(llvm::IRBuilderBase& b,
                                       PrimitiveType type, llvm::Value* lo,
                                       llvm::Value* x, llvm::Value* hi) {
  absl::StatusOr<llvm::Value*> low =
      EmitBinary(b, HloOpcode::kMaximum, type, x, lo);
  if (!low.ok()) return low;
  return EmitBinary(b, HloOpcode::kMinimum, type, *low, hi);
}

absl::StatusOr<llvm::Value*> EmitConversion(
    llvm::IRBuilderBase& b, const HloInstruction& instruction,
    absl::Span<llvm::Value* const> operands) {
  const PrimitiveType from = instruction.operand(0)->shape().element_type();
  const PrimitiveType to = instruction.shape().element_type();
  switch (instruction.opcode()) {
    case HloOpcode::kConvert:
      return EmitConvert(b, from, to, operands[0]);
    case HloOpcode::kBitcastConvert:
      if (BitWidth(from) != BitWidth(to)) {
        return absl::UnimplementedError(
            "bitcast-convert between widths is not elementwise: use "
            "EmitBitcastConvertSplit/Join");
      }
      return EmitFromBits(b, to, EmitToBits(b, from, operands[0]));
    case HloOpcode::kReducePrecision:
      return EmitReducePrecision(b, from, operands[0],
                                 instruction.attrs().exponent_bits,
                                 instruction.attrs().mantissa_bits);
    case HloOpcode::kStochasticConvert:
      return EmitStochasticConvert(
          b, from, instruction.operand(1)->shape().element_type(), to,
          operands[0], operands[1]);
    default:
      return absl::UnimplementedError("not a conversion");
  }
}

absl::StatusOr<llvm::Value*> EmitByOpcode(
    llvm::IRBuilderBase& b, const HloInstruction& instruction,
    absl::Span<llvm::Value* const> operands) {
  const HloOpcode op = instruction.opcode();
  if (HloOpcodeFamily(op) == OpcodeFamily::kConversion) {
    return EmitConversion(b, instruction, operands);
  }
  if (HloOpcodeFamily(op) != OpcodeFamily::kElementwise) {
    return absl::UnimplementedError("not an elementwise opcode");
  }
  switch (op) {
    case HloOpcode::kSelect:
      return b.CreateSelect(operands[0], operands[1], operands[2]);
    case HloOpcode::kClamp:
      return EmitClamp(b, instruction.shape().element_type(), operands[0],
                       operands[1], operands[2]);
    case HloOpcode::kCompare:
      return EmitCompare(b, instruction.attrs().direction,
                         instruction.attrs().comparison_type,
                         instruction.operand(0)->shape().element_type(),
                         operands[0], operands[1]);
    case HloOpcode::kComplex:
      return EmitMakeComplex(b, instruction.shape().element_type(), operands[0],
                             operands[1]);
    default:
      break;
  }
  const PrimitiveType type = instruction.operand(0)->shape().element_type();
  if (operands.size() == 1) return EmitUnary(b, op, type, operands[0]);
  return EmitBinary(b, op, type, operands[0], operands[1]);
}

}  // namespace

absl::StatusOr<llvm::Value*> EmitElementwise(
    llvm::IRBuilderBase& b, const HloInstruction& instruction,
    absl::Span<llvm::Value* const> operands) {
  if (static_cast<int64_t>(operands.size()) != instruction.operand_count()) {
    return absl::InvalidArgumentError(absl::StrCat(
        instruction.name(), ": ", operands.size(), " operand values for ",
        instruction.operand_count(), " operands"));
  }
  absl::StatusOr<llvm::Value*> result = EmitByOpcode(b, instruction, operands);
  if (!result.ok()) {
    return absl::Status(
        result.status().code(),
        absl::StrCat(instruction.name(), ": ", result.status().message()));
  }
  return result;
}

llvm::Value* EmitBitcastConvertSplit(llvm::IRBuilderBase& b, PrimitiveType from,
                                     PrimitiveType to, llvm::Value* value,
                                     llvm::Value* index) {
  llvm::Value* bits = EmitToBits(b, from, value);
  llvm::Type* wide = bits->getType();
  llvm::Value* shift = b.CreateMul(b.CreateZExtOrTrunc(index, wide),
                                   llvm::ConstantInt::get(wide, BitWidth(to)));
  llvm::Value* piece =
      b.CreateTrunc(b.CreateLShr(bits, shift), b.getIntNTy(BitWidth(to)));
  return EmitFromBits(b, to, piece);
}

llvm::Value* EmitBitcastConvertJoin(llvm::IRBuilderBase& b, PrimitiveType from,
                                    PrimitiveType to,
                                    absl::Span<llvm::Value* const> pieces) {
  llvm::Type* wide = b.getIntNTy(BitWidth(to));
  llvm::Value* bits = llvm::ConstantInt::get(wide, 0);
  for (size_t k = 0; k < pieces.size(); ++k) {
    llvm::Value* piece = b.CreateZExt(EmitToBits(b, from, pieces[k]), wide);
    bits = b.CreateOr(bits, b.CreateShl(piece, k * BitWidth(from)));
  }
  return EmitFromBits(b, to, bits);
}

}  // namespace xlite::codegen
