#ifndef XLITE_CPU_BACKEND_MODULE_EMITTER_H_
#define XLITE_CPU_BACKEND_MODULE_EMITTER_H_

// Emits a whole HLO module as one native function over its allocations:
//
//   void xlite_entry(void** allocations, const RunContext* context)
//
// `allocations[i]` is the base address of buffer-assignment allocation i
// (parameters, constants, outputs, the arena); every array is at a constant
// offset in one of them. The entry computation's instructions run in the
// schedule's order; while loops, conditionals and calls are native control
// flow in the same function; each computing instruction (or fusion) is an
// internal kernel function LLVM may inline. Nothing is dispatched per op at
// run time.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cpu_backend/profile_site.h"
#include "hlo/ir/module.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "runtime/buffer_assignment.h"

namespace xlite::cpu {

/// What generated code may read about the current run.
struct RunContext {
  int64_t replica_id = 0;
  int64_t partition_id = 0;
  void* collectives = nullptr;  // the in-process exchange, when replicated
  int32_t status = 0;           // non-zero: a library call failed
  void* profile = nullptr;      // a ProfileCounters, for profiled code
  /// rng-get-and-update-state's counter (starts at 0 every run, as the
  /// evaluator's).
  uint64_t rng_state = 0;
  /// The seed of the `rng` engine is rng_seed + the device number (replica
  /// x partitions + partition), the evaluator's default seed unless set.
  uint64_t rng_seed = 42;
  /// The `rng` engine block, set up by the entry function when the module
  /// has rng instructions (runtime_lib.h, xlite_cpu_rng_engine_init).
  void* rng_engine = nullptr;
};

inline constexpr char kEntryName[] = "xlite_entry";

/// Emits `module` (assigned by `assignment`) into `llvm_module`. Fails at
/// compile time, naming the instruction, on anything it cannot compile.
/// With `profile_sites`, the code is profiled: each kernel, library call
/// and collective is timed into the run context's ProfileCounters as the
/// site it gets in `profile_sites`.
absl::Status EmitModule(const HloModule& module,
                        const runtime::BufferAssignment& assignment,
                        llvm::Module& llvm_module,
                        std::vector<ProfileSite>* profile_sites = nullptr);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_MODULE_EMITTER_H_
