#ifndef XLITE_CODEGEN_COMPLEX_HELPERS_IR_H_
#define XLITE_CODEGEN_COMPLEX_HELPERS_IR_H_

// The complex helpers of scalar_runtime.h (xlite_c64_exp, ...) as LLVM IR
// built from real scalar math, for targets that cannot call host code (a
// GPU: the real math then maps to libdevice). complex_ops.cc always emits
// calls to the helpers; the CPU links the C++ ones, which evaluate the
// evaluator's std::complex expressions bit-exactly, and a GPU kernel module
// gets these definitions instead.
//
// They follow the same formulas glibc's and libgcc's complex functions use
// (C99 Annex G multiply and divide with their infinity/NaN recovery,
// cexp/clog/csqrt/csin/ccos/ctan/ctanh by their real-math identities, cpow
// as exp(y * log(x))), with the same NaN-ness and infinities on the special
// values, and to within a few ulps elsewhere (not bit-exactly: the real
// functions are the target's). c64 is computed in double and rounded once,
// which also keeps its intermediate results from overflowing.

#include "absl/status/status.h"
#include "llvm/IR/Module.h"

namespace xlite::codegen {

/// Gives every complex helper `module` declares (and does not define) an
/// internal, always-inline body computing it from real math calls ("exp",
/// "sin", "hypot", "atan2", ... as EmitMathCall names them). Idempotent.
/// An error names a declared helper it does not know.
absl::Status DefineComplexHelpers(llvm::Module& module);

}  // namespace xlite::codegen

#endif  // XLITE_CODEGEN_COMPLEX_HELPERS_IR_H_
