#ifndef XLITE_CODEGEN_WINDOW_POSITION_H_
#define XLITE_CODEGEN_WINDOW_POSITION_H_

// Where a window element reads its operand: for output (source) element `s`
// and window element `w`, the operand index per dimension (stride, low
// padding, window and base dilation, window reversal) and whether it is
// inside the operand rather than in padding or between dilated elements.
// Shared by the select-and-scatter kernels of both backends.

#include <utility>

#include "codegen/ir_array.h"
#include "hlo/ir/instruction.h"
#include "llvm/IR/IRBuilder.h"

namespace xlite::codegen {

std::pair<Index, llvm::Value*> WindowPosition(llvm::IRBuilderBase& b,
                                              const Window& window,
                                              const Shape& operand,
                                              const Index& s, const Index& w);

}  // namespace xlite::codegen

#endif  // XLITE_CODEGEN_WINDOW_POSITION_H_
