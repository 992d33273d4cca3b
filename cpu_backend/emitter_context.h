#ifndef XLITE_CPU_BACKEND_EMITTER_CONTEXT_H_
#define XLITE_CPU_BACKEND_EMITTER_CONTEXT_H_

// State shared by the parts of the module emitter: the LLVM module, the
// buffer assignment, and how a slice becomes an address inside the
// function being emitted.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "codegen/elemental.h"
#include "codegen/ir_array.h"
#include "cpu_backend/alias_scopes.h"
#include "cpu_backend/profile_site.h"
#include "hlo/ir/module.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "runtime/buffer_assignment.h"

namespace xlite::cpu {

struct KernelChain;  // kernel_chain.h

class EmitterContext {
 public:
  EmitterContext(const HloModule& module,
                 const runtime::BufferAssignment& assignment,
                 llvm::Module& llvm_module)
      : module_(module), assignment_(assignment), llvm_module_(llvm_module) {}

  const HloModule& module() const { return module_; }
  const runtime::BufferAssignment& assignment() const { return assignment_; }
  llvm::Module& llvm_module() { return llvm_module_; }
  llvm::LLVMContext& context() { return llvm_module_.getContext(); }

  /// A new internal function `void name(ptr allocations, ptr context)`
  /// with an entry block; the builder is positioned in it.
  llvm::Function* NewKernel(llvm::IRBuilderBase& b, const std::string& name);

  /// A new internal function `void name(ptr allocations, ptr context, i64
  /// begin, i64 end)`: the part of a kernel that runs the iterations
  /// [begin, end) of its split loop (codegen/loops.h, SplitRange). The
  /// builder is positioned in its entry block.
  llvm::Function* NewKernelPart(llvm::IRBuilderBase& b,
                                const std::string& name);

  /// Runs kernel part `part` over [0, count) in at most `max_tasks` tasks
  /// (xlite_cpu_parallel_range), from the current function.
  void CallKernelParts(llvm::IRBuilderBase& b, llvm::Function* part,
                       int64_t count, int64_t max_tasks);

  /// The address of `slice` inside the current function (whose first two
  /// arguments are the allocation table and the run context).
  llvm::Value* SliceAddress(llvm::IRBuilderBase& b,
                            const runtime::Slice& slice);

  /// Where a kernel chain keeps a member's result that only later members
  /// read (kernel_chain.h): in a block-sized scratch the chain's table
  /// holds at `slot` (past the allocations), the current block's rows
  /// along `row_dim` only.
  struct ChainScratch {
    int64_t slot = 0;
    int64_t row_dim = 0;
  };
  /// While a chain's members are emitted: `instruction`'s result is in
  /// scratch; a member part's block starts at its begin times
  /// `rows_per_iteration` (SetChainRowsPerIteration, per member).
  void SetChainScratch(const HloInstruction* instruction,
                       ChainScratch scratch) {
    chain_scratch_[instruction] = scratch;
  }
  void SetChainRowsPerIteration(int64_t rows) {
    chain_rows_per_iteration_ = rows;
  }
  void ClearChainScratch() { chain_scratch_.clear(); }

  /// The array at leaf `index` of `instruction`, in the current function
  /// (a view of the chain's scratch for a result kept there).
  absl::StatusOr<codegen::IrArray> ArrayFor(llvm::IRBuilderBase& b,
                                            const HloInstruction* instruction,
                                            const ShapeIndex& index = {});

  /// Emits every instruction of a sequential computation, in schedule
  /// order, into the current function.
  absl::Status EmitComputation(llvm::IRBuilderBase& b,
                               const HloComputation& computation);

  /// Emits one instruction of a sequential computation.
  absl::Status EmitInstruction(llvm::IRBuilderBase& b,
                               const HloInstruction* instruction);

  /// Calls kernel `kernel` from the current function.
  void CallKernel(llvm::IRBuilderBase& b, llvm::Function* kernel);

  /// An external function declaration (runtime library).
  llvm::FunctionCallee Runtime(const std::string& name,
                               llvm::FunctionType* type);

  std::string UniqueName(const std::string& base);

  /// The slices behind the addresses SliceAddress made (alias_scopes.h).
  const SliceAliasing& aliasing() const { return aliasing_; }
  /// `f`'s vector loads of `slice` prefetch `bytes` ahead (read_ahead.h).
  void ReadAhead(const llvm::Function* f, const runtime::Slice& slice,
                 int64_t bytes) {
    aliasing_.ReadAhead(f, slice, bytes);
  }

  /// Profiling (profile_emitter.cc): every instruction that runs code gets
  /// a site in `sites` and is bracketed by calls that time it.
  void EnableProfiling(std::vector<ProfileSite>* sites) {
    profile_sites_ = sites;
  }

 private:
  // The code of one instruction, untimed.
  absl::Status EmitInstructionCode(llvm::IRBuilderBase& b,
                                   const HloInstruction* instruction);
  // Whether profiling is on and `instruction` gets a site of its own.
  bool IsTimed(const HloInstruction* instruction) const;
  // One profile site for a kernel chain's members, run as one.
  int32_t ProfileSiteOfChain(const std::vector<const HloInstruction*>& members);
  // A kernel chain (kernel_chain.h) in place of its members, timed as one.
  absl::Status EmitChain(llvm::IRBuilderBase& b, const KernelChain& chain);
  // The site of `instruction`, added on first use.
  int32_t ProfileSiteOf(const HloInstruction* instruction);
  // A call of xlite_cpu_profile_begin (or _end) for `site`.
  void EmitProfileMark(llvm::IRBuilderBase& b, bool begin, int32_t site);

  const HloModule& module_;
  const runtime::BufferAssignment& assignment_;
  llvm::Module& llvm_module_;
  int next_id_ = 0;
  std::vector<ProfileSite>* profile_sites_ = nullptr;
  absl::flat_hash_map<const HloInstruction*, int32_t> profile_ids_;
  SliceAliasing aliasing_;
  absl::flat_hash_map<const HloInstruction*, ChainScratch> chain_scratch_;
  int64_t chain_rows_per_iteration_ = 1;
};

// The families of instruction emission (one file each).
absl::Status EmitElementalKernel(EmitterContext& ctx, llvm::IRBuilderBase& b,
                                 const HloInstruction* instruction);
absl::Status EmitControlFlow(EmitterContext& ctx, llvm::IRBuilderBase& b,
                             const HloInstruction* instruction);

/// How an elemental kernel's split loop walks its (array) result's rows:
/// along `row_dim`, its physically most major dimension longer than 1,
/// `rows_per_iteration` of its `rows` at a time (joint lanes across rows
/// take several), in `trip` iterations.
struct RowSplit {
  int64_t row_dim = 0;
  int64_t rows = 0;
  int64_t rows_per_iteration = 1;
  int64_t trip = 0;
  int64_t max_tasks = 1;
};

/// The row split of elemental kernel `instruction`, when its part may run
/// any range of its split loop in any order: an array result walked in
/// rows (not tiles, not column blocks), not in place over an operand but
/// element for element, sharing no memory with its operands otherwise.
std::optional<RowSplit> ElementalRowSplit(EmitterContext& ctx,
                                          const HloInstruction* instruction);

/// Emits the part function of elemental kernel `instruction` (of
/// ElementalRowSplit): it runs iterations [begin, end) of its split loop.
/// The builder is left where it was. With `may_stream`, a large result
/// may be written with streaming stores (streaming_stores.h).
absl::StatusOr<llvm::Function*> EmitElementalKernelPart(
    EmitterContext& ctx, llvm::IRBuilderBase& b,
    const HloInstruction* instruction, bool may_stream = false);
absl::Status EmitScatterKernel(EmitterContext& ctx, llvm::IRBuilderBase& b,
                               const HloInstruction* instruction);
absl::Status EmitSortKernel(EmitterContext& ctx, llvm::IRBuilderBase& b,
                            const HloInstruction* instruction);
absl::Status EmitLibraryCall(EmitterContext& ctx, llvm::IRBuilderBase& b,
                             const HloInstruction* instruction);
absl::Status EmitCollective(EmitterContext& ctx, llvm::IRBuilderBase& b,
                            const HloInstruction* instruction);

/// Binds every fusion parameter (or kernel operand) of `instruction` to the
/// arrays it reads, in the current kernel.
absl::Status BindOperands(EmitterContext& ctx, llvm::IRBuilderBase& b,
                          codegen::ElementalEmitter& emitter,
                          const HloInstruction* instruction);

/// Copies every element of array `from` into array `to` (same dimensions,
/// any layouts).
absl::Status EmitArrayCopy(llvm::IRBuilderBase& b, const codegen::IrArray& from,
                           const codegen::IrArray& to);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_EMITTER_CONTEXT_H_
