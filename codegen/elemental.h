#ifndef XLITE_CODEGEN_ELEMENTAL_H_
#define XLITE_CODEGEN_ELEMENTAL_H_

// The elemental emitter, shared by both backends: for an HLO instruction,
// a generator that emits the IR computing its element at any logical index,
// built from its operands' generators. A fused computation is the
// composition of its instructions' generators, its parameters bound to
// arrays in memory; an applied computation (reducer, comparator, combiner,
// map function) is the same composition at the empty index with its
// parameters bound to scalar values.
//
// Generated values are memoized per (instruction, leaf, index) within the
// current scope, so a value a fused computation uses twice is computed once;
// every loop or conditional region a generator opens is a new scope, whose
// values are forgotten when it closes (they would not dominate what follows).

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "codegen/ir_array.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/instruction.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace xlite::codegen {

using Generator = std::function<absl::StatusOr<llvm::Value*>(const Index&)>;

class ElementalEmitter {
 public:
  ElementalEmitter(llvm::IRBuilderBase& b, llvm::Module& module)
      : b_(b), module_(module) {}
  ElementalEmitter(const ElementalEmitter&) = delete;
  ElementalEmitter& operator=(const ElementalEmitter&) = delete;

  llvm::IRBuilderBase& builder() { return b_; }
  llvm::Module& module() { return module_; }

  /// Makes `instruction`'s leaf `leaf` (-1: an array-shaped instruction)
  /// come from `generator` instead of from its operands: kernel operands
  /// and fusion parameters read memory, applied-computation parameters are
  /// given values.
  void Bind(const HloInstruction* instruction, int64_t leaf,
            Generator generator);
  void BindArray(const HloInstruction* instruction, int64_t leaf,
                 const IrArray& array);

  /// The generator of `instruction` (leaf `leaf` of a tuple-shaped one).
  absl::StatusOr<Generator> GeneratorFor(const HloInstruction* instruction,
                                         int64_t leaf = -1);

  /// The value of `instruction` at `index`, memoized.
  absl::StatusOr<llvm::Value*> ValueAt(const HloInstruction* instruction,
                                       int64_t leaf, const Index& index);

  /// The values of `instruction` (leaf `leaf`) at `lanes`, indices that are
  /// equal but in dimension `dim`, where lane k is lane 0 plus k ("joint
  /// lanes", elemental_lanes.cc). Reductions that keep `dim` compute their
  /// lanes in one loop nest with one accumulator per lane, so each lane is
  /// reduced in exactly its own order while the lanes' operand elements are
  /// read together (from one cache line when `dim` is physically minor);
  /// elementwise ops pass the lanes on; anything else is ValueAt per lane.
  absl::StatusOr<std::vector<llvm::Value*>> ValuesAt(
      const HloInstruction* instruction, int64_t leaf,
      absl::Span<const Index> lanes, int64_t dim);

  /// Makes ValueAt(instruction, leaf, index) give `value` in the current
  /// memoization scope (computed elsewhere, as by a kernel's own walk).
  void Provide(const HloInstruction* instruction, int64_t leaf,
               const Index& index, llvm::Value* value) {
    MemoizeLanes(instruction, leaf, {index}, {value});
  }

  /// Emits `computation` (scalar-shaped, or a tuple of scalars) applied to
  /// `arguments` (one per leaf of its parameters, in order), inline; returns
  /// the root's value(s), one per leaf.
  absl::StatusOr<std::vector<llvm::Value*>> EmitApplied(
      const HloComputation& computation,
      absl::Span<llvm::Value* const> arguments);

  /// Opens / closes a memoization scope (around loops and branches).
  void PushScope();
  void PopScope();

  /// A scope guard.
  class Scope {
   public:
    explicit Scope(ElementalEmitter& e) : e_(e) { e_.PushScope(); }
    ~Scope() { e_.PopScope(); }

   private:
    ElementalEmitter& e_;
  };

  /// Index helpers.
  llvm::Value* Int64(int64_t v) { return b_.getInt64(v); }

 private:
  using Key = std::pair<const HloInstruction*, int64_t>;

  absl::StatusOr<Generator> MakeGenerator(const HloInstruction* instruction,
                                          int64_t leaf);
  absl::StatusOr<Generator> MakeElementwise(const HloInstruction* hlo);
  absl::StatusOr<Generator> MakeDataMovement(const HloInstruction* hlo);
  absl::StatusOr<Generator> MakeGeneratorOp(const HloInstruction* hlo);
  absl::StatusOr<Generator> MakeReduction(const HloInstruction* hlo,
                                          int64_t leaf);
  absl::StatusOr<Generator> MakeContraction(const HloInstruction* hlo);
  absl::StatusOr<Generator> MakeGatherScatter(const HloInstruction* hlo);
  absl::StatusOr<Generator> NestedFusion(const HloInstruction* hlo,
                                         int64_t leaf);
  absl::StatusOr<Generator> MakeTupleOp(const HloInstruction* hlo,
                                        int64_t leaf);

  // Family members (elemental_*.cc).
  absl::StatusOr<Generator> Broadcast(const HloInstruction* hlo);
  absl::StatusOr<Generator> Reshape(const HloInstruction* hlo);
  absl::StatusOr<Generator> Transpose(const HloInstruction* hlo);
  absl::StatusOr<Generator> Slice(const HloInstruction* hlo);
  absl::StatusOr<Generator> Pad(const HloInstruction* hlo);
  absl::StatusOr<Generator> Concatenate(const HloInstruction* hlo);
  absl::StatusOr<Generator> Reverse(const HloInstruction* hlo);
  absl::StatusOr<Generator> DynamicSlice(const HloInstruction* hlo);
  absl::StatusOr<Generator> DynamicUpdateSlice(const HloInstruction* hlo);
  absl::StatusOr<Generator> Iota(const HloInstruction* hlo);
  absl::StatusOr<Generator> Constant(const HloInstruction* hlo);
  absl::StatusOr<Generator> Reduce(const HloInstruction* hlo, int64_t leaf);
  absl::StatusOr<Generator> ReduceWindow(const HloInstruction* hlo,
                                         int64_t leaf);
  // A reassociable reduce at `index`, its operand's minor dimension
  // folded `width` elements at a time (elemental_strips.cc).
  absl::StatusOr<llvm::Value*> ReduceInStrips(const HloInstruction* hlo,
                                              const Index& index,
                                              int64_t width);
  // One run of the minor dimension folded in strips (base: the run's
  // index, its minor entry unused).
  absl::StatusOr<llvm::Value*> FoldRun(const HloInstruction* hlo,
                                       const Index& base, int64_t minor,
                                       int64_t width);
  // `operand`'s elements [start, start + width) along `minor` as a vector.
  absl::StatusOr<llvm::Value*> StripVector(const HloInstruction* operand,
                                           const Index& base, int64_t minor,
                                           int64_t width, llvm::Value* start);
  absl::StatusOr<Generator> Map(const HloInstruction* hlo);
  absl::StatusOr<Generator> Dot(const HloInstruction* hlo);
  absl::StatusOr<Generator> RaggedDot(const HloInstruction* hlo);
  absl::StatusOr<Generator> Convolution(const HloInstruction* hlo);
  absl::StatusOr<Generator> Gather(const HloInstruction* hlo);

  // Joint-lane forms (elemental_lanes.cc). JointValues and its cases
  // return an empty vector where they do not apply (ValuesAt then falls
  // back to ValueAt per lane).
  absl::StatusOr<std::vector<llvm::Value*>> JointValues(
      const HloInstruction* hlo, int64_t leaf, absl::Span<const Index> lanes,
      int64_t dim);
  absl::StatusOr<std::vector<llvm::Value*>> JointElementwise(
      const HloInstruction* hlo, absl::Span<const Index> lanes, int64_t dim);
  absl::StatusOr<std::vector<llvm::Value*>> JointReduce(
      const HloInstruction* hlo, int64_t leaf, absl::Span<const Index> lanes,
      int64_t dim);
  // A dot's values at `lanes` (one lane: ValueAt's), one accumulator per
  // lane, each summed in the same order (elemental_contraction.cc).
  absl::StatusOr<std::vector<llvm::Value*>> DotLanes(
      const HloInstruction* hlo, absl::Span<const Index> lanes, int64_t dim);
  absl::StatusOr<std::vector<llvm::Value*>> JointReduceWindow(
      const HloInstruction* hlo, int64_t leaf, absl::Span<const Index> lanes,
      int64_t dim);
  // accs[i][k]: reduction `hlo`'s accumulator of result i in lane k, each
  // holding its init value.
  absl::StatusOr<std::vector<std::vector<llvm::AllocaInst*>>> LaneAccumulators(
      const HloInstruction* hlo, size_t width);
  // Runs the reducer of `hlo` once per lane: values[i][k] is operand i's
  // next element in lane k.
  absl::Status AccumulateLanes(
      const HloInstruction* hlo,
      const std::vector<std::vector<llvm::AllocaInst*>>& accs,
      const std::vector<std::vector<llvm::Value*>>& values);
  // The accumulators' final values of leaf `leaf` (every leaf memoized).
  std::vector<llvm::Value*> LaneResults(
      const HloInstruction* hlo, int64_t leaf, absl::Span<const Index> lanes,
      const std::vector<std::vector<llvm::AllocaInst*>>& accs);
  // The memoized value of (instruction, leaf, index) or null.
  llvm::Value* Memoized(const HloInstruction* instruction, int64_t leaf,
                        const Index& index);
  void MemoizeLanes(const HloInstruction* hlo, int64_t leaf,
                    absl::Span<const Index> lanes,
                    absl::Span<llvm::Value* const> values);

  // Clamped dynamic start indices (i64) of operands first..first+rank-1,
  // each within [0, dim - size].
  absl::StatusOr<Index> ClampedStarts(const HloInstruction* hlo,
                                      int64_t first_operand,
                                      absl::Span<const int64_t> dims,
                                      absl::Span<const int64_t> sizes,
                                      const Index& at);

  llvm::IRBuilderBase& b_;
  llvm::Module& module_;
  std::map<Key, Generator> generators_;
  // What Bind gave a generator (memory, applied parameters): never
  // computed from operands.
  std::set<Key> bound_;
  struct CacheKey {
    const HloInstruction* instruction;
    int64_t leaf;
    llvm::SmallVector<llvm::Value*, 6> index;
    bool operator<(const CacheKey& o) const {
      return std::tie(instruction, leaf, index) <
             std::tie(o.instruction, o.leaf, o.index);
    }
  };
  std::vector<std::map<CacheKey, llvm::Value*>> scopes_ = {{}};
};

/// The strip width ReduceInStrips folds reduce `hlo` with, or 0 when it
/// does not apply: `hlo` is a reassociable single-operand reduce
/// (IsReassociableReduce, hlo/ir/reducer.h) of f32, f64 or 8- to 64-bit
/// integers over its operand's physically minor dimension, at least two
/// strips long. Such reduces are computed one
/// result at a time, not in joint lanes.
int64_t StripWidth(const HloInstruction* hlo);

/// Unimplemented error naming `hlo`, located when it came from text:
/// "LINE:COL: error: cannot compile %name (opcode): what". Code here is
/// shared by the backends, so it does not say which one compiles: each
/// backend names itself with NameBackend where its emission returns.
absl::Status Unsupported(const HloInstruction* hlo, absl::string_view what);

/// `status` with "the <backend> backend " put before its "cannot compile
/// %" when it is an Unsupported refusal; any other status unchanged.
absl::Status NameBackend(absl::Status status, absl::string_view backend);

/// Whether `status` is an Unsupported refusal no backend has named yet.
bool IsUnnamedRefusal(const absl::Status& status);

}  // namespace xlite::codegen

#endif  // XLITE_CODEGEN_ELEMENTAL_H_
