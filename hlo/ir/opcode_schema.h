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
// through sub-messages where it is nested)).
#define XLITE_HLO_ATTRIBUTE_LIST(X)                                            \
  X(kDimensions, "dimensions", kIntList, "dimensions")                         \
  X(kIndex, "index", kInt, "tuple_index")                                      \
  X(kIotaDimension, "iota_dimension", kInt, "dimensions")                      \
  X(kInferredDimension, "inferred_dimension", kInt, "dimensions")              \
  X(kParameterReplication, "parameter_replication", kBoolList,                 \
    "parameter_replication.replicated_at_leaf_buffers")                        \
  X(kSlice, "slice", kStructured, "slice_dimensions")                          \
  X(kDynamicSliceSizes, "dynamic_slice_sizes", kIntList,                       \
    "dynamic_slice_sizes")                                                     \
  X(kPadding, "padding", kStructured, "padding_config")                        \
  X(kDirection, "direction", kEnum, "comparison_direction")                    \
  X(kComparisonType, "type", kEnum, "comparison_type")                         \
  X(kWindow, "window", kStructured, "window")                                  \
  X(kDimLabels, "dim_labels", kStructured, "convolution_dimension_numbers")    \
  X(kFeatureGroupCount, "feature_group_count", kInt, "feature_group_count")    \
  X(kBatchGroupCount, "batch_group_count", kInt, "batch_group_count")          \
  X(kConvKind, "conv_kind", kRaw, "")                                          \
  X(kOperandPrecision, "operand_precision", kStructured,                       \
    "precision_config.operand_precision")                                      \
  X(kPaddingType, "padding_type", kEnum, "padding_type")                       \
  X(kLhsBatchDims, "lhs_batch_dims", kIntList,                                 \
    "dot_dimension_numbers.lhs_batch_dimensions")                              \
  X(kLhsContractingDims, "lhs_contracting_dims", kIntList,                     \
    "dot_dimension_numbers.lhs_contracting_dimensions")                        \
  X(kRhsBatchDims, "rhs_batch_dims", kIntList,                                 \
    "dot_dimension_numbers.rhs_batch_dimensions")                              \
  X(kRhsContractingDims, "rhs_contracting_dims", kIntList,                     \
    "dot_dimension_numbers.rhs_contracting_dimensions")                        \
  X(kLhsRaggedDims, "lhs_ragged_dims", kIntList,                               \
    "ragged_dot_dimension_numbers.lhs_ragged_dimensions")                      \
  X(kRhsGroupDims, "rhs_group_dims", kIntList,                                 \
    "ragged_dot_dimension_numbers.rhs_group_dimensions")                       \
  X(kDotAlgorithm, "algorithm", kEnum, "precision_config.algorithm")           \
  X(kOffsetDims, "offset_dims", kIntList,                                      \
    "gather_dimension_numbers.offset_dims")                                    \
  X(kCollapsedSliceDims, "collapsed_slice_dims", kIntList,                     \
    "gather_dimension_numbers.collapsed_slice_dims")                           \
  X(kStartIndexMap, "start_index_map", kIntList,                               \
    "gather_dimension_numbers.start_index_map")                                \
  X(kOperandBatchingDims, "operand_batching_dims", kIntList,                   \
    "gather_dimension_numbers.operand_batching_dims")                          \
  X(kStartIndicesBatchingDims, "start_indices_batching_dims", kIntList,        \
    "gather_dimension_numbers.start_indices_batching_dims")                    \
  X(kGatherIndexVectorDim, "index_vector_dim", kInt,                           \
    "gather_dimension_numbers.index_vector_dim")                               \
  X(kGatherSliceSizes, "slice_sizes", kIntList, "gather_slice_sizes")          \
  X(kIndicesAreSorted, "indices_are_sorted", kBool, "indices_are_sorted")      \
  X(kUpdateWindowDims, "update_window_dims", kIntList,                         \
    "scatter_dimension_numbers.update_window_dims")                            \
  X(kInsertedWindowDims, "inserted_window_dims", kIntList,                     \
    "scatter_dimension_numbers.inserted_window_dims")                          \
  X(kScatterDimsToOperandDims, "scatter_dims_to_operand_dims", kIntList,       \
    "scatter_dimension_numbers.scatter_dims_to_operand_dims")                  \
  X(kInputBatchingDims, "input_batching_dims", kIntList,                       \
    "scatter_dimension_numbers.input_batching_dims")                           \
  X(kScatterIndicesBatchingDims, "scatter_indices_batching_dims", kIntList,    \
    "scatter_dimension_numbers.scatter_indices_batching_dims")                 \
  X(kScatterIndexVectorDim, "index_vector_dim", kInt,                          \
    "scatter_dimension_numbers.index_vector_dim")                              \
  X(kUniqueIndices, "unique_indices", kBool, "unique_indices")                 \
  X(kFftType, "fft_type", kEnum, "fft_type")                                   \
  X(kFftLength, "fft_length", kIntList, "fft_length")                          \
  X(kDistribution, "distribution", kEnum, "distribution")                      \
  X(kRngAlgorithm, "algorithm", kEnum, "rng_algorithm")                        \
  X(kDelta, "delta", kInt, "delta")                                            \
  X(kExponentBits, "exponent_bits", kInt, "exponent_bits")                     \
  X(kMantissaBits, "mantissa_bits", kInt, "mantissa_bits")                     \
  X(kEpsilon, "epsilon", kFloat, "epsilon")                                    \
  X(kFeatureIndex, "feature_index", kInt, "feature_index")                     \
  X(kLeftSide, "left_side", kBool, "triangular_solve_options.left_side")       \
  X(kLower, "lower", kBool, "triangular_solve_options.lower")                  \
  X(kUnitDiagonal, "unit_diagonal", kBool,                                     \
    "triangular_solve_options.unit_diagonal")                                  \
  X(kTransposeA, "transpose_a", kEnum, "triangular_solve_options.transpose_a") \
  X(kCholeskyLower, "lower", kBool, "cholesky_options.lower")                  \
  X(kIsStable, "is_stable", kBool, "is_stable")                                \
  X(kK, "k", kInt, "k")                                                        \
  X(kLargest, "largest", kBool, "largest")                                     \
  X(kFusionKind, "kind", kEnum, "fusion_kind")                                 \
  X(kOutputToOperandAliasing, "output_to_operand_aliasing", kStructured,       \
    "output_operand_aliasing")                                                 \
  X(kIsComposite, "is_composite", kBool, "is_composite")                       \
  X(kChannelId, "channel_id", kInt, "channel_id")                              \
  X(kReplicaGroups, "replica_groups", kStructured, "collective_device_list")   \
  X(kConstrainLayout, "constrain_layout", kBool, "constrain_layout")           \
  X(kUseGlobalDeviceIds, "use_global_device_ids", kBool,                       \
    "use_global_device_ids")                                                   \
  X(kMode, "mode", kRaw, "")                                                   \
  X(kSourceTargetPairs, "source_target_pairs", kIntLists,                      \
    "source_target_pairs")                                                     \
  X(kPermuteSliceSizes, "slice_sizes", kIntLists, "dynamic_slice_sizes")       \
  X(kIsHostTransfer, "is_host_transfer", kBool, "is_host_transfer")            \
  X(kInfeedConfig, "infeed_config", kString, "infeed_config")                  \
  X(kOutfeedShape, "outfeed_shape", kShape, "outfeed_shape")                   \
  X(kOutfeedConfig, "outfeed_config", kString, "outfeed_config")               \
  X(kCustomCallTarget, "custom_call_target", kString, "custom_call_target")    \
  X(kOperandLayoutConstraints, "operand_layout_constraints", kShapeList,       \
    "operand_shapes_with_layout")                                              \
  X(kCustomCallHasSideEffect, "custom_call_has_side_effect", kBool,            \
    "custom_call_has_side_effect")                                             \
  X(kLiteral, "literal", kLiteral, "literal")                                  \
  X(kSchedule, "schedule", kEnum, "custom_call_schedule")                      \
  X(kApiVersion, "api_version", kEnum, "custom_call_api_version")              \
  X(kAsyncExecutionThread, "async_execution_thread", kString,                  \
    "async_execution_thread")                                                  \
  X(kCrossProgramPrefetchIndex, "cross_program_prefetch_index", kInt,          \
    "cross_program_prefetch_index")                                            \
  X(kNumCarries, "num_carries", kInt, "num_carries")                           \
  X(kIsReverse, "is_reverse", kBool, "is_reverse")                             \
  X(kIsAssociative, "is_associative", kBool, "is_associative")                 \
  X(kDomain, "domain", kStructured, "domain_entry_sharding")                   \
  X(kToApply, "to_apply", kComputation, "called_computation_ids")              \
  X(kCalls, "calls", kComputation, "called_computation_ids")                   \
  X(kCondition, "condition", kComputation, "called_computation_ids")           \
  X(kBody, "body", kComputation, "called_computation_ids")                     \
  X(kSelect, "select", kComputation, "called_computation_ids")                 \
  X(kScatterComputation, "scatter", kComputation, "called_computation_ids")    \
  X(kTrueComputation, "true_computation", kComputation,                        \
    "called_computation_ids")                                                  \
  X(kFalseComputation, "false_computation", kComputation,                      \
    "called_computation_ids")                                                  \
  X(kBranchComputations, "branch_computations", kComputationList,              \
    "called_computation_ids")                                                  \
  X(kCalledComputations, "called_computations", kComputationList,              \
    "called_computation_ids")

/// Every opcode-specific attribute. Two attributes may share a text name
/// (`algorithm` of dot and of rng-bit-generator, `index_vector_dim` of
/// gather and scatter) when they hold different things; an opcode's row
/// names at most one of them.
enum class AttributeId : uint8_t {
#define XLITE_DECLARE_ATTRIBUTE(id, text, kind, proto) id,
  XLITE_HLO_ATTRIBUTE_LIST(XLITE_DECLARE_ATTRIBUTE)
#undef XLITE_DECLARE_ATTRIBUTE
};

inline constexpr int kAttributeCount = 0
#define XLITE_COUNT_ATTRIBUTE(id, text, kind, proto) +1
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
  /// Operand names, comma separated ("operand, start_indices, updates");
  /// "..." ends a variadic list. Names errors and documents the operands.
  absl::string_view operands;
};

/// The row of `opcode`.
const OpcodeSchema& GetOpcodeSchema(HloOpcode opcode);

/// The attribute of `opcode`'s row written `name` in text, if any.
std::optional<OpcodeAttribute> FindOpcodeAttribute(HloOpcode opcode,
                                                   absl::string_view name);

/// True if the attribute names one or more called computations.
bool IsComputationAttribute(AttributeId id);

}  // namespace xlite

#endif  // XLITE_HLO_IR_OPCODE_SCHEMA_H_
