#ifndef XLITE_HLO_IR_INSTRUCTION_H_
#define XLITE_HLO_IR_INSTRUCTION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "hlo/ir/attributes.h"
#include "hlo/ir/literal.h"
#include "hlo/ir/opcode.h"
#include "hlo/ir/shape.h"
#include "hlo/ir/sharding.h"

namespace xlite {

class HloComputation;

/// Where an instruction was written (1-based; 0 = not from text).
struct SourceLocation {
  int32_t line = 0;
  int32_t column = 0;
};

/// A heap-allocated T with value semantics: copies copy the T, == compares
/// values, and reading an empty box gives a default T. Keeps rarely used
/// attribute groups from costing memory on every instruction.
template <typename T>
class Boxed {
 public:
  Boxed() = default;
  Boxed(const Boxed& other)
      : value_(other.value_ ? std::make_unique<T>(*other.value_) : nullptr) {}
  Boxed& operator=(const Boxed& other) {
    if (this != &other) {
      value_ = other.value_ ? std::make_unique<T>(*other.value_) : nullptr;
    }
    return *this;
  }
  Boxed(Boxed&&) = default;
  Boxed& operator=(Boxed&&) = default;

  const T& operator*() const { return value_ ? *value_ : Default(); }
  const T* operator->() const { return &**this; }
  /// Writing through a non-const box allocates it.
  T& operator*() {
    if (!value_) value_ = std::make_unique<T>();
    return *value_;
  }
  T* operator->() { return &**this; }
  bool operator==(const Boxed& other) const { return **this == *other; }

 private:
  static const T& Default() {
    static const T* const kDefault = new T();
    return *kDefault;
  }
  std::unique_ptr<T> value_;
};

/// A std::optional<T> kept on the heap (same interface subset).
template <typename T>
class OptionalBox {
 public:
  OptionalBox() = default;
  OptionalBox(const OptionalBox& other)
      : value_(other.value_ ? std::make_unique<T>(*other.value_) : nullptr) {}
  OptionalBox& operator=(const OptionalBox& other) {
    if (this != &other) {
      value_ = other.value_ ? std::make_unique<T>(*other.value_) : nullptr;
    }
    return *this;
  }
  OptionalBox(OptionalBox&&) = default;
  OptionalBox& operator=(OptionalBox&&) = default;
  OptionalBox& operator=(T value) {
    value_ = std::make_unique<T>(std::move(value));
    return *this;
  }
  bool has_value() const { return value_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  const T& operator*() const { return *value_; }
  T& operator*() { return *value_; }
  const T* operator->() const { return value_.get(); }
  T* operator->() { return value_.get(); }
  T value_or(T fallback) const { return value_ ? *value_ : fallback; }
  void reset() { value_.reset(); }
  bool operator==(const OptionalBox& other) const {
    if (has_value() != other.has_value()) return false;
    return !has_value() || *value_ == *other.value_;
  }

 private:
  std::unique_ptr<T> value_;
};

/// convolution (and convolution-like custom calls).
struct ConvolutionAttributes {
  std::optional<ConvolutionDimensionNumbers> dnums;
  int64_t feature_group_count = 1;
  int64_t batch_group_count = 1;
  std::string kind;  // conv_kind=, kept verbatim
  PaddingType padding_type = PaddingType::kInvalid;
  bool operator==(const ConvolutionAttributes&) const = default;
};

/// dot, ragged-dot, scaled-dot.
struct DotAttributes {
  DotDimensionNumbers dnums;
  std::vector<int64_t> lhs_ragged_dims;
  std::vector<int64_t> rhs_group_dims;
  std::string algorithm;  // e.g. "dot_bf16_bf16_f32"
  bool operator==(const DotAttributes&) const = default;
};

/// gather and scatter.
struct GatherScatterAttributes {
  GatherDimensionNumbers gather;
  std::vector<int64_t> slice_sizes;  // gather slice_sizes=
  ScatterDimensionNumbers scatter;
  bool indices_are_sorted = false;
  bool unique_indices = false;
  bool operator==(const GatherScatterAttributes&) const = default;
};

/// Collectives (channel_id is kept outside: send/recv have it too).
struct CollectiveAttributes {
  ReplicaGroups replica_groups;
  bool use_global_device_ids = false;
  bool constrain_layout = false;
  std::vector<std::pair<int64_t, int64_t>> source_target_pairs;
  std::vector<std::vector<int64_t>> permute_slice_sizes;
  std::string mode;  // all-reduce `mode=`, kept verbatim
  bool operator==(const CollectiveAttributes&) const = default;
};

struct CustomCallAttributes {
  std::string target;
  CustomCallApiVersion api_version = CustomCallApiVersion::kOriginal;
  bool has_side_effect = false;
  std::optional<std::vector<Shape>> operand_layout_constraints;
  CustomCallSchedule schedule = CustomCallSchedule::kNone;
  bool operator==(const CustomCallAttributes&) const = default;
};

/// infeed / outfeed.
struct FeedAttributes {
  std::string infeed_config;
  std::string outfeed_config;
  std::optional<Shape> outfeed_shape;
  bool operator==(const FeedAttributes&) const = default;
};

/// domain: kind plus entry/exit shardings.
struct DomainAttributes {
  std::string kind;
  std::optional<HloSharding> entry;
  std::optional<HloSharding> exit;
  bool operator==(const DomainAttributes&) const = default;
};

/// Opcode-specific attributes. An instruction allocates this only when it
/// has one, and the larger groups only when used; the defaults are XLA's, so
/// an attribute that holds its default is not printed.
struct HloAttributes {
  // constant; custom-call `literal=`.
  OptionalBox<Literal> literal;
  // slice
  std::vector<SliceDimension> slice;
  // dynamic-slice
  std::vector<int64_t> dynamic_slice_sizes;
  // pad
  PaddingConfig padding;
  // convolution, reduce-window, select-and-scatter, custom-call
  OptionalBox<Window> window;
  Boxed<ConvolutionAttributes> conv;
  Boxed<DotAttributes> dot;
  // dot, convolution, custom-call
  std::vector<Precision> operand_precision;
  Boxed<GatherScatterAttributes> gather_scatter;
  Boxed<CollectiveAttributes> collective;
  Boxed<CustomCallAttributes> custom_call;
  Boxed<FeedAttributes> feed;
  Boxed<DomainAttributes> domain;
  // fusion, custom-call, async-start
  std::vector<OutputOperandAlias> output_to_operand_aliasing;
  // fft
  std::vector<int64_t> fft_length;
  // collectives, send/recv
  std::optional<int64_t> channel_id;
  // copy-start
  std::optional<int64_t> cross_program_prefetch_index;
  // async-start
  Boxed<std::string> async_execution_thread_box;
  // parameter
  OptionalBox<std::vector<bool>> parameter_replication;
  // rng-get-and-update-state, reduce-precision, batch-norm, topk, scan
  int64_t delta = 0;
  int64_t exponent_bits = 0;
  int64_t mantissa_bits = 0;
  int64_t feature_index = 0;
  int64_t k = 0;
  int64_t num_carries = 0;
  float epsilon = 0;
  ComparisonDirection direction = ComparisonDirection::kEq;
  ComparisonType comparison_type = ComparisonType::kFloat;
  FftType fft_type = FftType::kFft;
  RandomDistribution distribution = RandomDistribution::kUniform;
  RandomAlgorithm rng_algorithm = RandomAlgorithm::kDefault;
  TriangularSolveTranspose transpose_a = TriangularSolveTranspose::kInvalid;
  FusionKind fusion_kind = FusionKind::kLoop;
  bool left_side = false;      // triangular-solve
  bool lower = false;          // triangular-solve, cholesky
  bool unit_diagonal = false;  // triangular-solve
  bool is_stable = false;      // sort
  bool largest = true;         // topk
  bool is_composite = false;   // call
  bool is_host_transfer = false;
  bool is_reverse = false;      // scan
  bool is_associative = false;  // scan

  /// async-start's execution thread ("main" unless set).
  const std::string& async_execution_thread() const {
    static const std::string* const kMain = new std::string("main");
    return async_execution_thread_box->empty() ? *kMain
                                               : *async_execution_thread_box;
  }
  void set_async_execution_thread(std::string thread) {
    *async_execution_thread_box = thread == "main" ? "" : std::move(thread);
  }

  bool operator==(const HloAttributes&) const = default;
};

/// Attributes XLA prints on any instruction and xlite keeps without
/// interpreting (printed back verbatim): `statistics=`, `origin=`,
/// `result_accuracy=`.
struct KeptAttribute {
  std::string name;
  std::string value;  // raw text
  bool operator==(const KeptAttribute&) const = default;
};

/// One HLO instruction: an opcode, a result shape, operands (other
/// instructions of the same computation), called computations and
/// attributes. Owned by its HloComputation; users are tracked both ways so
/// passes can rewrite the graph.
class HloInstruction {
 public:
  /// A new instruction not yet in any computation; it is registered as a
  /// user of its operands at once (and unregistered when destroyed).
  static std::unique_ptr<HloInstruction> Create(
      HloOpcode opcode, const Shape& shape,
      absl::Span<HloInstruction* const> operands = {});

  HloInstruction(const HloInstruction&) = delete;
  HloInstruction& operator=(const HloInstruction&) = delete;
  ~HloInstruction();

  HloOpcode opcode() const { return opcode_; }
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }

  const Shape& shape() const { return shape_; }
  Shape* mutable_shape() { return &shape_; }

  int64_t operand_count() const {
    return static_cast<int64_t>(operands_.size());
  }
  const std::vector<HloInstruction*>& operands() const { return operands_; }
  HloInstruction* mutable_operand(int64_t i) const { return operands_[i]; }
  const HloInstruction* operand(int64_t i) const { return operands_[i]; }

  /// Distinct users, in the order they started using this instruction.
  const std::vector<HloInstruction*>& users() const { return users_; }
  int64_t user_count() const { return static_cast<int64_t>(users_.size()); }
  bool IsUserOf(const HloInstruction* operand) const;

  HloComputation* parent() const { return parent_; }
  int64_t unique_id() const { return unique_id_; }
  /// Presets the id (before the instruction joins a module, e.g. ids read
  /// from a proto); the module keeps it and never hands it out again.
  void set_unique_id(int64_t id) { unique_id_ = id; }
  SourceLocation location() const { return location_; }
  void set_location(SourceLocation loc) { location_ = loc; }
  /// True if this is the root of its computation.
  bool IsRoot() const;

  // ----- graph mutation (keeps use/def lists consistent)
  /// Appends an operand (and registers this as its user).
  void AppendOperand(HloInstruction* operand);
  /// Replaces operand `i`; shapes must be compatible (checked).
  absl::Status ReplaceOperandWith(int64_t i, HloInstruction* new_operand);
  /// The same without the shape check, for rewrites that change shapes on
  /// both sides of an edge (loop state); the caller keeps the module valid.
  absl::Status ReplaceOperandWithDifferentShape(int64_t i,
                                                HloInstruction* new_operand);
  /// Replaces every use of this instruction by `new_producer` (also as root
  /// of the parent computation). Shapes must be compatible.
  absl::Status ReplaceAllUsesWith(HloInstruction* new_producer);
  /// Replaces uses in `user` only.
  absl::Status ReplaceUseWith(HloInstruction* user,
                              HloInstruction* new_producer);
  /// Removes all operands (used before deleting an instruction).
  void DetachOperands();

  // ----- control dependencies
  const std::vector<HloInstruction*>& control_predecessors() const {
    return control_->predecessors;
  }
  const std::vector<HloInstruction*>& control_successors() const {
    return control_->successors;
  }
  absl::Status AddControlDependencyTo(HloInstruction* successor);
  absl::Status RemoveControlDependencyTo(HloInstruction* successor);
  void DropAllControlDeps();

  // ----- called computations
  const std::vector<HloComputation*>& called_computations() const {
    return called_computations_;
  }
  void AppendCalledComputation(HloComputation* c) {
    called_computations_.push_back(c);
  }
  void set_called_computation(int64_t i, HloComputation* c) {
    called_computations_[i] = c;
  }
  void clear_called_computations() { called_computations_.clear(); }
  /// Sets the number of callee slots (new ones are null until filled).
  void ResizeCalledComputations(int64_t n) {
    called_computations_.resize(n, nullptr);
  }
  /// Single callee of call/map/reduce/reduce-window/sort/scatter/all-reduce/
  /// custom-call(to_apply); nullptr otherwise.
  HloComputation* to_apply() const;
  /// While callees are {body, condition}, in XLA's order.
  HloComputation* while_body() const { return called_computations_[0]; }
  HloComputation* while_condition() const { return called_computations_[1]; }
  HloComputation* fused_computation() const { return called_computations_[0]; }
  HloComputation* async_wrapped_computation() const {
    return called_computations_.empty() ? nullptr : called_computations_[0];
  }

  // ----- common attributes
  /// parameter number, tuple index, iota dimension or reshape
  /// inferred_dimension, depending on the opcode.
  int64_t parameter_number() const { return index_; }
  int64_t tuple_index() const { return index_; }
  int64_t iota_dimension() const { return index_; }
  int64_t inferred_dimension() const { return index_; }
  void set_index(int64_t index) { index_ = index; }
  int64_t index() const { return index_; }
  /// dimensions= of broadcast/transpose/reverse/reduce/concatenate/sort/map/
  /// all-gather/all-to-all/reduce-scatter/get-dimension-size/scan ...
  const std::vector<int64_t>& dimensions() const { return dimensions_; }
  int64_t dimensions(int64_t i) const { return dimensions_[i]; }
  std::vector<int64_t>* mutable_dimensions() { return &dimensions_; }
  /// Whether `dimensions=` was written/should be printed for this opcode.
  bool has_dimensions() const { return has_dimensions_; }
  void set_has_dimensions(bool has) { has_dimensions_ = has; }

  const HloAttributes& attrs() const;
  HloAttributes& mutable_attrs();
  bool has_attrs() const { return attrs_ != nullptr; }

  const OpMetadata& metadata() const;
  void set_metadata(const OpMetadata& metadata);
  bool has_metadata() const { return metadata_ != nullptr; }

  const std::string& backend_config() const { return backend_config_; }
  void set_backend_config(std::string config) {
    backend_config_ = std::move(config);
  }

  bool has_sharding() const { return sharding_ != nullptr; }
  const HloSharding& sharding() const { return *sharding_; }
  void set_sharding(const HloSharding& sharding);
  void clear_sharding() { sharding_.reset(); }

  const FrontendAttributes& frontend_attributes() const;
  void set_frontend_attributes(const FrontendAttributes& attrs);
  bool has_frontend_attributes() const {
    return frontend_attributes_ != nullptr;
  }

  const std::vector<KeptAttribute>& kept_attributes() const;
  void add_kept_attribute(std::string name, std::string value);

  /// For async ops written as `<op>-start`/`-update`/`-done`: the wrapped
  /// opcode, so the printer writes the same sugared form back.
  std::optional<HloOpcode> async_sugar() const { return async_sugar_; }
  void set_async_sugar(std::optional<HloOpcode> op) { async_sugar_ = op; }

  /// Instructions with effects beyond their result (never removed as dead,
  /// never CSE'd): send/recv, infeed/outfeed, rng, side-effecting custom
  /// calls, collectives with channel ids, after-all/add-dependency tokens...
  bool HasSideEffect() const;

  /// Deep copy of every attribute but operands, users, parent and id; the
  /// caller supplies the operands and called computations of the clone.
  std::unique_ptr<HloInstruction> CloneWithNewOperands(
      const Shape& shape, absl::Span<HloInstruction* const> operands) const;

  /// True if opcode, shape, attributes and called computations are equal
  /// (operands compared by the caller). Names, ids and metadata are ignored
  /// unless `compare_metadata`.
  bool IdenticalIgnoringOperands(const HloInstruction& other,
                                 bool compare_metadata = false) const;

 private:
  friend class HloComputation;
  friend class HloModule;
  HloInstruction(HloOpcode opcode, const Shape& shape);
  void RemoveUser(HloInstruction* user);
  void AddUser(HloInstruction* user);

  HloOpcode opcode_;
  bool has_dimensions_ = false;
  std::optional<HloOpcode> async_sugar_;
  SourceLocation location_;
  int64_t unique_id_ = -1;
  int64_t index_ = 0;
  std::string name_;
  Shape shape_;
  std::vector<HloInstruction*> operands_;
  std::vector<HloInstruction*> users_;
  // Position of each user in users_, built once an instruction has many
  // users (a constant shared by thousands), so adding and removing a user
  // stays O(1).
  std::unique_ptr<absl::flat_hash_map<const HloInstruction*, int64_t>>
      user_index_;
  std::vector<HloComputation*> called_computations_;
  struct ControlDependencies {
    std::vector<HloInstruction*> predecessors;
    std::vector<HloInstruction*> successors;
    bool operator==(const ControlDependencies&) const = default;
  };
  Boxed<ControlDependencies> control_;
  std::vector<int64_t> dimensions_;
  HloComputation* parent_ = nullptr;
  int64_t index_in_parent_ = -1;
  std::string backend_config_;
  std::unique_ptr<HloAttributes> attrs_;
  std::unique_ptr<OpMetadata> metadata_;
  std::unique_ptr<HloSharding> sharding_;
  std::unique_ptr<FrontendAttributes> frontend_attributes_;
  std::unique_ptr<std::vector<KeptAttribute>> kept_attributes_;
};

}  // namespace xlite

#endif  // XLITE_HLO_IR_INSTRUCTION_H_
