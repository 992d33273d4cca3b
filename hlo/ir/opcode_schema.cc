#include "hlo/ir/opcode_schema.h"

#include <array>
#include <initializer_list>
#include <iterator>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"

namespace xlite {
namespace {

using A = AttributeId;
constexpr AttributeUse kReq = AttributeUse::kRequired;
constexpr AttributeUse kOpt = AttributeUse::kOptional;
constexpr AttributeUse kIn = AttributeUse::kInputOnly;

constexpr AttributeInfo kAttributes[] = {
#define XLITE_ATTRIBUTE_INFO(id, text, kind, proto, dflt) \
  {text, AttributeValueKind::kind, proto, dflt},
    XLITE_HLO_ATTRIBUTE_LIST(XLITE_ATTRIBUTE_INFO)
#undef XLITE_ATTRIBUTE_INFO
};

struct Row {
  std::vector<HloOpcode> opcodes;
  absl::string_view operands;
  std::vector<OpcodeAttribute> attributes;
};

using O = HloOpcode;

// The collective prefix XLA prints: channel_id, replica_groups,
// constrain_layout.
std::vector<OpcodeAttribute> Collective(
    std::initializer_list<OpcodeAttribute> rest) {
  std::vector<OpcodeAttribute> out = {{A::kChannelId, kOpt},
                                      {A::kReplicaGroups, kOpt},
                                      {A::kConstrainLayout, kOpt}};
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

// The rows: attributes in XLA's print order. Opcodes with no row take no
// opcode-specific attribute (their operands are named by arity).
const std::vector<Row>& Rows() {
  static const auto* const kRows = new std::vector<Row>{
      {{O::kParameter}, "", {{A::kParameterReplication, kOpt}}},
      {{O::kGetTupleElement}, "tuple", {{A::kIndex, kReq}}},
      {{O::kIota}, "", {{A::kIotaDimension, kReq}}},
      {{O::kReshape}, "operand", {{A::kInferredDimension, kOpt}}},
      {{O::kBroadcast}, "operand", {{A::kDimensions, kOpt}}},
      {{O::kShuffle}, "operands...", {{A::kDimensions, kOpt}}},
      {{O::kTranspose, O::kReverse}, "operand", {{A::kDimensions, kReq}}},
      {{O::kConcatenate}, "operands...", {{A::kDimensions, kReq}}},
      {{O::kGetDimensionSize}, "operand", {{A::kDimensions, kReq}}},
      {{O::kSetDimensionSize}, "operand, size", {{A::kDimensions, kReq}}},
      {{O::kReduce},
       "inputs..., init_values...",
       {{A::kDimensions, kReq}, {A::kToApply, kReq}}},
      {{O::kMap}, "operands...", {{A::kDimensions, kOpt}, {A::kToApply, kReq}}},
      {{O::kSort},
       "operands...",
       {{A::kDimensions, kReq}, {A::kIsStable, kOpt}, {A::kToApply, kReq}}},
      {{O::kSlice}, "operand", {{A::kSlice, kReq}}},
      {{O::kDynamicUpdateSlice}, "operand, update, [start_indices...]", {}},
      {{O::kDynamicReshape}, "operand, [output_dims...]", {}},
      {{O::kDynamicSlice},
       "operand, [start_indices...]",
       {{A::kDynamicSliceSizes, kReq}}},
      {{O::kPad}, "operand, padding_value", {{A::kPadding, kReq}}},
      {{O::kCompare},
       "lhs, rhs",
       {{A::kDirection, kReq}, {A::kComparisonType, kOpt}}},
      {{O::kConvolution},
       "lhs, rhs",
       {{A::kWindow, kOpt},
        {A::kDimLabels, kReq},
        {A::kFeatureGroupCount, kOpt},
        {A::kBatchGroupCount, kOpt},
        {A::kConvKind, kOpt},
        {A::kOperandPrecision, kOpt}}},
      {{O::kDot},
       "lhs, rhs",
       {{A::kLhsBatchDims, kOpt},
        {A::kLhsContractingDims, kOpt},
        {A::kRhsBatchDims, kOpt},
        {A::kRhsContractingDims, kOpt},
        {A::kOperandPrecision, kOpt},
        {A::kDotAlgorithm, kOpt}}},
      {{O::kScaledDot},
       "lhs, rhs, lhs_scale, rhs_scale, [global_scales...]",
       {{A::kLhsBatchDims, kOpt},
        {A::kLhsContractingDims, kOpt},
        {A::kRhsBatchDims, kOpt},
        {A::kRhsContractingDims, kOpt},
        {A::kOperandPrecision, kOpt},
        {A::kDotAlgorithm, kOpt}}},
      {{O::kRaggedDot},
       "lhs, rhs, group_sizes",
       {{A::kLhsBatchDims, kOpt},
        {A::kLhsContractingDims, kOpt},
        {A::kRhsBatchDims, kOpt},
        {A::kRhsContractingDims, kOpt},
        {A::kLhsRaggedDims, kOpt},
        {A::kRhsGroupDims, kOpt},
        {A::kOperandPrecision, kOpt}}},
      {{O::kReduceWindow},
       "inputs..., init_values...",
       {{A::kWindow, kOpt}, {A::kToApply, kReq}}},
      {{O::kSelectAndScatter},
       "operand, source, init_value",
       {{A::kWindow, kOpt},
        {A::kSelect, kReq},
        {A::kScatterComputation, kReq}}},
      {{O::kGather},
       "operand, start_indices",
       {{A::kOffsetDims, kReq},
        {A::kCollapsedSliceDims, kReq},
        {A::kStartIndexMap, kReq},
        {A::kOperandBatchingDims, kOpt},
        {A::kStartIndicesBatchingDims, kOpt},
        {A::kGatherIndexVectorDim, kReq},
        {A::kGatherSliceSizes, kReq},
        {A::kIndicesAreSorted, kOpt}}},
      {{O::kScatter},
       "inputs..., scatter_indices, updates...",
       {{A::kUpdateWindowDims, kReq},
        {A::kInsertedWindowDims, kReq},
        {A::kScatterDimsToOperandDims, kReq},
        {A::kInputBatchingDims, kOpt},
        {A::kScatterIndicesBatchingDims, kOpt},
        {A::kScatterIndexVectorDim, kReq},
        {A::kIndicesAreSorted, kOpt},
        {A::kUniqueIndices, kOpt},
        {A::kToApply, kReq}}},
      {{O::kFft}, "operand", {{A::kFftType, kReq}, {A::kFftLength, kReq}}},
      {{O::kRng}, "a, b", {{A::kDistribution, kReq}}},
      {{O::kRngBitGenerator}, "state", {{A::kRngAlgorithm, kReq}}},
      {{O::kRngGetAndUpdateState}, "", {{A::kDelta, kReq}}},
      {{O::kReducePrecision},
       "operand",
       {{A::kExponentBits, kReq}, {A::kMantissaBits, kReq}}},
      {{O::kBatchNormTraining},
       "operand, scale, offset",
       {{A::kEpsilon, kReq}, {A::kFeatureIndex, kReq}}},
      {{O::kBatchNormInference},
       "operand, scale, offset, mean, variance",
       {{A::kEpsilon, kReq}, {A::kFeatureIndex, kReq}}},
      {{O::kBatchNormGrad},
       "operand, scale, mean, variance, grad_output",
       {{A::kEpsilon, kReq}, {A::kFeatureIndex, kReq}}},
      {{O::kTriangularSolve},
       "a, b",
       {{A::kLeftSide, kOpt},
        {A::kLower, kOpt},
        {A::kUnitDiagonal, kOpt},
        {A::kTransposeA, kOpt}}},
      {{O::kCholesky}, "a", {{A::kCholeskyLower, kOpt}}},
      {{O::kTopK}, "operand", {{A::kK, kReq}, {A::kLargest, kOpt}}},
      {{O::kFusion},
       "[operands...]",
       {{A::kFusionKind, kReq},
        {A::kOutputToOperandAliasing, kOpt},
        {A::kCalls, kReq}}},
      {{O::kCall},
       "[operands...]",
       {{A::kToApply, kReq}, {A::kIsComposite, kOpt}}},
      {{O::kWhile}, "init", {{A::kCondition, kReq}, {A::kBody, kReq}}},
      {{O::kConditional},
       "branch_index, [branch_operands...]",
       {{A::kTrueComputation, kOpt},
        {A::kFalseComputation, kOpt},
        {A::kBranchComputations, kOpt}}},
      {{O::kAllGather, O::kAllGatherStart},
       "operands...",
       Collective({{A::kDimensions, kReq}, {A::kUseGlobalDeviceIds, kOpt}})},
      {{O::kAllReduce, O::kAllReduceStart, O::kCollectiveReduce},
       "operands...",
       Collective({{A::kUseGlobalDeviceIds, kOpt},
                   {A::kMode, kOpt},
                   {A::kToApply, kReq}})},
      {{O::kReduceScatter},
       "operands...",
       Collective({{A::kUseGlobalDeviceIds, kOpt},
                   {A::kDimensions, kReq},
                   {A::kMode, kOpt},
                   {A::kToApply, kReq}})},
      {{O::kAllToAll}, "operands...", Collective({{A::kDimensions, kOpt}})},
      {{O::kRaggedAllToAll},
       "input, output, input_offsets, send_sizes, output_offsets, "
       "recv_sizes",
       {{A::kChannelId, kOpt},
        {A::kReplicaGroups, kOpt},
        {A::kDimensions, kOpt}}},
      {{O::kCollectiveBroadcast},
       "operands...",
       {{A::kChannelId, kOpt}, {A::kReplicaGroups, kOpt}}},
      {{O::kCollectivePermute, O::kCollectivePermuteStart},
       "operands...",
       {{A::kChannelId, kOpt},
        {A::kSourceTargetPairs, kReq},
        {A::kPermuteSliceSizes, kOpt}}},
      {{O::kSend},
       "operand, token",
       {{A::kChannelId, kOpt}, {A::kIsHostTransfer, kOpt}}},
      {{O::kRecv},
       "token",
       {{A::kChannelId, kOpt}, {A::kIsHostTransfer, kOpt}}},
      {{O::kSendDone, O::kRecvDone},
       "start",
       {{A::kChannelId, kOpt}, {A::kIsHostTransfer, kOpt}}},
      {{O::kInfeed}, "token", {{A::kInfeedConfig, kOpt}}},
      {{O::kOutfeed},
       "operand, token",
       {{A::kOutfeedShape, kOpt}, {A::kOutfeedConfig, kOpt}}},
      {{O::kCustomCall},
       "[operands...]",
       {{A::kWindow, kOpt},
        {A::kDimLabels, kOpt},
        {A::kFeatureGroupCount, kOpt},
        {A::kBatchGroupCount, kOpt},
        {A::kOperandPrecision, kOpt},
        {A::kPaddingType, kOpt},
        {A::kCustomCallTarget, kReq},
        {A::kOperandLayoutConstraints, kOpt},
        {A::kCustomCallHasSideEffect, kOpt},
        {A::kLiteral, kOpt},
        {A::kOutputToOperandAliasing, kOpt},
        {A::kSchedule, kOpt},
        {A::kApiVersion, kOpt},
        {A::kToApply, kIn},
        {A::kCalledComputations, kOpt}}},
      {{O::kAsyncStart},
       "[operands...]",
       {{A::kAsyncExecutionThread, kOpt},
        {A::kOutputToOperandAliasing, kOpt},
        {A::kCalls, kReq}}},
      {{O::kAsyncUpdate, O::kAsyncDone},
       "start",
       {{A::kCalls, kIn}, {A::kAsyncExecutionThread, kIn}}},
      {{O::kCopyStart}, "operand", {{A::kCrossProgramPrefetchIndex, kOpt}}},
      {{O::kScan},
       "inputs..., [inits...]",
       {{A::kDimensions, kReq},
        {A::kNumCarries, kReq},
        {A::kIsReverse, kOpt},
        {A::kIsAssociative, kOpt},
        {A::kToApply, kReq}}},
      {{O::kDomain}, "operand", {{A::kDomain, kReq}}},
  };
  return *kRows;
}

struct Table {
  std::array<OpcodeSchema, kHloOpcodeCount> schemas;
};

const Table& GetTable() {
  static const Table* const kTable = [] {
    auto* table = new Table();
    for (int i = 0; i < kHloOpcodeCount; ++i) {
      const auto opcode = static_cast<HloOpcode>(i);
      const int arity = HloOpcodeArity(opcode);
      // Operands named by count where no row names them (element-wise
      // ops); a longer fixed list needs a row.
      static constexpr absl::string_view kByArity[] = {"", "operand",
                                                       "lhs, rhs", "a, b, c"};
      const bool by_arity = arity >= 0 && arity < std::size(kByArity);
      table->schemas[i] = {
          opcode, {}, by_arity ? kByArity[arity] : "[operands...]"};
    }
    for (const Row& row : Rows()) {
      for (HloOpcode opcode : row.opcodes) {
        table->schemas[static_cast<int>(opcode)] = {opcode, row.attributes,
                                                    row.operands};
      }
    }
    return table;
  }();
  return *kTable;
}

}  // namespace

const AttributeInfo& GetAttributeInfo(AttributeId id) {
  return kAttributes[static_cast<int>(id)];
}

const OpcodeSchema& GetOpcodeSchema(HloOpcode opcode) {
  return GetTable().schemas[static_cast<int>(opcode)];
}

std::optional<OpcodeAttribute> FindOpcodeAttribute(HloOpcode opcode,
                                                   absl::string_view name) {
  for (const OpcodeAttribute& a : GetOpcodeSchema(opcode).attributes) {
    if (GetAttributeInfo(a.id).name == name) return a;
  }
  return std::nullopt;
}

int HloOpcodeMinOperandCount(HloOpcode opcode) {
  if (HloOpcodeArity(opcode) != kVariadic) return HloOpcodeArity(opcode);
  int count = 0;
  for (absl::string_view name :
       absl::StrSplit(GetOpcodeSchema(opcode).operands, ", ")) {
    if (!absl::StartsWith(name, "[")) ++count;  // one, or a group of >= 1
  }
  return count;
}

int HloOpcodeCalledComputationCount(HloOpcode opcode) {
  int count = 0;
  for (const OpcodeAttribute& a : GetOpcodeSchema(opcode).attributes) {
    const AttributeValueKind kind = GetAttributeInfo(a.id).kind;
    if (kind == AttributeValueKind::kComputationList) return -1;
    if (kind == AttributeValueKind::kComputation) ++count;
  }
  return count;
}

bool IsComputationAttribute(AttributeId id) {
  const AttributeValueKind kind = GetAttributeInfo(id).kind;
  return kind == AttributeValueKind::kComputation ||
         kind == AttributeValueKind::kComputationList;
}

}  // namespace xlite
