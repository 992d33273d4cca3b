// One printer per opcode-specific attribute, in XLA's spelling. Which
// attributes an opcode prints, and in which order, is its schema row.

#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/float_types.h"
#include "hlo/ir/opcode_schema.h"
#include "hlo/text/attribute_text.h"

namespace xlite {
namespace text_internal {
namespace {

using A = AttributeId;
using H = const HloInstruction&;

// Prints attribute `name` of `hlo` (used as `use` by its opcode) into
// `out`, or nothing where it holds XLA's default.
using PrintFn = void (*)(H hlo, absl::string_view name, AttributeUse use,
                         AttributeList& out);

std::string FloatToText(float value) {
  return FloatBitsToString(PrimitiveType::kF32,
                           EncodeFromF32(PrimitiveType::kF32, value));
}

// XLA writes the strides of every dimension once any stride is not 1.
std::string SliceToString(const std::vector<SliceDimension>& slice) {
  const bool unit_strides =
      std::all_of(slice.begin(), slice.end(),
                  [](const SliceDimension& d) { return d.stride == 1; });
  return absl::StrCat(
      "{",
      absl::StrJoin(slice, ", ",
                    [unit_strides](std::string* out, const SliceDimension& d) {
                      if (unit_strides) {
                        absl::StrAppend(out, "[", d.start, ":", d.limit, "]");
                      } else {
                        absl::StrAppend(out, "[", d.start, ":", d.limit, ":",
                                        d.stride, "]");
                      }
                    }),
      "}");
}

std::string PairsToString(
    const std::vector<std::pair<int64_t, int64_t>>& pairs) {
  return absl::StrCat(
      "{",
      absl::StrJoin(pairs, ",",
                    [](std::string* out, const std::pair<int64_t, int64_t>& p) {
                      absl::StrAppend(out, "{", p.first, ",", p.second, "}");
                    }),
      "}");
}

std::string ListListToString(const std::vector<std::vector<int64_t>>& lists) {
  return absl::StrCat(
      "{",
      absl::StrJoin(lists, ",",
                    [](std::string* out, const std::vector<int64_t>& l) {
                      absl::StrAppend(out, BracedList(l));
                    }),
      "}");
}

std::string PrecisionList(const std::vector<Precision>& precisions) {
  return absl::StrCat("{",
                      absl::StrJoin(precisions, ",",
                                    [](std::string* o, Precision p) {
                                      absl::StrAppend(o, PrecisionString(p));
                                    }),
                      "}");
}

std::string ShapeList(const std::vector<Shape>& shapes) {
  return absl::StrCat("{",
                      absl::StrJoin(shapes, ", ",
                                    [](std::string* o, const Shape& s) {
                                      absl::StrAppend(o, s.ToString(true));
                                    }),
                      "}");
}

std::string BoolList(const std::vector<bool>& values) {
  return absl::StrCat("{",
                      absl::StrJoin(values, ",",
                                    [](std::string* o, bool b) {
                                      absl::StrAppend(o, b ? "true" : "false");
                                    }),
                      "}");
}

// "{%a, %b}".
std::string ComputationList(const std::vector<HloComputation*>& called) {
  return absl::StrCat(
      "{",
      absl::StrJoin(called, ", ",
                    [](std::string* o, const HloComputation* c) {
                      absl::StrAppend(o, ComputationName(c));
                    }),
      "}");
}

std::string DomainToString(const DomainAttributes& d) {
  return absl::StrCat("{kind=", Quoted(d.kind),
                      ", entry=", d.entry ? d.entry->ToString() : "{}",
                      ", exit=", d.exit ? d.exit->ToString() : "{}", "}");
}

// A conditional on a pred with two branches names them true_/false_
// computation; any other lists them.
bool HasPredBranches(H hlo) {
  return hlo.operand_count() > 0 &&
         hlo.operand(0)->shape().element_type() == PrimitiveType::kPred &&
         hlo.called_computations().size() == 2;
}

// The callees of an opcode whose row names none, or a to_apply slot that
// does not hold exactly one: `to_apply=` when there is one, else `calls=`.
void PrintDefaultCallees(H hlo, AttributeList& out) {
  const auto& called = hlo.called_computations();
  if (called.empty()) return;
  if (hlo.to_apply() != nullptr) {
    out.Add("to_apply", ComputationName(called[0]));
    return;
  }
  out.Add("calls", absl::StrJoin(called, ", ",
                                 [](std::string* o, const HloComputation* c) {
                                   absl::StrAppend(o, ComputationName(c));
                                 }));
}

// Printers that share a shape: a value always printed, or printed when it
// is set / not empty / true.
#define ALWAYS(expr)                                             \
  [](H h, absl::string_view n, AttributeUse, AttributeList& o) { \
    const HloAttributes& a = h.attrs();                          \
    (void)a;                                                     \
    o.Add(n, expr);                                              \
  }
#define WHEN(cond, expr)                                         \
  [](H h, absl::string_view n, AttributeUse, AttributeList& o) { \
    const HloAttributes& a = h.attrs();                          \
    (void)a;                                                     \
    if (cond) o.Add(n, expr);                                    \
  }
#define INTS_IF_ANY(field) WHEN(!(field).empty(), BracedList(field))
#define TRUE_IF_SET(field) WHEN(field, "true")
#define INT_IF_SET(field) WHEN((field).has_value(), absl::StrCat(*(field)))
#define CALLEE(index, cond)                                      \
  [](H h, absl::string_view n, AttributeUse, AttributeList& o) { \
    const auto& c = h.called_computations();                     \
    if (cond) o.Add(n, ComputationName(c[index]));               \
  }

std::array<PrintFn, kAttributeCount> MakePrinters() {
  std::array<PrintFn, kAttributeCount> p{};
  auto at = [&p](A id) -> PrintFn& { return p[static_cast<int>(id)]; };
  // Required dimensions print always; optional ones when written.
  at(A::kDimensions) = [](H h, absl::string_view n, AttributeUse use,
                          AttributeList& o) {
    if (h.has_dimensions() || use == AttributeUse::kRequired) {
      o.Add(n, BracedList(h.dimensions()));
    }
  };
  at(A::kIndex) = ALWAYS(absl::StrCat(h.tuple_index()));
  at(A::kIotaDimension) = ALWAYS(absl::StrCat(h.iota_dimension()));
  at(A::kInferredDimension) =
      WHEN(h.inferred_dimension() != -1, absl::StrCat(h.inferred_dimension()));
  at(A::kParameterReplication) = WHEN(a.parameter_replication.has_value(),
                                      BoolList(*a.parameter_replication));
  at(A::kSlice) = ALWAYS(SliceToString(a.slice));
  at(A::kDynamicSliceSizes) = ALWAYS(BracedList(a.dynamic_slice_sizes));
  at(A::kPadding) = ALWAYS(a.padding.ToString());
  at(A::kDirection) = ALWAYS(ComparisonDirectionString(a.direction));
  // `type=` only where it is not the default for the operands' type.
  at(A::kComparisonType) =
      WHEN(h.operand_count() > 0 &&
               a.comparison_type !=
                   DefaultComparisonType(h.operand(0)->shape().element_type()),
           ComparisonTypeString(a.comparison_type));
  at(A::kWindow) = WHEN(a.window.has_value() && !a.window->dimensions.empty(),
                        absl::StrCat("{", a.window->ToString(), "}"));
  at(A::kDimLabels) =
      WHEN(a.conv->dnums.has_value(), a.conv->dnums->ToString());
  at(A::kFeatureGroupCount) = WHEN(a.conv->feature_group_count != 1,
                                   absl::StrCat(a.conv->feature_group_count));
  at(A::kBatchGroupCount) = WHEN(a.conv->batch_group_count != 1,
                                 absl::StrCat(a.conv->batch_group_count));
  at(A::kConvKind) = WHEN(!a.conv->kind.empty(), a.conv->kind);
  at(A::kOperandPrecision) =
      WHEN(std::any_of(a.operand_precision.begin(), a.operand_precision.end(),
                       [](Precision x) { return x != Precision::kDefault; }),
           PrecisionList(a.operand_precision));
  at(A::kPaddingType) = WHEN(a.conv->padding_type != PaddingType::kInvalid,
                             PaddingTypeString(a.conv->padding_type));
  at(A::kLhsBatchDims) = INTS_IF_ANY(a.dot->dnums.lhs_batch_dimensions);
  at(A::kLhsContractingDims) =
      INTS_IF_ANY(a.dot->dnums.lhs_contracting_dimensions);
  at(A::kRhsBatchDims) = INTS_IF_ANY(a.dot->dnums.rhs_batch_dimensions);
  at(A::kRhsContractingDims) =
      INTS_IF_ANY(a.dot->dnums.rhs_contracting_dimensions);
  at(A::kLhsRaggedDims) = INTS_IF_ANY(a.dot->lhs_ragged_dims);
  at(A::kRhsGroupDims) = INTS_IF_ANY(a.dot->rhs_group_dims);
  at(A::kDotAlgorithm) = WHEN(!a.dot->algorithm.empty(), a.dot->algorithm);
  return p;
}

void AddGatherScatterPrinters(std::array<PrintFn, kAttributeCount>& p) {
  auto at = [&p](A id) -> PrintFn& { return p[static_cast<int>(id)]; };
  at(A::kOffsetDims) = ALWAYS(BracedList(a.gather_scatter->gather.offset_dims));
  at(A::kCollapsedSliceDims) =
      ALWAYS(BracedList(a.gather_scatter->gather.collapsed_slice_dims));
  at(A::kStartIndexMap) =
      ALWAYS(BracedList(a.gather_scatter->gather.start_index_map));
  at(A::kOperandBatchingDims) =
      INTS_IF_ANY(a.gather_scatter->gather.operand_batching_dims);
  at(A::kStartIndicesBatchingDims) =
      INTS_IF_ANY(a.gather_scatter->gather.start_indices_batching_dims);
  at(A::kGatherIndexVectorDim) =
      ALWAYS(absl::StrCat(a.gather_scatter->gather.index_vector_dim));
  at(A::kGatherSliceSizes) = ALWAYS(BracedList(a.gather_scatter->slice_sizes));
  at(A::kIndicesAreSorted) = TRUE_IF_SET(a.gather_scatter->indices_are_sorted);
  at(A::kUpdateWindowDims) =
      ALWAYS(BracedList(a.gather_scatter->scatter.update_window_dims));
  at(A::kInsertedWindowDims) =
      ALWAYS(BracedList(a.gather_scatter->scatter.inserted_window_dims));
  at(A::kScatterDimsToOperandDims) = ALWAYS(
      BracedList(a.gather_scatter->scatter.scatter_dims_to_operand_dims));
  at(A::kInputBatchingDims) =
      INTS_IF_ANY(a.gather_scatter->scatter.input_batching_dims);
  at(A::kScatterIndicesBatchingDims) =
      INTS_IF_ANY(a.gather_scatter->scatter.scatter_indices_batching_dims);
  at(A::kScatterIndexVectorDim) =
      ALWAYS(absl::StrCat(a.gather_scatter->scatter.index_vector_dim));
  at(A::kUniqueIndices) = TRUE_IF_SET(a.gather_scatter->unique_indices);
}

void AddScalarOpPrinters(std::array<PrintFn, kAttributeCount>& p) {
  auto at = [&p](A id) -> PrintFn& { return p[static_cast<int>(id)]; };
  at(A::kFftType) = ALWAYS(FftTypeString(a.fft_type));
  at(A::kFftLength) = ALWAYS(BracedList(a.fft_length));
  at(A::kDistribution) = ALWAYS(RandomDistributionString(a.distribution));
  at(A::kRngAlgorithm) = ALWAYS(RandomAlgorithmString(a.rng_algorithm));
  at(A::kDelta) = ALWAYS(absl::StrCat(a.delta));
  at(A::kExponentBits) = ALWAYS(absl::StrCat(a.exponent_bits));
  at(A::kMantissaBits) = ALWAYS(absl::StrCat(a.mantissa_bits));
  at(A::kEpsilon) = ALWAYS(FloatToText(a.epsilon));
  at(A::kFeatureIndex) = ALWAYS(absl::StrCat(a.feature_index));
  at(A::kLeftSide) = TRUE_IF_SET(a.left_side);
  at(A::kLower) = TRUE_IF_SET(a.lower);
  at(A::kUnitDiagonal) = TRUE_IF_SET(a.unit_diagonal);
  at(A::kTransposeA) = WHEN(a.transpose_a != TriangularSolveTranspose::kInvalid,
                            TriangularSolveTransposeString(a.transpose_a));
  at(A::kCholeskyLower) = TRUE_IF_SET(a.lower);
  at(A::kIsStable) = TRUE_IF_SET(a.is_stable);
  at(A::kK) = ALWAYS(absl::StrCat(a.k));
  at(A::kLargest) = ALWAYS(a.largest ? "true" : "false");
  at(A::kFusionKind) = ALWAYS(FusionKindString(a.fusion_kind));
  at(A::kOutputToOperandAliasing) =
      WHEN(!a.output_to_operand_aliasing.empty(),
           OutputOperandAliasingToString(a.output_to_operand_aliasing));
  at(A::kIsComposite) = WHEN(a.is_composite && h.to_apply() != nullptr, "true");
  at(A::kCrossProgramPrefetchIndex) =
      INT_IF_SET(a.cross_program_prefetch_index);
  at(A::kNumCarries) = ALWAYS(absl::StrCat(a.num_carries));
  at(A::kIsReverse) = TRUE_IF_SET(a.is_reverse);
  // XLA's parser always sets it, so XLA prints it either way.
  at(A::kIsAssociative) = ALWAYS(a.is_associative ? "true" : "false");
  at(A::kDomain) = ALWAYS(DomainToString(*a.domain));
}

void AddCommunicationPrinters(std::array<PrintFn, kAttributeCount>& p) {
  auto at = [&p](A id) -> PrintFn& { return p[static_cast<int>(id)]; };
  at(A::kChannelId) = INT_IF_SET(a.channel_id);
  at(A::kReplicaGroups) = ALWAYS(a.collective->replica_groups.ToString());
  at(A::kConstrainLayout) = TRUE_IF_SET(a.collective->constrain_layout);
  at(A::kUseGlobalDeviceIds) = TRUE_IF_SET(a.collective->use_global_device_ids);
  at(A::kMode) = WHEN(!a.collective->mode.empty(), a.collective->mode);
  at(A::kSourceTargetPairs) =
      ALWAYS(PairsToString(a.collective->source_target_pairs));
  at(A::kPermuteSliceSizes) =
      WHEN(!a.collective->permute_slice_sizes.empty(),
           ListListToString(a.collective->permute_slice_sizes));
  at(A::kIsHostTransfer) = TRUE_IF_SET(a.is_host_transfer);
  at(A::kInfeedConfig) =
      WHEN(!a.feed->infeed_config.empty(), Quoted(a.feed->infeed_config));
  at(A::kOutfeedShape) = WHEN(a.feed->outfeed_shape.has_value(),
                              a.feed->outfeed_shape->ToString(true));
  at(A::kOutfeedConfig) =
      WHEN(!a.feed->outfeed_config.empty(), Quoted(a.feed->outfeed_config));
  at(A::kCustomCallTarget) = ALWAYS(Quoted(a.custom_call->target));
  at(A::kOperandLayoutConstraints) =
      WHEN(a.custom_call->operand_layout_constraints.has_value(),
           ShapeList(*a.custom_call->operand_layout_constraints));
  at(A::kCustomCallHasSideEffect) = TRUE_IF_SET(a.custom_call->has_side_effect);
  at(A::kLiteral) =
      WHEN(a.literal.has_value(), a.literal->ToStringWithLayout());
  at(A::kSchedule) = WHEN(a.custom_call->schedule != CustomCallSchedule::kNone,
                          CustomCallScheduleString(a.custom_call->schedule));
  at(A::kApiVersion) =
      WHEN(a.custom_call->api_version != CustomCallApiVersion::kOriginal,
           CustomCallApiVersionString(a.custom_call->api_version));
  at(A::kAsyncExecutionThread) = WHEN(a.async_execution_thread() != "main",
                                      Quoted(a.async_execution_thread()));
}

void AddCalleePrinters(std::array<PrintFn, kAttributeCount>& p) {
  auto at = [&p](A id) -> PrintFn& { return p[static_cast<int>(id)]; };
  at(A::kToApply) = [](H h, absl::string_view, AttributeUse, AttributeList& o) {
    PrintDefaultCallees(h, o);
  };
  at(A::kCalls) = CALLEE(0, !c.empty());
  at(A::kCondition) = CALLEE(1, c.size() > 1);
  at(A::kBody) = CALLEE(0, !c.empty());
  at(A::kSelect) = CALLEE(0, !c.empty());
  at(A::kScatterComputation) = CALLEE(1, c.size() > 1);
  at(A::kTrueComputation) = CALLEE(0, HasPredBranches(h));
  at(A::kFalseComputation) = CALLEE(1, HasPredBranches(h));
  at(A::kBranchComputations) =
      WHEN(!h.called_computations().empty() && !HasPredBranches(h),
           ComputationList(h.called_computations()));
  // XLA prints the list form even for one callee (to_apply= reads too).
  at(A::kCalledComputations) = WHEN(!h.called_computations().empty(),
                                    ComputationList(h.called_computations()));
}

#undef ALWAYS
#undef WHEN
#undef INTS_IF_ANY
#undef TRUE_IF_SET
#undef INT_IF_SET
#undef CALLEE

const std::array<PrintFn, kAttributeCount>& Printers() {
  static const auto* const kPrinters = [] {
    auto* p = new std::array<PrintFn, kAttributeCount>(MakePrinters());
    AddGatherScatterPrinters(*p);
    AddScalarOpPrinters(*p);
    AddCommunicationPrinters(*p);
    AddCalleePrinters(*p);
    return p;
  }();
  return *kPrinters;
}

}  // namespace

std::string Quoted(absl::string_view s) {
  return absl::StrCat("\"", absl::CEscape(s), "\"");
}

std::string ComputationName(const HloComputation* computation) {
  return absl::StrCat("%", computation->name());
}

bool AllAttributesHavePrinters() {
  for (PrintFn fn : Printers()) {
    if (fn == nullptr) return false;
  }
  return true;
}

void PrintOpcodeAttributes(const HloInstruction& hlo, bool print_callees,
                           AttributeList& out) {
  const auto& printers = Printers();
  bool row_has_callees = false;
  for (const OpcodeAttribute& a : GetOpcodeSchema(hlo.opcode()).attributes) {
    const bool callee = IsComputationAttribute(a.id);
    row_has_callees |= callee;
    if (a.use == AttributeUse::kInputOnly || (callee && !print_callees)) {
      continue;
    }
    printers[static_cast<int>(a.id)](hlo, GetAttributeInfo(a.id).name, a.use,
                                     out);
  }
  if (print_callees && !row_has_callees) PrintDefaultCallees(hlo, out);
}

}  // namespace text_internal
}  // namespace xlite
