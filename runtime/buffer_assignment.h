#ifndef XLITE_RUNTIME_BUFFER_ASSIGNMENT_H_
#define XLITE_RUNTIME_BUFFER_ASSIGNMENT_H_

// Buffer assignment, shared by both backends: where every array a module
// computes lives. The only addresses the runtime and the generated code know
// are Slices — (allocation, offset, size) — fixed at compile time.
//
// Allocations: one per leaf of each entry parameter, one per constant, one
// per entry-result leaf that is computed (not a parameter or constant), and
// one arena holding every temporary at a constant offset (best-fit packed by
// live range, runtime/heap_packer).
//
// Computations are either *sequential* — the entry, while bodies and
// conditions, conditional branches and call callees, whose instructions run
// one after another and get slices — or *applied* (fusion bodies, reducers,
// comparators, scatter combiners, map computations, ...): a kernel evaluates
// those itself and they get no slices.
//
// Positions that define no new array take the slice of the array they
// forward: tuple, get-tuple-element, bitcast, the parameters of sequential
// callees, while/conditional/call results, opt-barrier, add-dependency,
// domain. Must-alias (one buffer, copies inserted beforehand by
// InsertCopies where the members would interfere): a while's init, body
// parameter, condition parameter, body root and result, leaf by leaf; a
// conditional's branch roots and result; a call's callee root and result.
// May-alias (one buffer when the operand's array is dead after the
// instruction and is neither an entry parameter nor a constant, else two):
// dynamic-update-slice and scatter with their operand 0, fusions whose root
// is one of those on a fusion parameter, fusion and custom-call
// output_to_operand_aliasing, and entry input_output_alias (donation).
// Generated code tells in-place from not by comparing the two slices.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "hlo/ir/module.h"

namespace xlite::runtime {

/// A byte range of one allocation.
struct Slice {
  int allocation = -1;
  int64_t offset = 0;
  int64_t size = 0;
  bool operator==(const Slice& o) const {
    return allocation == o.allocation && offset == o.offset && size == o.size;
  }
  bool operator!=(const Slice& o) const { return !(*this == o); }
};

struct Allocation {
  enum class Kind {
    kParameter,  // one leaf of an entry parameter, owned by the caller
    kConstant,   // the bytes of one constant instruction
    kOutput,     // one computed leaf of the entry result
    kTemp,       // the arena: every temporary at a constant offset
  };
  Kind kind = Kind::kTemp;
  int64_t size = 0;
  /// kParameter: which parameter and which leaf of it.
  int64_t parameter_number = -1;
  ShapeIndex parameter_index;
  /// kConstant: the constant instruction.
  const HloInstruction* constant = nullptr;
  /// kOutput (and kParameter leaves that are also results): the leaves of
  /// the entry result this allocation holds.
  std::vector<ShapeIndex> output_indices;
};

struct BufferAssignmentOptions {
  /// Offsets in the arena are multiples of this (64 on the CPU, 256 on the
  /// GPU) — of less for buffers smaller than it: their size rounded up to
  /// a power of two, at most 16. Every allocation's base is assumed
  /// aligned as much.
  int64_t alignment = 64;
};

class BufferAssignment {
 public:
  /// Assigns `module` (after InsertCopies). Fails with a message naming the
  /// instruction if a must-alias set would interfere (copies missing) or an
  /// opcode's aliasing is unknown.
  static absl::StatusOr<BufferAssignment> Build(
      const HloModule& module, const BufferAssignmentOptions& options = {});

  const std::vector<Allocation>& allocations() const { return allocations_; }
  /// Index of the arena in allocations(), -1 when nothing is temporary.
  int temp_allocation() const { return temp_allocation_; }
  /// Arena size: the peak temporary bytes of this assignment.
  int64_t temp_size() const;

  /// The slice of the array at `index` of `instruction`'s result, for every
  /// instruction of a sequential computation and every array leaf of its
  /// shape. Zero-element arrays and tokens get a zero-size slice. NotFound
  /// for instructions of applied computations and for tuple-shaped indices.
  absl::StatusOr<Slice> GetSlice(const HloInstruction* instruction,
                                 const ShapeIndex& index = {}) const;

  /// The order in which the instructions of a sequential computation run
  /// (every instruction exactly once, operands and control predecessors
  /// first). Empty for applied computations.
  const std::vector<const HloInstruction*>& Schedule(
      const HloComputation* computation) const;

  /// True for the entry and every computation called by while, conditional
  /// or call from a sequential computation.
  bool IsSequential(const HloComputation* computation) const;

  /// What `hlo-opt --stage=buffer-assignment` prints: the allocations, each
  /// with its kind, size and the values it holds (instruction, index,
  /// offset, size, live range), and the peak temporary bytes.
  std::string ToString() const;

  /// One value of the module: the array one instruction of a sequential
  /// computation defines at one leaf, where it lives and when.
  struct ValueInfo {
    const HloInstruction* instruction = nullptr;
    ShapeIndex index;
    Slice slice;
    /// Positions on the module's flattened timeline, both ends included.
    int64_t start = 0;
    int64_t end = 0;
    /// Values with the same buffer share their bytes by design (must- or
    /// may-alias); values of different buffers never overlap in bytes
    /// while both are live.
    int buffer = -1;
    /// While results, loop parameters, conditional and call results: they
    /// name their set's buffer and write nothing.
    bool is_phi = false;
  };
  /// Every value, in definition order (for reports and tests).
  const std::vector<ValueInfo>& values() const { return values_; }
  /// The most temporary bytes live at one position: no packing of this
  /// schedule can make the arena smaller (alignment aside).
  int64_t peak_live_temp_bytes() const { return peak_live_temp_bytes_; }

 private:
  BufferAssignment() = default;
  friend class BufferAssignmentBuilder;
  // Values of different buffers live at the same time share no byte.
  absl::Status VerifyNoOverlap() const;

  const HloModule* module_ = nullptr;
  std::vector<Allocation> allocations_;
  int temp_allocation_ = -1;
  absl::flat_hash_map<const HloComputation*,
                      std::vector<const HloInstruction*>>
      schedules_;
  absl::flat_hash_map<std::pair<const HloInstruction*, ShapeIndex>, Slice>
      slices_;
  std::vector<ValueInfo> values_;
  int64_t peak_live_temp_bytes_ = 0;
};

/// The rewrite buffer assignment needs first: a `copy` wherever the members
/// of a must-alias set (while, conditional, call) would otherwise
/// interfere — a loop-state leaf whose new value is computed while the old
/// one is still needed, a root leaf that is a constant, an entry parameter or
/// appears twice, an init that stays live after the loop — and nowhere
/// else. Returns whether anything changed.
absl::StatusOr<bool> InsertCopies(HloModule& module);

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_BUFFER_ASSIGNMENT_H_
