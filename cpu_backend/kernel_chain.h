#ifndef XLITE_CPU_BACKEND_KERNEL_CHAIN_H_
#define XLITE_CPU_BACKEND_KERNEL_CHAIN_H_

// Kernel chains: consecutive elemental kernels of a schedule that walk the
// same number of rows, each reading what the others write only at its own
// rows, run one block of rows at a time: every member's part for rows
// [0, B), then every member's part for [B, 2B), ... So a row softmax (row
// max, exp, row sum, divide: four passes over 64 MiB) reads each row from
// memory once and finds it in the cache for the other three passes.
//
// Running row blocks out of order is safe when, for every buffer a member
// writes and any member reads or writes, all of them address it as one
// array of the same shape and layout, row by row along the same dimension
// (row_locality.h): then each row sees exactly the writes and reads it saw
// kernel after kernel, in the same order.

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "cpu_backend/emitter_context.h"
#include "hlo/ir/instruction.h"
#include "llvm/IR/IRBuilder.h"

namespace xlite::cpu {

struct KernelChain {
  std::vector<const HloInstruction*> members;
  std::vector<RowSplit> splits;
  // Each member's operands' row dimensions (OperandRowDimensions).
  std::vector<std::vector<int64_t>> operand_rows;
  int64_t rows = 0;
  // Rows per block: a multiple of every member's rows per iteration.
  int64_t block_rows = 1;
};

/// The chains of two or more members in `schedule` (a computation's, in
/// order); members follow one another with nothing but instructions that
/// emit no code between them.
std::vector<KernelChain> FindKernelChains(
    EmitterContext& ctx, const std::vector<const HloInstruction*>& schedule);

/// Emits `chain` in place of its members' kernels, split over the cores in
/// blocks when any member would have been.
absl::Status EmitKernelChain(EmitterContext& ctx, llvm::IRBuilderBase& b,
                             const KernelChain& chain);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_KERNEL_CHAIN_H_
