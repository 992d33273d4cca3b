#ifndef XLITE_GPU_BACKEND_NVPTX_ASM_H_
#define XLITE_GPU_BACKEND_NVPTX_ASM_H_

// Inline PTX for NvptxTarget's operations LLVM 19 has no intrinsics for
// (wgmma, mbarriers, TMA, tcgen05).

#include <string>
#include <vector>

#include "llvm/IR/IRBuilder.h"

namespace xlite::gpu {

/// An asm with side effects (and a memory clobber), convergent, whose
/// first `acc.size()` operands are the accumulators, read and written in
/// place, followed by `inputs` (with their constraints, comma-separated);
/// returns the accumulators it gives back.
std::vector<llvm::Value*> TiedAsm(llvm::IRBuilderBase& b,
                                  const std::string& text,
                                  const std::vector<llvm::Value*>& acc,
                                  const std::vector<llvm::Value*>& inputs,
                                  const std::string& input_constraints);

}  // namespace xlite::gpu

#endif  // XLITE_GPU_BACKEND_NVPTX_ASM_H_
