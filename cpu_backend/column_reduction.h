#ifndef XLITE_CPU_BACKEND_COLUMN_REDUCTION_H_
#define XLITE_CPU_BACKEND_COLUMN_REDUCTION_H_

// Column reductions walked row by row. A reduce that keeps its operand's
// physically minor dimension and reduces one dimension above it (a column
// sum, a bias gradient) is, in joint lanes, a walk down each column group
// with the rows a whole row apart: every step touches a new page, and the
// prefetchers cannot follow. Here a block of columns is walked one row at
// a time instead, the running values of every column in the block in
// memory (the stack), so the operand streams through the cache in order.
//
// The order of each column's reduction is unchanged: the reduce-window
// levels of the tree rewrite (tree_reduction.h) become one accumulator row
// per level, each window starting at its init value, padded positions
// skipped, each level's result folded into the level above as the window
// closes, exactly as ReduceWindow and Reduce fold them element by element.

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "codegen/elemental.h"
#include "codegen/ir_array.h"
#include "codegen/loops.h"
#include "hlo/ir/instruction.h"
#include "llvm/IR/IRBuilder.h"

namespace xlite::cpu {

struct ColumnReduction {
  // The kernel's result: the reduce, or elementwise operations on it (a
  // bias updated by its gradient), computed per result element from the
  // reduce's value there.
  const HloInstruction* root = nullptr;
  // The reduce.
  const HloInstruction* reduce = nullptr;
  // The reduce-window levels under it, the one reading `source` first.
  std::vector<const HloInstruction*> levels;
  // The elements reduced (the innermost level's operand).
  const HloInstruction* source = nullptr;
  // The reduced dimension of `source` longer than 1 (the rows).
  int64_t row_dim = -1;
  // The kept dimensions of `source` physically above / below `row_dim`,
  // most major first: outer ones pick a block, inner ones a column.
  std::vector<int64_t> outer;
  std::vector<int64_t> inner;
  int64_t outer_count = 1;
  int64_t columns = 1;
  // Columns per block; blocks per outer position.
  int64_t block = 1;
  int64_t blocks = 1;

  // The iterations of the walk's split loop: (outer position, block) pairs.
  int64_t SplitTripCount() const { return outer_count * blocks; }
};

/// The row walk for `root` (the root of `kernel`, or `kernel` itself), or
/// nothing when it is not such a column reduction: a single-operand reduce
/// of an array whose one reduced dimension longer than 1 lies physically
/// above the minor dimension, through reduce-windows (fused ones only)
/// whose windows tile that dimension alone; the root is that reduce or,
/// in a fusion, elementwise operations of its dimensions that read it
/// (and nothing else does). `max_tasks`: the tasks the
/// kernel may be split into (blocks are narrowed so there are as many).
std::optional<ColumnReduction> MatchColumnReduction(
    const HloInstruction* kernel, const HloInstruction* root,
    int64_t max_tasks);

/// Writes `plan`'s reduce to `out`; with `range`, only iterations
/// [begin, end) of its split loop.
absl::Status EmitColumnReduction(llvm::IRBuilderBase& b,
                                 codegen::ElementalEmitter& emitter,
                                 const ColumnReduction& plan,
                                 const codegen::IrArray& out,
                                 const codegen::SplitRange* range);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_COLUMN_REDUCTION_H_
