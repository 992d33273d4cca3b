#ifndef XLITE_HLO_IR_OPCODE_SCHEMA_H_
#define XLITE_HLO_IR_OPCODE_SCHEMA_H_

// The schema of every opcode: which attributes it takes (in XLA's print
// order, required or optional), which computations it calls, what its
// operands are called. The text parser's accepted and required attributes,
// the printer's attribute order and the proto reader's and writer's
// attribute fields all read this table; none of them lists opcodes again.
//
// An attribute is one row of XLITE_HLO_ATTRIBUTE_LIST: its text name, the
// kind of value it holds and the HloInstructionProto field it maps to. The
// text room (text/attribute_text.cc) and the proto room
// (proto/attribute_proto.cc) each hold one small function per attribute.

#include <cstdint>
#include <optional>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hlo/ir/opcode.h"

namespace xlite {

/// The kinds of attribute value, as written in text.
enum class AttributeValueKind {
  kInt,              // 3
  kBool,             // true
  kFloat,            // 0.001
  kIntList,          // {0,1}
  kIntLists,         // {{0,1},{2,3}}
  kBoolList,         // {true,false}
  kEnum,             // LT, kLoop, rng_three_fry, ...
  kString,           // "text" (quoted)
  kRaw,              // kept verbatim
  kStructured,       // window, dim_labels, padding, slice, replica groups, ...
  kShape,            // f32[2]{0}
  kShapeList,        // {f32[2]{0}, s32[]}
  kLiteral,          // (f32[] 1, s32[2] {1, 2})
  kComputation,      // %name
  kComputationList,  // {%a, %b}
};

// X(enum name, text name, value kind, HloInstructionProto field (a path
// through sub-messages where it is nested), XLA's default as printed text
// (nullptr: no default, printed whenever set; also for defaults that depend
// on the instruction, e.g. compare's type= on its operands' type)). The
// printer leaves out an optional attribute that holds its default, and
// writing the default explicitly changes nothing (schema_defaults_test).
#define XLITE_HLO_ATTRIBUTE_LIST(X)                                            \
  X(kDimensions, "dimensions", kIntList, "dimensions", nullptr)                \
  X(kIndex, "index", kInt, "tuple_index", nullptr)                             \
  X(kIotaDimension, "iota_dimension", kInt, "dimensions", nullptr)             \
  X(kInferredDimension, "inferred_dimension", kInt, "dimensions", "-1")        \
  X(kParameterReplication, "parameter_replication", kBoolList,                 \
    "parameter_replication.replicated_at_leaf_buffers", nullptr)               \
  X(kSlice, "slice", kStructured, "slice_dimensions", nullptr)                 \
  X(kDynamicSliceSizes, "dynamic_slice_sizes", kIntList,                       \
    "dynamic_slice_sizes", nullptr)                                            \
  X(kPadding, "padding", kStructured, "padding_config", nullptr)               \
  X(kDirection, "direction", kEnum, "comparison_direction", nullptr)           \
  X(kComparisonType, "type", kEnum, "comparison_type", nullptr)                \
  X(kWindow, "window", kStructured, "window", "{}")                            \
  X(kDimLabels, "dim_labels", kStructured, "convolution_dimension_numbers",    \
    nullptr)                                                                   \
  X(kFeatureGroupCount, "feature_group_count", kInt, "feature_group_count",    \
    "1")                                                                       \
  X(kBatchGroupCount, "batch_group_count", kInt, "batch_group_count", "1")     \
  X(kConvKind, "conv_kind", kRaw, "", nullptr)                                 \
  X(kOperandPrecision, "operand_precision", kStructured,                       \
    "precision_config.operand_precision", "{}")                                \
  X(kPaddingType, "padding_type", kEnum, "padding_type", "PADDING_INVALID")    \
  X(kLhsBatchDims, "lhs_batch_dims", kIntList,                                 \
    "dot_dimension_numbers.lhs_batch_dimensions", "{}")                        \
  X(kLhsContractingDims, "lhs_contracting_dims", kIntList,                     \
    "dot_dimension_numbers.lhs_contracting_dimensions", "{}")                  \
  X(kRhsBatchDims, "rhs_batch_dims", kIntList,                                 \
    "dot_dimension_numbers.rhs_batch_dimensions", "{}")                        \
  X(kRhsContractingDims, "rhs_contracting_dims", kIntList,                     \
    "dot_dimension_numbers.rhs_contracting_dimensions", "{}")                  \
  X(kLhsRaggedDims, "lhs_ragged_dims", kIntList,                               \
    "ragged_dot_dimension_numbers.lhs_ragged_dimensions", "{}")                \
  X(kRhsGroupDims, "rhs_group_dims", kIntList,                                 \
    "ragged_dot_dimension_numbers.rhs_group_dimensions", "{}")                 \
  X(kDotAlgorithm, "algorithm", kEnum, "precision_config.algorithm", nullptr)  \
  X(kOffsetDims, "offset_dims", kIntList,                                      \
    "gather_dimension_numbers.offset_dims", nullptr)                           \
  X(kCollapsedSliceDims, "collapsed_slice_dims", kIntList,                     \
    "gather_dimension_numbers.collapsed_slice_dims", nullptr)                  \
  X(kStartIndexMap, "start_index_map", kIntList,                               \
    "gather_dimension_numbers.start_index_map", nullptr)                       \
  X(kOperandBatchingDims, "operand_batching_dims", kIntList,                   \
    "gather_dimension_numbers.operand_batching_dims", "{}")                    \
  X(kStartIndicesBatchingDims, "start_indices_batching_dims", kIntList,        \
    "gather_dimension_numbers.start_indices_batching_dims", "{}")              \
  X(kGatherIndexVectorDim, "index_vector_dim", kInt,                           \
    "gather_dimension_numbers.index_vector_dim", nullptr)                      \
  X(kGatherSliceSizes, "slice_sizes", kIntList, "gather_slice_sizes", nullptr) \
  X(kIndicesAreSorted, "indices_are_sorted", kBool, "indices_are_sorted",      \
    "false")                                                                   \
  X(kUpdateWindowDims, "update_window_dims", kIntList,                         \
    "scatter_dimension_numbers.update_window_dims", nullptr)                   \
  X(kInsertedWindowDims, "inserted_window_dims", kIntList,                     \
    "scatter_dimension_numbers.inserted_window_dims", nullptr)                 \
  X(kScatterDimsToOperandDims, "scatter_dims_to_operand_dims", kIntList,       \
    "scatter_dimension_numbers.scatter_dims_to_operand_dims", nullptr)         \
  X(kInputBatchingDims, "input_batching_dims", kIntList,                       \
    "scatter_dimension_numbers.input_batching_dims", "{}")                     \
  X(kScatterIndicesBatchingDims, "scatter_indices_batching_dims", kIntList,    \
    "scatter_dimension_numbers.scatter_indices_batching_dims", "{}")           \
  X(kScatterIndexVectorDim, "index_vector_dim", kInt,                          \
    "scatter_dimension_numbers.index_vector_dim", nullptr)                     \
  X(kUniqueIndices, "unique_indices", kBool, "unique_indices", "false")        \
  X(kFftType, "fft_type", kEnum, "fft_type", nullptr)                          \
  X(kFftLength, "fft_length", kIntList, "fft_length", nullptr)                 \
  X(kDistribution, "distribution", kEnum, "distribution", nullptr)             \
  X(kRngAlgorithm, "algorithm", kEnum, "rng_algorithm", nullptr)               \
  X(kDelta, "delta", kInt, "delta", nullptr)                                   \
  X(kExponentBits, "exponent_bits", kInt, "exponent_bits", nullptr)            \
  X(kMantissaBits, "mantissa_bits", kInt, "mantissa_bits", nullptr)            \
  X(kEpsilon, "epsilon", kFloat, "epsilon", nullptr)                           \
  X(kFeatureIndex, "feature_index", kInt, "feature_index", nullptr)            \
  X(kLeftSide, "left_side", kBool, "triangular_solve_options.left_side",       \
    "false")                                                                   \
  X(kLower, "lower", kBool, "triangular_solve_options.lower", "false")         \
  X(kUnitDiagonal, "unit_diagonal", kBool,                                     \
    "triangular_solve_options.unit_diagonal", "false")                         \
  X(kTransposeA, "transpose_a", kEnum, "triangular_solve_options.transpose_a", \
    "TRANSPOSE_INVALID")                                                       \
  X(kCholeskyLower, "lower", kBool, "cholesky_options.lower", "false")         \
  X(kIsStable, "is_stable", kBool, "is_stable", "false")                       \
  X(kK, "k", kInt, "k", nullptr)                                               \
  X(kLargest, "largest", kBool, "largest", nullptr)                            \
  X(kFusionKind, "kind", kEnum, "fusion_kind", nullptr)                        \
  X(kOutputToOperandAliasing, "output_to_operand_aliasing", kStructured,       \
    "output_operand_aliasing", "{}")                                           \
  X(kIsComposite, "is_composite", kBool, "is_composite", "false")              \
  X(kChannelId, "channel_id", kInt, "channel_id", nullptr)                     \
  X(kReplicaGroups, "replica_groups", kStructured, "collective_device_list",   \
    nullptr)                                                                   \
  X(kConstrainLayout, "constrain_layout", kBool, "constrain_layout", "false")  \
  X(kUseGlobalDeviceIds, "use_global_device_ids", kBool,                       \
    "use_global_device_ids", "false")                                          \
  X(kMode, "mode", kRaw, "", nullptr)                                          \
  X(kSourceTargetPairs, "source_target_pairs", kIntLists,                      \
    "source_target_pairs", nullptr)                                            \
  X(kPermuteSliceSizes, "slice_sizes", kIntLists, "dynamic_slice_sizes", "{}") \
  X(kIsHostTransfer, "is_host_transfer", kBool, "is_host_transfer", "false")   \
  X(kInfeedConfig, "infeed_config", kString, "infeed_config", "\"\"")          \
  X(kOutfeedShape, "outfeed_shape", kShape, "outfeed_shape", nullptr)          \
  X(kOutfeedConfig, "outfeed_config", kString, "outfeed_config", "\"\"")       \
  X(kCustomCallTarget, "custom_call_target", kString, "custom_call_target",    \
    nullptr)                                                                   \
  X(kOperandLayoutConstraints, "operand_layout_constraints", kShapeList,       \
    "operand_shapes_with_layout", nullptr)                                     \
  X(kCustomCallHasSideEffect, "custom_call_has_side_effect", kBool,            \
    "custom_call_has_side_effect", "false")                                    \
  X(kLiteral, "literal", kLiteral, "literal", nullptr)                         \
  X(kSchedule, "schedule", kEnum, "custom_call_schedule", "SCHEDULE_NONE")     \
  X(kApiVersion, "api_version", kEnum, "custom_call_api_version",              \
    "API_VERSION_ORIGINAL")                                                    \
  X(kAsyncExecutionThread, "async_execution_thread", kString,                  \
    "async_execution_thread", "\"main\"")                                      \
  X(kCrossProgramPrefetchIndex, "cross_program_prefetch_index", kInt,          \
    "cross_program_prefetch_index", nullptr)                                   \
  X(kNumCarries, "num_carries", kInt, "num_carries", nullptr)                  \
  X(kIsReverse, "is_reverse", kBool, "is_reverse", "false")                    \
  X(kIsAssociative, "is_associative", kBool, "is_associative", nullptr)        \
  X(kDomain, "domain", kStructured, "domain_entry_sharding", nullptr)          \
  X(kToApply, "to_apply", kComputation, "called_computation_ids", nullptr)     \
  X(kCalls, "calls", kComputation, "called_computation_ids", nullptr)          \
  X(kCondition, "condition", kComputation, "called_computation_ids", nullptr)  \
  X(kBody, "body", kComputation, "called_computation_ids", nullptr)            \
  X(kSelect, "select", kComputation, "called_computation_ids", nullptr)        \
  X(kScatterComputation, "scatter", kComputation, "called_computation_ids",    \
    nullptr)                                                                   \
  X(kTrueComputation, "true_computation", kComputation,                        \
    "called_computation_ids", nullptr)                                         \
  X(kFalseComputation, "false_computation", kComputation,                      \
    "called_computation_ids", nullptr)                                         \
  X(kBranchComputations, "branch_computations", kComputationList,              \
    "called_computation_ids", nullptr)                                         \
  X(kCalledComputations, "called_computations", kComputationList,              \
    "called_computation_ids", nullptr)

/// Every opcode-specific attribute. Two attributes may share a text name
/// (`algorithm` of dot and of rng-bit-generator, `index_vector_dim` of
/// gather and scatter) when they hold different things; an opcode's row
/// names at most one of them.
enum class AttributeId : uint8_t {
#define XLITE_DECLARE_ATTRIBUTE(id, text, kind, proto, dflt) id,
  XLITE_HLO_ATTRIBUTE_LIST(XLITE_DECLARE_ATTRIBUTE)
#undef XLITE_DECLARE_ATTRIBUTE
};

inline constexpr int kAttributeCount = 0
#define XLITE_COUNT_ATTRIBUTE(id, text, kind, proto, dflt) +1
    XLITE_HLO_ATTRIBUTE_LIST(XLITE_COUNT_ATTRIBUTE)
#undef XLITE_COUNT_ATTRIBUTE
    ;

/// One attribute's description.
struct AttributeInfo {
  absl::string_view name;  // as written in text
  AttributeValueKind kind;
  /// The HloInstructionProto field, dotted through sub-messages; empty for
  /// attributes XLA keeps in text only (conv_kind, mode).
  absl::string_view proto_field;
  /// XLA's default value as the printer writes it; nullptr if it has none.
  const char* default_text;
};
const AttributeInfo& GetAttributeInfo(AttributeId id);

/// How an opcode uses one attribute.
enum class AttributeUse : uint8_t {
  kOptional,  // accepted; printed when it differs from XLA's default
  kRequired,  // must be written
  /// Accepted on input but never printed: another attribute of the row
  /// prints the same value (custom-call's `to_apply` is printed in
  /// `called_computations`; async-update/done repeat their start's).
  kInputOnly,
};

struct OpcodeAttribute {
  AttributeId id;
  AttributeUse use;
};

/// One opcode's row.
struct OpcodeSchema {
  HloOpcode opcode;
  /// Its attributes in XLA's print order; the attributes that name called
  /// computations are among them, where XLA prints them.
  absl::Span<const OpcodeAttribute> attributes;
  /// Operand names, comma separated: "name" is one operand, "name..." a
  /// group of one or more, "[name...]" a group of zero or more
  /// ("operand, update, [start_indices...]"). A variadic opcode's minimum
  /// operand count follows (HloOpcodeMinOperandCount).
  absl::string_view operands;
};

/// The row of `opcode`.
const OpcodeSchema& GetOpcodeSchema(HloOpcode opcode);

/// The attribute of `opcode`'s row written `name` in text, if any.
std::optional<OpcodeAttribute> FindOpcodeAttribute(HloOpcode opcode,
                                                   absl::string_view name);

/// The fewest operands an instruction of `opcode` takes: its arity when
/// fixed, else counted from its operand names.
int HloOpcodeMinOperandCount(HloOpcode opcode);

/// True if the attribute names one or more called computations.
bool IsComputationAttribute(AttributeId id);

}  // namespace xlite

#endif  // XLITE_HLO_IR_OPCODE_SCHEMA_H_
