#ifndef XLITE_CPU_BACKEND_EXECUTABLE_H_
#define XLITE_CPU_BACKEND_EXECUTABLE_H_

// A module compiled for the host CPU: its buffer assignment, its constants
// laid out as in memory, and the JIT'd entry function. Running it fills the
// allocation table (arguments copied into their physical layouts, the
// arena, the outputs) and calls the one native function.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "cpu_backend/buffer_pool.h"
#include "cpu_backend/jit.h"
#include "cpu_backend/module_emitter.h"
#include "cpu_backend/profile_site.h"
#include "cpu_backend/runtime_lib/profile_counters.h"
#include "hlo/ir/literal.h"
#include "hlo/ir/module.h"
#include "runtime/buffer_assignment.h"

namespace xlite::cpu {

struct CompileOptions {
  /// Rewrite where narrow types round as XLA:CPU does, before anything
  /// else (xla_cpu_numerics.h: contractions in their compute type,
  /// widening converts folded, f16 logistics expanded); off only for a
  /// module rewritten already (hlo-opt rewrites before its pipeline). The
  /// rewrite must run once.
  bool xla_cpu_numerics = true;
  /// Run the cpu pass pipeline first (hlo-run --run_passes).
  bool run_passes = true;
  /// Keep the optimized LLVM IR text (for hlo-opt --stage=llvm).
  bool keep_llvm_ir = false;
  /// Keep the host assembly (for hlo-opt --stage=asm).
  bool keep_asm = false;
  /// Look the module up in the compiled-module cache and keep it there
  /// (compile_cache.h; in memory and on disk). Off unless asked for, so
  /// that library users and tests write no files of their own accord;
  /// hlo-run turns it on (--cache). keep_llvm_ir and keep_asm compile
  /// without it.
  bool use_cache = false;
  /// Time every kernel, library call and collective (hlo-run --profile):
  /// see profile_sites() and RunOptions::profile. Off, the code has no
  /// trace of it.
  bool profile = false;
};

struct CacheEntry;

/// The generic simplification pipeline of the cpu platform (hlo-opt
/// --platform=cpu), which Compile runs first when CompileOptions::run_passes
/// asks; ahead-of-time libraries (aot/aot_library.h) run it too.
absl::Status RunCpuPassPipeline(HloModule& module);

/// The CPU's rewrites after the generic pipeline: async pairs to calls,
/// scans to while loops, scaled-dot to its expansion, the random ops
/// chained in the evaluator's order, XLA:CPU's tree reductions and blocked
/// scans, fusions of non-elemental instructions to calls, consistent layouts,
/// loop and reduction fusion, then the copies buffer assignment needs. Compile
/// runs it; hlo-opt runs it before printing the cpu buffer assignment.
absl::Status PrepareForCpu(HloModule& module);

struct RunOptions {
  int64_t replica_id = 0;
  int64_t partition_id = 0;
  void* collectives = nullptr;
  /// For a module compiled with `profile`: the counters this run adds its
  /// sites' times to (one per device thread), and its own time; null
  /// records nothing.
  ProfileCounters* profile = nullptr;
  /// If set: the seconds of the run itself, the module's buffers allocated
  /// and its code run. Copying the arguments in and the results out into
  /// literals is not counted (XLA's execute likewise takes buffers already
  /// on the device and leaves its results there).
  double* execute_seconds = nullptr;
};

class CpuExecutable {
 public:
  /// Compiles `module` (takes it over): the cpu pipeline, copy insertion,
  /// buffer assignment, LLVM emission and JIT. Fails naming the
  /// instruction when something cannot be compiled.
  static absl::StatusOr<std::unique_ptr<CpuExecutable>> Compile(
      std::unique_ptr<HloModule> module, const CompileOptions& options = {});

  /// Runs on `arguments` (one literal per entry parameter, tuples for tuple
  /// parameters); returns the entry result.
  absl::StatusOr<Literal> Run(absl::Span<const Literal> arguments,
                              const RunOptions& options = {}) const;

  const HloModule& module() const { return *module_; }
  const runtime::BufferAssignment& assignment() const { return *assignment_; }
  const std::string& llvm_ir() const { return llvm_ir_; }
  const std::string& assembly() const { return asm_; }
  /// Whether Compile found this module in the cache (and skipped LLVM).
  bool from_cache() const { return from_cache_; }
  /// The timed sites of a module compiled with `profile` (else empty),
  /// indexed as in ProfileCounters.
  const std::vector<ProfileSite>& profile_sites() const {
    return profile_sites_;
  }

 private:
  CpuExecutable() = default;

  /// The pipeline, buffer assignment and LLVM; fills `keep` (when given)
  /// with what the cache needs to load the result again.
  static absl::StatusOr<std::unique_ptr<CpuExecutable>> CompileWithLlvm(
      std::unique_ptr<HloModule> module, const CompileOptions& options,
      CacheEntry* keep);
  /// The executable `entry` describes (cached_executable.cc): its module
  /// and buffer assignment rebuilt, its object linked, its constants laid
  /// out.
  static absl::StatusOr<std::unique_ptr<CpuExecutable>> FromCacheEntry(
      const CacheEntry& entry);
  /// Only the module and buffer assignment of `entry`; fails unless the
  /// module prints back as stored and the assignment has the stored digest.
  static absl::StatusOr<std::unique_ptr<CpuExecutable>> RebuildFromCacheEntry(
      const CacheEntry& entry);
  /// What the cache keeps of this executable, with its `object` file.
  CacheEntry ToCacheEntry(std::string object) const;
  /// A fresh JIT holding `object`, and the entry function in it.
  absl::Status LinkObject(absl::string_view object);
  /// The constant allocations' bytes: from `stored` (allocation index ->
  /// bytes) when given, else from the constant instructions' literals.
  absl::Status LayOutConstants(const CacheEntry* stored);
  /// The pool of the buffers runs use: every allocation but the constants.
  void MakeBufferPool();

  std::unique_ptr<HloModule> module_;
  std::unique_ptr<runtime::BufferAssignment> assignment_;
  std::unique_ptr<CpuJit> jit_;
  void (*entry_)(void**, RunContext*) = nullptr;
  std::vector<std::unique_ptr<AlignedBuffer>> constants_;  // by allocation
  std::unique_ptr<BufferPool> pool_;
  std::string llvm_ir_;
  std::string asm_;
  bool from_cache_ = false;
  std::vector<ProfileSite> profile_sites_;
};

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_EXECUTABLE_H_
