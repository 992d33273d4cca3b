#ifndef XLITE_RUNTIME_ALIAS_ANALYSIS_H_
#define XLITE_RUNTIME_ALIAS_ANALYSIS_H_

// Which arrays a module computes and which positions hold the same one:
// buffer assignment's first step, independent of any schedule.
//
// A *value* is one array leaf (or token) that an instruction of a
// sequential computation defines. Positions that define nothing new hold a
// value another position defines: tuple, get-tuple-element, bitcast,
// opt-barrier, add-dependency, domain, the parameters of conditional
// branches and call callees, and the results of the asynchronous "done"
// ops. A while's result, its body's and condition's parameters, and the
// results of conditionals and calls define *phi* values: they name the
// buffer their must-alias set shares, and write no bytes themselves.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "hlo/ir/module.h"

namespace xlite::runtime {

/// One array leaf an instruction defines.
struct HloValue {
  int id = -1;
  const HloInstruction* instruction = nullptr;  // the defining instruction
  ShapeIndex index;                             // leaf of its result
  /// While result, while body/condition parameter, conditional or call
  /// result: names its must-alias set's buffer, writes nothing.
  bool is_phi = false;
  /// Bytes: elements * StorageBytes; 0 for tokens and zero-element arrays.
  int64_t size = 0;
  /// "%name{index}".
  std::string ToString() const;
};

/// An instruction that may write its result leaf into the buffer of one of
/// its operands' leaves (dynamic-update-slice, scatter, fusions rooted at
/// one of those on a parameter, output_to_operand_aliasing).
struct InPlaceCandidate {
  const HloInstruction* instruction = nullptr;
  ShapeIndex output_index;
  int64_t operand_number = 0;
  ShapeIndex operand_index;
  /// An elementwise kernel that may overwrite its operand: granted only
  /// where the operand dies there anyway, never relied on by copy
  /// insertion.
  bool optional = false;
};

/// Values, the positions that hold them, the must-alias sets and the
/// sequential computations of a module.
class AliasAnalysis {
 public:
  /// Fails (naming the instruction) when a sequential computation has more
  /// than one caller; InsertCopies flattens the call graph first.
  static absl::StatusOr<AliasAnalysis> Run(const HloModule& module);

  const HloModule& module() const { return *module_; }
  const std::vector<HloValue>& values() const { return values_; }
  const HloValue& value(int id) const { return values_[id]; }

  /// The (leaf index, value id) pairs of an instruction of a sequential
  /// computation, in leaf order; empty for other instructions.
  const std::vector<std::pair<ShapeIndex, int>>& Leaves(
      const HloInstruction* instruction) const;
  /// The value at `index` of `instruction`, -1 if there is none (tuple
  /// index, applied computation).
  int ValueAt(const HloInstruction* instruction, const ShapeIndex& index) const;

  /// Sequential computations, callers before callees (the entry first).
  const std::vector<const HloComputation*>& sequential_computations() const {
    return sequential_;
  }
  bool IsSequential(const HloComputation* computation) const {
    return caller_.contains(computation);
  }
  /// The while, conditional or call that runs `computation`; nullptr for
  /// the entry.
  const HloInstruction* Caller(const HloComputation* computation) const;

  /// True for positions that forward their operands' values and read no
  /// bytes themselves (tuple, get-tuple-element, bitcast, ...).
  static bool IsForwarding(const HloInstruction* instruction);

  /// The distinct values an instruction reads through its operands (what a
  /// scheduler frees and a live range ends at); empty for forwarding ones.
  std::vector<int> ValuesRead(const HloInstruction* instruction) const;

  /// Must-alias sets: pairs of values that share one buffer whatever the
  /// schedule (while state, conditional and call results).
  const std::vector<std::pair<int, int>>& must_alias_pairs() const {
    return must_alias_pairs_;
  }
  const std::vector<InPlaceCandidate>& in_place_candidates() const {
    return in_place_;
  }

 private:
  AliasAnalysis() = default;
  absl::Status AnalyzeComputation(const HloComputation* computation);
  absl::Status AnalyzeInstruction(const HloInstruction* instruction);
  absl::Status ClaimCallee(const HloComputation* callee,
                           const HloInstruction* caller);
  int NewValue(const HloInstruction* instruction, const ShapeIndex& index,
               bool is_phi);
  // Every leaf of `instruction` defines a value.
  void DefineAll(const HloInstruction* instruction, bool is_phi);
  // Leaf `index` of `instruction` holds `source`'s leaf `source_index`
  // (prefix-relative: index = prefix + rest, source leaf = source_prefix +
  // rest).
  void Forward(const HloInstruction* instruction, const ShapeIndex& prefix,
               const HloInstruction* source, const ShapeIndex& source_prefix);
  void SetLeaf(const HloInstruction* instruction, const ShapeIndex& index,
               int value);
  void AliasLeaves(const HloInstruction* a, const HloInstruction* b);
  void AddInPlaceCandidates(const HloInstruction* instruction);

  const HloModule* module_ = nullptr;
  std::vector<HloValue> values_;
  absl::flat_hash_map<const HloInstruction*,
                      std::vector<std::pair<ShapeIndex, int>>>
      leaves_;
  absl::flat_hash_map<const HloComputation*, const HloInstruction*> caller_;
  std::vector<const HloComputation*> sequential_;
  std::vector<std::pair<int, int>> must_alias_pairs_;
  std::vector<InPlaceCandidate> in_place_;
};

/// For the "done" half of an asynchronous pair (async-done, copy-done,
/// all-reduce-done, ...): under which prefix of its operand's result its
/// own result lies. False for every other opcode.
bool DoneSource(const HloInstruction* done, ShapeIndex* prefix);

/// The array (and token) leaves of `shape`, in order; {} for an array.
std::vector<ShapeIndex> LeafIndices(const Shape& shape);
/// Bytes of one leaf: elements * StorageBytes(type); 0 for tokens.
int64_t LeafBytes(const Shape& shape);

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_ALIAS_ANALYSIS_H_
