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
#include "cpu_backend/jit.h"
#include "cpu_backend/module_emitter.h"
#include "hlo/ir/literal.h"
#include "hlo/ir/module.h"
#include "runtime/buffer_assignment.h"

namespace xlite::cpu {

struct CompileOptions {
  /// Run the cpu pass pipeline first (hlo-run --run_passes).
  bool run_passes = true;
  /// Keep the optimized LLVM IR text (for hlo-opt --stage=llvm).
  bool keep_llvm_ir = false;
  /// Keep the host assembly (for hlo-opt --stage=asm).
  bool keep_asm = false;
};

/// The CPU's rewrites after the generic pipeline: async pairs to calls,
/// XLA:CPU's tree reductions and blocked scans, consistent layouts, then
/// the copies buffer assignment needs. Compile runs it; hlo-opt runs it
/// before printing the cpu buffer assignment.
absl::Status PrepareForCpu(HloModule& module);

struct RunOptions {
  int64_t replica_id = 0;
  int64_t partition_id = 0;
  void* collectives = nullptr;
};

/// A 64-byte aligned block of bytes.
class AlignedBuffer {
 public:
  explicit AlignedBuffer(int64_t size);
  ~AlignedBuffer();
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  uint8_t* data() const { return data_; }
  int64_t size() const { return size_; }

 private:
  uint8_t* data_;
  int64_t size_;
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

 private:
  CpuExecutable() = default;

  std::unique_ptr<HloModule> module_;
  std::unique_ptr<runtime::BufferAssignment> assignment_;
  std::unique_ptr<CpuJit> jit_;
  void (*entry_)(void**, RunContext*) = nullptr;
  std::vector<std::unique_ptr<AlignedBuffer>> constants_;  // by allocation
  std::string llvm_ir_;
  std::string asm_;
};

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_EXECUTABLE_H_
