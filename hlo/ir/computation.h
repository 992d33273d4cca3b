#ifndef XLITE_HLO_IR_COMPUTATION_H_
#define XLITE_HLO_IR_COMPUTATION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/ir/instruction.h"

namespace xlite {

class HloModule;

/// A computation: a DAG of instructions with numbered parameters and one
/// root. Owns its instructions. Instruction order is insertion order (the
/// schedule, for scheduled modules); removal leaves no gaps visible.
class HloComputation {
 public:
  explicit HloComputation(std::string name);
  ~HloComputation();
  HloComputation(const HloComputation&) = delete;
  HloComputation& operator=(const HloComputation&) = delete;

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  HloModule* parent() const { return parent_; }
  int64_t unique_id() const { return unique_id_; }
  /// Presets the id before AddComputation (which then keeps it).
  void set_unique_id(int64_t id) { unique_id_ = id; }

  /// Adds an instruction (taking ownership) and returns it. Parameters are
  /// indexed by their parameter number.
  HloInstruction* AddInstruction(std::unique_ptr<HloInstruction> instruction);
  /// Removes an instruction that has no users and is not the root.
  absl::Status RemoveInstruction(HloInstruction* instruction);
  /// Removes `instruction` and, transitively, operands left without users
  /// (parameters and side-effecting instructions are kept).
  /// Removes an unused parameter; later parameters are renumbered.
  absl::Status RemoveParameter(HloInstruction* parameter);
  absl::Status RemoveInstructionAndUnusedOperands(HloInstruction* instruction);

  /// Instructions in order (no removed ones).
  std::vector<HloInstruction*> instructions() const;
  int64_t instruction_count() const { return live_count_; }

  HloInstruction* root_instruction() const { return root_; }
  void set_root_instruction(HloInstruction* root) { root_ = root; }

  int64_t num_parameters() const {
    return static_cast<int64_t>(parameters_.size());
  }
  HloInstruction* parameter_instruction(int64_t i) const {
    return parameters_[i];
  }
  const std::vector<HloInstruction*>& parameter_instructions() const {
    return parameters_;
  }

  const std::string& execution_thread() const { return execution_thread_; }
  void set_execution_thread(std::string t) { execution_thread_ = std::move(t); }

  /// True for computations generated for `<op>-start` syntax sugar; the
  /// printer folds them back into the async instruction.
  bool is_sugared_async_wrapper() const { return sugared_async_wrapper_; }
  void set_sugared_async_wrapper(bool v) { sugared_async_wrapper_ = v; }

  /// Definitions before uses (operands and control predecessors first),
  /// visiting instructions in order; unreachable ones are included.
  std::vector<HloInstruction*> MakeInstructionPostOrder() const;

  /// Reorders the instruction sequence (the schedule of a scheduled module)
  /// so every instruction follows its operands and control predecessors,
  /// moving as little as possible: instructions already in order keep their
  /// places, and a new one lands just before its first user.
  void Resequence();

  /// Finds an instruction by name (linear scan); nullptr if absent.
  HloInstruction* GetInstructionWithName(absl::string_view name) const;

  /// (param shapes..) -> root shape.
  std::vector<Shape> ParameterShapes() const;

  /// Where the computation's name was written.
  SourceLocation location() const { return location_; }
  void set_location(SourceLocation loc) { location_ = loc; }

 private:
  friend class HloModule;
  // Operands (and control predecessors) before users; DFS roots are every
  // instruction in sequence order, the unused ones first if asked.
  std::vector<HloInstruction*> PostOrder(bool unused_first) const;
  std::string name_;
  HloModule* parent_ = nullptr;
  int64_t unique_id_ = -1;
  std::vector<std::unique_ptr<HloInstruction>> instructions_;  // may hold nulls
  int64_t live_count_ = 0;
  std::vector<HloInstruction*> parameters_;
  HloInstruction* root_ = nullptr;
  std::string execution_thread_ = "main";
  bool sugared_async_wrapper_ = false;
  SourceLocation location_;
};

}  // namespace xlite

#endif  // XLITE_HLO_IR_COMPUTATION_H_
