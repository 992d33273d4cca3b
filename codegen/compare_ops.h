#ifndef XLITE_CODEGEN_COMPARE_OPS_H_
#define XLITE_CODEGEN_COMPARE_OPS_H_

// compare, as the evaluator decides it: integers by their type's signedness
// (the comparison type does not change that), pred as false < true, floats
// in their compute type (ne is true for NaN, the rest false) or, with
// TOTALORDER, by the total order of their bits; complex values only test
// equality (every direction but NE asks "equal").

#include "hlo/ir/attributes.h"
#include "hlo/ir/primitive_type.h"
#include "llvm/IR/IRBuilder.h"

namespace xlite::codegen {

/// x `direction` y for values of `type`; an i1.
llvm::Value* EmitCompare(llvm::IRBuilderBase& b, ComparisonDirection direction,
                         ComparisonType comparison_type, PrimitiveType type,
                         llvm::Value* x, llvm::Value* y);

}  // namespace xlite::codegen

#endif  // XLITE_CODEGEN_COMPARE_OPS_H_
