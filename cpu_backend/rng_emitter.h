#ifndef XLITE_CPU_BACKEND_RNG_EMITTER_H_
#define XLITE_CPU_BACKEND_RNG_EMITTER_H_

// `rng` and rng-get-and-update-state (rng_emitter.cc); internal to
// cpu_backend.

#include "absl/status/status.h"
#include "cpu_backend/emitter_context.h"
#include "hlo/ir/module.h"
#include "llvm/IR/IRBuilder.h"

namespace xlite::cpu {

/// True when some instruction of `module` is `rng`.
bool NeedsRngEngine(const HloModule& module);

/// In the entry function, before anything else: the run's rng engine in
/// the function's frame, seeded with RunContext::rng_seed + the device
/// number, its address stored in RunContext::rng_engine.
void EmitRngEngineSetup(EmitterContext& ctx, llvm::IRBuilderBase& b);

/// `rng`: the next values of the run's engine, in the result's row-major
/// order, rounded to its element type.
absl::Status EmitRng(EmitterContext& ctx, llvm::IRBuilderBase& b,
                     const HloInstruction* hlo);

/// rng-get-and-update-state: element 0 gets the run's counter (the rest
/// zeros), which then advances by `delta`.
absl::Status EmitRngGetAndUpdateState(EmitterContext& ctx,
                                      llvm::IRBuilderBase& b,
                                      const HloInstruction* hlo);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_RNG_EMITTER_H_
