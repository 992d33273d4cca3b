#ifndef XLITE_GPU_BACKEND_EMULATOR_REFERENCE_GEMM_H_
#define XLITE_GPU_BACKEND_EMULATOR_REFERENCE_GEMM_H_

// The emulator's GEMM thunk: what cuBLASLt does on a GPU, done on the host
// by the evaluator's GEMM-call numerics (hlo/evaluator/gemm_call.h), so a
// GEMM thunk on the emulator gives bit for bit what the interpreter gives
// for the custom call.

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "hlo/ir/literal.h"
#include "runtime/gemm_description.h"

namespace xlite::gpu::emulator {

/// The values of `shapes` (each in its layout) at `addresses`, in order.
std::vector<Literal> LiteralsAt(const std::vector<Shape>& shapes,
                                const std::vector<uint8_t*>& addresses);

/// Reads the operands from `arguments` (one address per operand, then per
/// result leaf, in each shape's layout), computes the call and writes its
/// result leaves. Operands are read before anything is written, so d may
/// share c's buffer (beta != 0).
absl::Status RunReferenceGemm(const runtime::GemmDescription& gemm,
                              const std::vector<uint8_t*>& arguments);

}  // namespace xlite::gpu::emulator

#endif  // XLITE_GPU_BACKEND_EMULATOR_REFERENCE_GEMM_H_
