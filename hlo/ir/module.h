#ifndef XLITE_HLO_IR_MODULE_H_
#define XLITE_HLO_IR_MODULE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/name_uniquer.h"

namespace xlite {

/// One entry of `input_output_alias={ {0}: (0, {}, may-alias) }`.
struct InputOutputAlias {
  ShapeIndex output_index;
  int64_t parameter_number = 0;
  ShapeIndex parameter_index;
  bool must_alias = false;
  bool operator==(const InputOutputAlias&) const = default;
};

/// One entry of `buffer_donor={ (0, {}) }`.
struct BufferDonor {
  int64_t parameter_number = 0;
  ShapeIndex parameter_index;
  bool operator==(const BufferDonor&) const = default;
};

/// The module's table of source locations that OpMetadata.stack_frame_id
/// points into (XLA's StackFrameIndexProto), printed after the header as
/// FileNames / FunctionNames / FileLocations / StackFrames. Ids are 1-based
/// as printed; a frame's parent_frame_id is printed (and kept here) one
/// above the proto's value, so 1 means "no parent" (XLA's convention).
struct StackFrameIndex {
  struct FileLocation {
    int64_t file_name_id = 0;
    int64_t function_name_id = 0;
    int64_t line = 0;
    int64_t end_line = 0;
    int64_t column = 0;
    int64_t end_column = 0;
    bool operator==(const FileLocation&) const = default;
  };
  struct StackFrame {
    int64_t file_location_id = 0;
    int64_t parent_frame_id = 0;
    bool operator==(const StackFrame&) const = default;
  };
  std::vector<std::string> file_names;
  std::vector<std::string> function_names;
  std::vector<FileLocation> file_locations;
  std::vector<StackFrame> stack_frames;
  bool empty() const {
    return file_names.empty() && function_names.empty() &&
           file_locations.empty() && stack_frames.empty();
  }
  bool operator==(const StackFrameIndex&) const = default;
};

/// Module-level settings printed in the `HloModule` header.
/// The most devices (replica_count x num_partitions) a module may name. A
/// proto's device assignment lists one id per device, so an unchecked claim
/// of 2^31 x 2^31 devices would make the writer allocate without bound.
inline constexpr int64_t kMaxModuleDevices = int64_t{1} << 20;

struct HloModuleConfig {
  bool is_scheduled = false;
  std::vector<InputOutputAlias> input_output_alias;
  std::vector<BufferDonor> buffer_donor;
  bool alias_passthrough_params = false;
  /// entry_computation_layout: parameter shapes and result shape with
  /// layouts. Set from the header or derived from the entry computation.
  std::optional<std::vector<Shape>> entry_parameter_layouts;
  std::optional<Shape> entry_result_layout;
  std::vector<bool> allow_spmd_sharding_propagation_to_parameters;
  std::vector<bool> allow_spmd_sharding_propagation_to_output;
  int64_t replica_count = 1;
  int64_t num_partitions = 1;
  FrontendAttributes frontend_attributes;
  /// Header attributes kept verbatim (origin_recovery_table=...).
  std::vector<KeptAttribute> kept_attributes;
  StackFrameIndex stack_frame_index;
  bool operator==(const HloModuleConfig&) const = default;
};

/// An HLO module: computations (callees before callers), one of which is
/// the entry, and the module configuration.
class HloModule {
 public:
  explicit HloModule(std::string name);
  ~HloModule();
  HloModule(const HloModule&) = delete;
  HloModule& operator=(const HloModule&) = delete;

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }

  HloModuleConfig& config() { return config_; }
  const HloModuleConfig& config() const { return config_; }

  /// Adds a computation (taking ownership); ids are assigned here.
  HloComputation* AddComputation(std::unique_ptr<HloComputation> computation);
  HloComputation* AddEntryComputation(std::unique_ptr<HloComputation> c);
  /// Removes a computation no instruction calls.
  absl::Status RemoveComputation(HloComputation* computation);

  HloComputation* entry_computation() const { return entry_; }
  void set_entry_computation(HloComputation* c) { entry_ = c; }

  /// Computations in module order.
  std::vector<HloComputation*> computations() const;
  int64_t computation_count() const {
    return static_cast<int64_t>(computations_.size());
  }
  HloComputation* GetComputationWithName(absl::string_view name) const;

  /// Callees before callers, starting from every computation in order.
  std::vector<HloComputation*> MakeComputationPostOrder() const;

  /// Total number of instructions in all computations.
  int64_t instruction_count() const;

  /// Next unique id for an instruction of this module.
  int64_t NextInstructionId() { return next_instruction_id_++; }
  /// Records an id given from outside so it is never handed out again.
  void NoteInstructionId(int64_t id) {
    if (id >= next_instruction_id_) next_instruction_id_ = id + 1;
  }

  /// Renames computations and instructions as XLA's parser does when it
  /// builds a module: in module order, every computation name through one
  /// NameUniquer and every instruction name (module-wide) through another,
  /// so duplicates across computations get XLA's ".N" suffixes. Already
  /// unique, sanitized names without leading-zero suffixes stay as they are.
  void UniquifyNamesLikeXla();
  /// Whether two instructions (in any computations) share a name.
  bool HasDuplicateInstructionNames() const;
  /// A fresh instruction name from `prefix` ("add" -> "add.3"); valid after
  /// UniquifyNamesLikeXla (which the parser and proto reader call).
  std::string NewInstructionName(absl::string_view prefix) {
    return instruction_names_.GetUniqueName(prefix);
  }
  std::string NewComputationName(absl::string_view prefix) {
    return computation_names_.GetUniqueName(prefix);
  }

  /// Marks async ops the way XLA's printer sugars them: an async-start
  /// whose wrapped computation is only parameters (in operand order) and
  /// one root instruction, and which nothing else calls, prints (with its
  /// updates and done) as `<op>-start/-update/-done` and the wrapped
  /// computation is not printed. Other async ops lose their sugar.
  void SugarAsyncOpsLikeXla();

  /// Name of the file this module was read from ("" if none): errors found
  /// later (verifier) are reported at FILE:LINE:COL.
  const std::string& source_name() const { return source_name_; }
  void set_source_name(std::string name) { source_name_ = std::move(name); }

  /// The entry computation's (parameter shapes, result shape) with layouts:
  /// the configured entry_computation_layout when set, else derived.
  std::vector<Shape> EntryParameterLayouts() const;
  Shape EntryResultLayout() const;

  /// A deep copy (same names, fresh ids).
  std::unique_ptr<HloModule> Clone() const;

 private:
  std::string name_;
  HloModuleConfig config_;
  std::vector<std::unique_ptr<HloComputation>> computations_;
  HloComputation* entry_ = nullptr;
  int64_t next_instruction_id_ = 0;
  int64_t next_computation_id_ = 0;
  std::string source_name_;
  NameUniquer instruction_names_;
  NameUniquer computation_names_;
};

}  // namespace xlite

#endif  // XLITE_HLO_IR_MODULE_H_
