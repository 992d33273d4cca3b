// Instructions the CPU backend runs as calls into the runtime library
// (cpu_backend/runtime_lib): custom calls, fft, rng-bit-generator, topk,
// linear algebra, collectives, select-and-scatter. Anything without a
// library function fails at compile time, naming the instruction.

#include "absl/strings/str_cat.h"
#include "codegen/elemental.h"
#include "cpu_backend/emitter_context.h"
#include "hlo/ir/opcode.h"

namespace xlite::cpu {

absl::Status EmitLibraryCall(EmitterContext& ctx, llvm::IRBuilderBase& b,
                             const HloInstruction* hlo) {
  (void)ctx;
  (void)b;
  if (hlo->opcode() == HloOpcode::kCustomCall) {
    return codegen::Unsupported(
        hlo, absl::StrCat("no library function for custom-call target \"",
                          hlo->attrs().custom_call->target, "\""));
  }
  return codegen::Unsupported(hlo, "no library function yet");
}

}  // namespace xlite::cpu
