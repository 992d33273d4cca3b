#ifndef XLITE_CODEGEN_OP_ERROR_H_
#define XLITE_CODEGEN_OP_ERROR_H_

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hlo/ir/opcode.h"
#include "hlo/ir/primitive_type.h"

namespace xlite::codegen {

/// The error for an opcode the evaluator does not define on a type (the
/// same words as its message); EmitElementwise prefixes the instruction.
inline absl::Status NotDefinedError(HloOpcode op, PrimitiveType type) {
  return absl::UnimplementedError(absl::StrCat(
      HloOpcodeString(op), " is not defined on ", PrimitiveTypeName(type)));
}

}  // namespace xlite::codegen

#endif  // XLITE_CODEGEN_OP_ERROR_H_
