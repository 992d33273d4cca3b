#include "codegen/window_position.h"

namespace xlite::codegen {

std::pair<Index, llvm::Value*> WindowPosition(llvm::IRBuilderBase& b,
                                              const Window& window,
                                              const Shape& operand,
                                              const Index& s, const Index& w) {
  Index at;
  llvm::Value* inside = b.getTrue();
  for (int64_t d = 0; d < operand.rank(); ++d) {
    const WindowDimension& wd = window.dimensions[d];
    llvm::Value* tap =
        wd.window_reversal ? b.CreateSub(b.getInt64(wd.size - 1), w[d]) : w[d];
    llvm::Value* pos = b.CreateAdd(
        b.CreateSub(b.CreateMul(s[d], b.getInt64(wd.stride)),
                    b.getInt64(wd.padding_low)),
        b.CreateMul(tap, b.getInt64(wd.window_dilation)));
    inside = b.CreateAnd(inside, b.CreateICmpSGE(pos, b.getInt64(0)));
    if (wd.base_dilation != 1) {
      llvm::Value* dilation = b.getInt64(wd.base_dilation);
      inside = b.CreateAnd(
          inside, b.CreateICmpEQ(b.CreateSRem(pos, dilation), b.getInt64(0)));
      pos = b.CreateSDiv(pos, dilation);
    }
    inside = b.CreateAnd(
        inside, b.CreateICmpSLT(pos, b.getInt64(operand.dimensions(d))));
    at.push_back(pos);
  }
  return {at, inside};
}

}  // namespace xlite::codegen
