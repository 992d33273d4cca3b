#ifndef XLITE_CPU_BACKEND_AOT_C_FUNCTION_EMITTER_H_
#define XLITE_CPU_BACKEND_AOT_C_FUNCTION_EMITTER_H_

// The C functions of an ahead-of-time library, emitted as LLVM IR beside
// the module's entry function (module_emitter.h) in the same LLVM module:
//
//   int32_t NAME_with_temp(const void* const* params, void* const* results,
//                          void* temp);
//   int32_t NAME(const void* const* params, void* const* results);
//
// NAME_with_temp builds the allocation table the entry function reads:
// parameters are read where the caller keeps them; computed results are
// written straight into the caller's result buffers when a result fills
// its allocation; constants are read-only data in the library; the arena
// (the temporaries) and any allocation that has no caller buffer of its own
// live in `temp`, `temp_bytes` long and 64-byte aligned. A parameter the
// module may write (donated through input_output_alias) is first copied
// into the buffer that stands for it. Results not written in place are
// copied out after the run. Returns the run's status: 0, or the failing
// runtime library call's code; -1 when `temp` is null but needed.
//
// NAME allocates the arena (xlite_cpu_alloc), calls NAME_with_temp and
// frees it; -1 when the arena cannot be allocated.
//
// The entry function itself becomes internal to the library, so that
// several libraries can be linked into one program.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "cpu_backend/aot/c_interface.h"
#include "hlo/ir/module.h"
#include "llvm/IR/Module.h"
#include "runtime/buffer_assignment.h"

namespace xlite::cpu {

/// The status NAME and NAME_with_temp return when they have no arena.
inline constexpr int32_t kAotStatusNoArena = -1;

/// What the emitted functions ask of their callers.
struct CFunctionsLayout {
  /// Bytes NAME_with_temp's `temp` must have.
  int64_t temp_bytes = 0;
  /// For each result, the parameter (position in params) whose buffer it
  /// may be, or -1: the module computes the result in place of a donated
  /// parameter (input_output_alias, when buffer assignment kept the two
  /// in one buffer), so the caller may pass one buffer for both.
  std::vector<int> donors;
};

/// Emits the C functions of `c` into `llvm_module`, which holds the entry
/// function of `module` as compiled against `assignment`.
absl::StatusOr<CFunctionsLayout> EmitCFunctions(
    const CInterface& c, const HloModule& module,
    const runtime::BufferAssignment& assignment, llvm::Module& llvm_module);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_AOT_C_FUNCTION_EMITTER_H_
