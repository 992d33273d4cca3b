#ifndef XLITE_CODEGEN_DENORMALS_H_
#define XLITE_CODEGEN_DENORMALS_H_

// Emitted code that runs with denormals flushed (FTZ and DAZ,
// hlo/ir/denormal_mode.h), as the CPU backend's does: its float arithmetic
// flushes in hardware, but the operations that look at their operands'
// bits or pick one of them by a select (maximum, minimum, sign) would keep
// a subnormal that XLA:CPU's hardware reads as zero. A backend that opts
// in (EnableFlushedDenormals) gets those operands read as the hardware
// reads them; other modules (the GPU's, whose f32 keeps subnormals as
// XLA:GPU's does) are untouched.

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace xlite::codegen {

/// Marks `module` as code that runs with denormals flushed.
void EnableFlushedDenormals(llvm::Module& module);

/// Whether `module` is so marked.
bool FlushesDenormals(const llvm::Module& module);

/// `x` (float or double, scalar or vector) as flushing hardware reads it
/// when the module being emitted into flushes denormals (a subnormal
/// becomes a zero of its sign); `x` itself otherwise.
llvm::Value* EmitReadAsHardware(llvm::IRBuilderBase& b, llvm::Value* x);

}  // namespace xlite::codegen

#endif  // XLITE_CODEGEN_DENORMALS_H_
