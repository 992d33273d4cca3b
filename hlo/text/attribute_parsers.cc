// One parser per opcode-specific attribute. Which attributes an opcode
// accepts, and which it requires, is its row in the opcode schema.

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/opcode_schema.h"
#include "hlo/text/attribute_text.h"
#include "hlo/text/parser_impl.h"

namespace xlite {
namespace parser_internal {
namespace {

using A = AttributeId;
using AttributeParsers = std::array<AttributeParseFn, kAttributeCount>;

// Reads an int64 into `*value` (an optional or a plain field).
template <typename T>
bool ReadInt64Into(Parser& p, absl::string_view name, T* value) {
  int64_t v;
  if (!p.scanner().ReadInt64(&v, What("for ", name))) return false;
  *value = v;
  return true;
}

// Parsers of more than one step. Each allocates the attributes (as every
// opcode-specific attribute does) before reading.

bool ParseDimensions(Parser& p, HloInstruction* h, absl::string_view n,
                     size_t) {
  h->mutable_attrs();
  if (!p.ParseBracedInts(h->mutable_dimensions(), n)) return false;
  h->set_has_dimensions(true);
  return true;
}

// index, iota_dimension, inferred_dimension: the instruction's one index.
bool ParseIndex(Parser& p, HloInstruction* h, absl::string_view n, size_t) {
  h->mutable_attrs();
  int64_t v;
  if (!ReadInt64Into(p, n, &v)) return false;
  h->set_index(v);
  return true;
}

bool ParseParameterReplication(Parser& p, HloInstruction* h, absl::string_view,
                               size_t) {
  HloAttributes& a = h->mutable_attrs();
  std::vector<bool> values;
  if (!p.ParseBoolList(&values, false)) return false;
  a.parameter_replication = std::move(values);
  return true;
}

bool ParseComparisonTypeAttribute(Parser& p, HloInstruction* h,
                                  absl::string_view, size_t) {
  if (!p.ParseEnum(&h->mutable_attrs().comparison_type, &ParseComparisonType,
                   "comparison type (FLOAT, TOTALORDER, SIGNED, UNSIGNED)")) {
    return false;
  }
  p.NoteExplicitComparisonType(h);
  return true;
}

// `window={}` (no spatial dimensions) is no window, as XLA prints it.
bool ParseWindowAttribute(Parser& p, HloInstruction* h, absl::string_view,
                          size_t) {
  HloAttributes& a = h->mutable_attrs();
  Window window;
  if (!p.ParseWindow(&window)) return false;
  if (!window.dimensions.empty()) a.window = std::move(window);
  return true;
}

bool ParseDimLabelsAttribute(Parser& p, HloInstruction* h, absl::string_view,
                             size_t) {
  HloAttributes& a = h->mutable_attrs();
  ConvolutionDimensionNumbers dnums;
  if (!p.ParseDimLabels(&dnums)) return false;
  a.conv->dnums = std::move(dnums);
  return true;
}

bool ParseDotAlgorithm(Parser& p, HloInstruction* h, absl::string_view,
                       size_t) {
  TextScanner& s = p.scanner();
  const size_t start = s.Position();
  std::string& algorithm = h->mutable_attrs().dot->algorithm;
  algorithm = s.ReadIdentifier();
  if (algorithm.empty()) {
    return s.ErrorAt(start, "expected a dot algorithm name");
  }
  return true;
}

bool ParseEpsilon(Parser& p, HloInstruction* h, absl::string_view, size_t) {
  HloAttributes& a = h->mutable_attrs();
  TextScanner& s = p.scanner();
  const size_t start = s.Position();
  std::string token = s.ReadNumberToken();
  if (token.empty() || !absl::SimpleAtof(token, &a.epsilon)) {
    return s.ErrorAt(start, "expected a number for epsilon");
  }
  return true;
}

bool ParseSourceTargetPairs(Parser& p, HloInstruction* h, absl::string_view,
                            size_t) {
  auto& out = h->mutable_attrs().collective->source_target_pairs;
  TextScanner& s = p.scanner();
  std::vector<std::vector<int64_t>> pairs;
  const size_t start = s.Position();
  if (!p.ParseBracedIntLists(&pairs, "source_target_pairs")) return false;
  for (const auto& pair : pairs) {
    if (pair.size() != 2) {
      return s.ErrorAt(start,
                       "source_target_pairs must be a list of {source,target}");
    }
    out.push_back({pair[0], pair[1]});
  }
  return true;
}

bool ParseOutfeedShape(Parser& p, HloInstruction* h, absl::string_view,
                       size_t) {
  HloAttributes& a = h->mutable_attrs();
  Shape shape;
  if (!p.ParseShape(&shape)) return false;
  a.feed->outfeed_shape = std::move(shape);
  return true;
}

bool ParseOperandLayoutConstraints(Parser& p, HloInstruction* h,
                                   absl::string_view, size_t) {
  HloAttributes& a = h->mutable_attrs();
  std::vector<Shape> shapes;
  if (!p.ParseShapeList(&shapes)) return false;
  a.custom_call->operand_layout_constraints = std::move(shapes);
  return true;
}

// A literal with its shapes, a tuple as "(f32[] 1, s32[2] {1, 2})".
bool ParseLiteralAttribute(Parser& p, HloInstruction* h, absl::string_view,
                           size_t) {
  HloAttributes& a = h->mutable_attrs();
  Literal literal;
  if (!p.ParseSelfDescribingLiteral(&literal)) return false;
  a.literal = std::move(literal);
  return true;
}

// Older XLA printed API_VERSION_UNSPECIFIED, which current XLA rejects; it
// means the original API, so it is read as that.
bool ParseApiVersion(Parser& p, HloInstruction* h, absl::string_view, size_t) {
  CustomCallApiVersion& version = h->mutable_attrs().custom_call->api_version;
  if (!p.ParseEnum(&version, &ParseCustomCallApiVersion,
                   "custom-call API version")) {
    return false;
  }
  if (version == CustomCallApiVersion::kUnspecified) {
    version = CustomCallApiVersion::kOriginal;
  }
  return true;
}

// async-update/done inherit `calls` from their async-start; there it only
// has to match.
bool ParseCalls(Parser& p, HloInstruction* h, absl::string_view, size_t) {
  h->mutable_attrs();
  if (h->opcode() != HloOpcode::kAsyncUpdate &&
      h->opcode() != HloOpcode::kAsyncDone) {
    return p.ParseComputationRef(h, 0);
  }
  TextScanner& s = p.scanner();
  const size_t start = s.Position();
  std::string callee = s.ReadName();
  if (h->called_computations().empty() ||
      h->called_computations()[0] == nullptr ||
      h->called_computations()[0]->name() != callee) {
    return s.ErrorAt(start, absl::StrCat("calls=%", callee,
                                         " does not match the computation of "
                                         "the async operand"));
  }
  return true;
}

// Parsers that take one expression: the value goes into one field of the
// instruction's attributes `a`.
#define PARSER(expr)                                                  \
  [](Parser& p, HloInstruction* h, absl::string_view n, size_t pos) { \
    HloAttributes& a = h->mutable_attrs();                            \
    TextScanner& s = p.scanner();                                     \
    (void)a, (void)s, (void)n, (void)pos;                             \
    return expr;                                                      \
  }
#define INTS(field) PARSER(p.ParseBracedInts(&(field), n))
#define INT64(field) PARSER(s.ReadInt64(&(field), What("for ", n)))
#define BOOL(field) PARSER(s.ReadBool(&(field), What("for ", n)))
#define QUOTED(field) PARSER(s.ReadQuotedString(&(field), What("for ", n)))
#define ENUM(field, parse, what) PARSER(p.ParseEnum(&(field), &(parse), what))
#define CALLEE(slot) PARSER(p.ParseComputationRef(h, slot))

void AddShapeAndOpParsers(AttributeParsers& t) {
  auto at = [&t](A id) -> AttributeParseFn& { return t[static_cast<int>(id)]; };
  at(A::kDimensions) = &ParseDimensions;
  at(A::kIndex) = at(A::kIotaDimension) = at(A::kInferredDimension) =
      &ParseIndex;
  at(A::kParameterReplication) = &ParseParameterReplication;
  at(A::kSlice) = PARSER(p.ParseSliceRanges(&a.slice));
  at(A::kDynamicSliceSizes) = INTS(a.dynamic_slice_sizes);
  at(A::kPadding) = PARSER(p.ParsePadding(&a.padding));
  at(A::kDirection) = ENUM(a.direction, ParseComparisonDirection,
                           "comparison direction (EQ, NE, GE, GT, LE, LT)");
  at(A::kComparisonType) = &ParseComparisonTypeAttribute;
  at(A::kWindow) = &ParseWindowAttribute;
  at(A::kDimLabels) = &ParseDimLabelsAttribute;
  at(A::kFeatureGroupCount) = INT64(a.conv->feature_group_count);
  at(A::kBatchGroupCount) = INT64(a.conv->batch_group_count);
  at(A::kConvKind) = PARSER(p.ParseRawValue(&a.conv->kind));
  at(A::kOperandPrecision) = PARSER(p.ParsePrecisionList(&a.operand_precision));
  at(A::kPaddingType) = ENUM(a.conv->padding_type, ParsePaddingType,
                             "padding type (PADDING_VALID, PADDING_SAME)");
  at(A::kLhsBatchDims) = INTS(a.dot->dnums.lhs_batch_dimensions);
  at(A::kRhsBatchDims) = INTS(a.dot->dnums.rhs_batch_dimensions);
  at(A::kLhsContractingDims) = INTS(a.dot->dnums.lhs_contracting_dimensions);
  at(A::kRhsContractingDims) = INTS(a.dot->dnums.rhs_contracting_dimensions);
  at(A::kLhsRaggedDims) = INTS(a.dot->lhs_ragged_dims);
  at(A::kRhsGroupDims) = INTS(a.dot->rhs_group_dims);
  at(A::kDotAlgorithm) = &ParseDotAlgorithm;
  at(A::kFftType) =
      ENUM(a.fft_type, ParseFftType, "fft type (FFT, IFFT, RFFT, IRFFT)");
  at(A::kFftLength) = INTS(a.fft_length);
  at(A::kDistribution) = ENUM(a.distribution, ParseRandomDistribution,
                              "distribution (rng_uniform, rng_normal)");
  at(A::kRngAlgorithm) =
      ENUM(a.rng_algorithm, ParseRandomAlgorithm,
           "rng algorithm (rng_default, rng_three_fry, rng_philox)");
  at(A::kDelta) = INT64(a.delta);
  at(A::kExponentBits) = INT64(a.exponent_bits);
  at(A::kMantissaBits) = INT64(a.mantissa_bits);
  at(A::kEpsilon) = &ParseEpsilon;
  at(A::kFeatureIndex) = INT64(a.feature_index);
  at(A::kLeftSide) = BOOL(a.left_side);
  at(A::kLower) = at(A::kCholeskyLower) = BOOL(a.lower);
  at(A::kUnitDiagonal) = BOOL(a.unit_diagonal);
  at(A::kTransposeA) = ENUM(a.transpose_a, ParseTriangularSolveTranspose,
                            "transpose_a (NO_TRANSPOSE, TRANSPOSE, ADJOINT)");
  at(A::kIsStable) = BOOL(a.is_stable);
  at(A::kK) = INT64(a.k);
  at(A::kLargest) = BOOL(a.largest);
  at(A::kFusionKind) = ENUM(a.fusion_kind, ParseFusionKind,
                            "fusion kind (kLoop, kInput, kOutput, kCustom)");
  at(A::kOutputToOperandAliasing) =
      PARSER(p.ParseOutputOperandAliasing(&a.output_to_operand_aliasing));
  at(A::kIsComposite) = BOOL(a.is_composite);
  at(A::kCrossProgramPrefetchIndex) =
      PARSER(ReadInt64Into(p, n, &a.cross_program_prefetch_index));
  at(A::kNumCarries) = INT64(a.num_carries);
  at(A::kIsReverse) = BOOL(a.is_reverse);
  at(A::kIsAssociative) = BOOL(a.is_associative);
}

void AddGatherScatterParsers(AttributeParsers& t) {
  auto at = [&t](A id) -> AttributeParseFn& { return t[static_cast<int>(id)]; };
  at(A::kOffsetDims) = INTS(a.gather_scatter->gather.offset_dims);
  at(A::kCollapsedSliceDims) =
      INTS(a.gather_scatter->gather.collapsed_slice_dims);
  at(A::kStartIndexMap) = INTS(a.gather_scatter->gather.start_index_map);
  at(A::kOperandBatchingDims) =
      INTS(a.gather_scatter->gather.operand_batching_dims);
  at(A::kStartIndicesBatchingDims) =
      INTS(a.gather_scatter->gather.start_indices_batching_dims);
  at(A::kGatherIndexVectorDim) =
      INT64(a.gather_scatter->gather.index_vector_dim);
  at(A::kGatherSliceSizes) = INTS(a.gather_scatter->slice_sizes);
  at(A::kIndicesAreSorted) = BOOL(a.gather_scatter->indices_are_sorted);
  at(A::kUpdateWindowDims) = INTS(a.gather_scatter->scatter.update_window_dims);
  at(A::kInsertedWindowDims) =
      INTS(a.gather_scatter->scatter.inserted_window_dims);
  at(A::kScatterDimsToOperandDims) =
      INTS(a.gather_scatter->scatter.scatter_dims_to_operand_dims);
  at(A::kInputBatchingDims) =
      INTS(a.gather_scatter->scatter.input_batching_dims);
  at(A::kScatterIndicesBatchingDims) =
      INTS(a.gather_scatter->scatter.scatter_indices_batching_dims);
  at(A::kScatterIndexVectorDim) =
      INT64(a.gather_scatter->scatter.index_vector_dim);
  at(A::kUniqueIndices) = BOOL(a.gather_scatter->unique_indices);
}

void AddCommunicationParsers(AttributeParsers& t) {
  auto at = [&t](A id) -> AttributeParseFn& { return t[static_cast<int>(id)]; };
  at(A::kChannelId) = PARSER(ReadInt64Into(p, n, &a.channel_id));
  at(A::kReplicaGroups) =
      PARSER(p.ParseReplicaGroups(&a.collective->replica_groups));
  at(A::kConstrainLayout) = BOOL(a.collective->constrain_layout);
  at(A::kUseGlobalDeviceIds) = BOOL(a.collective->use_global_device_ids);
  at(A::kMode) = PARSER(p.ParseRawValue(&a.collective->mode));
  at(A::kSourceTargetPairs) = &ParseSourceTargetPairs;
  at(A::kPermuteSliceSizes) = PARSER(
      p.ParseBracedIntLists(&a.collective->permute_slice_sizes, "slice_sizes"));
  at(A::kIsHostTransfer) = BOOL(a.is_host_transfer);
  at(A::kInfeedConfig) = QUOTED(a.feed->infeed_config);
  at(A::kOutfeedConfig) = QUOTED(a.feed->outfeed_config);
  at(A::kOutfeedShape) = &ParseOutfeedShape;
  at(A::kCustomCallTarget) = QUOTED(a.custom_call->target);
  at(A::kOperandLayoutConstraints) = &ParseOperandLayoutConstraints;
  at(A::kCustomCallHasSideEffect) = BOOL(a.custom_call->has_side_effect);
  at(A::kLiteral) = &ParseLiteralAttribute;
  at(A::kSchedule) = ENUM(a.custom_call->schedule, ParseCustomCallSchedule,
                          "custom-call schedule");
  at(A::kApiVersion) = &ParseApiVersion;
  at(A::kAsyncExecutionThread) = PARSER(p.ParseAsyncExecutionThread(h));
  at(A::kDomain) = PARSER(p.ParseDomain(h, pos));
}

void AddCalleeParsers(AttributeParsers& t) {
  auto at = [&t](A id) -> AttributeParseFn& { return t[static_cast<int>(id)]; };
  at(A::kToApply) = CALLEE(0);
  at(A::kCalls) = &ParseCalls;
  // XLA's callee order: while {body, condition}; select-and-scatter
  // {select, scatter}; conditional {true, false}.
  at(A::kBody) = at(A::kSelect) = at(A::kTrueComputation) = CALLEE(0);
  at(A::kCondition) = at(A::kScatterComputation) = at(A::kFalseComputation) =
      CALLEE(1);
  at(A::kBranchComputations) = at(A::kCalledComputations) =
      PARSER(p.ParseComputationRefList(h));
}

#undef PARSER
#undef INTS
#undef INT64
#undef BOOL
#undef QUOTED
#undef ENUM
#undef CALLEE

}  // namespace

const AttributeParsers& Parsers() {
  static const auto* const kParsers = [] {
    auto* t = new AttributeParsers{};
    AddShapeAndOpParsers(*t);
    AddGatherScatterParsers(*t);
    AddCommunicationParsers(*t);
    AddCalleeParsers(*t);
    return t;
  }();
  return *kParsers;
}

bool Parser::ParseAttributeValue(AttributeId id, HloInstruction* instruction,
                                 absl::string_view name, size_t position) {
  return Parsers()[static_cast<int>(id)](*this, instruction, name, position);
}

}  // namespace parser_internal

namespace text_internal {

bool AllAttributesHaveParsers() {
  for (parser_internal::AttributeParseFn fn : parser_internal::Parsers()) {
    if (fn == nullptr) return false;
  }
  return true;
}

}  // namespace text_internal
}  // namespace xlite
