#include "hlo/ir/opcode_schema.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace xlite {
namespace {

TEST(OpcodeSchema, EveryOpcodeHasItsOwnRow) {
  for (int i = 0; i < kHloOpcodeCount; ++i) {
    const auto opcode = static_cast<HloOpcode>(i);
    EXPECT_EQ(GetOpcodeSchema(opcode).opcode, opcode)
        << HloOpcodeString(opcode);
  }
}

// A fixed operand count of more than three needs a row naming them.
TEST(OpcodeSchema, OperandNamesMatchFixedArities) {
  for (int i = 0; i < kHloOpcodeCount; ++i) {
    const auto opcode = static_cast<HloOpcode>(i);
    const int arity = HloOpcodeArity(opcode);
    const absl::string_view names = GetOpcodeSchema(opcode).operands;
    if (arity == kVariadic || names.find("...") != absl::string_view::npos) {
      continue;
    }
    const int count =
        names.empty() ? 0 : 1 + std::count(names.begin(), names.end(), ',');
    EXPECT_EQ(count, arity) << HloOpcodeString(opcode) << ": " << names;
  }
}

// The minimum operand counts of variadic opcodes, as shape inference has
// always required them.
TEST(OpcodeSchema, MinimumOperandCountsFollowTheNames) {
  std::map<HloOpcode, int> expected = {{HloOpcode::kReduce, 2},
                                       {HloOpcode::kReduceWindow, 2},
                                       {HloOpcode::kDynamicUpdateSlice, 2},
                                       {HloOpcode::kScatter, 3},
                                       {HloOpcode::kScaledDot, 4}};
  for (HloOpcode op :
       {HloOpcode::kAllGather, HloOpcode::kAllGatherStart,
        HloOpcode::kAllReduce, HloOpcode::kAllReduceStart, HloOpcode::kAllToAll,
        HloOpcode::kCollectiveBroadcast, HloOpcode::kCollectivePermute,
        HloOpcode::kCollectivePermuteStart, HloOpcode::kCollectiveReduce,
        HloOpcode::kReduceScatter, HloOpcode::kConcatenate,
        HloOpcode::kConditional, HloOpcode::kDynamicReshape,
        HloOpcode::kDynamicSlice, HloOpcode::kMap, HloOpcode::kScan,
        HloOpcode::kShuffle, HloOpcode::kSort}) {
    expected[op] = 1;
  }
  for (int i = 0; i < kHloOpcodeCount; ++i) {
    const auto op = static_cast<HloOpcode>(i);
    if (HloOpcodeArity(op) != kVariadic) {
      EXPECT_EQ(HloOpcodeMinOperandCount(op), HloOpcodeArity(op));
      continue;
    }
    auto it = expected.find(op);
    EXPECT_EQ(HloOpcodeMinOperandCount(op),
              it == expected.end() ? 0 : it->second)
        << HloOpcodeString(op) << ": " << GetOpcodeSchema(op).operands;
  }
}

TEST(OpcodeSchema, AttributeNamesAreUniqueWithinARow) {
  for (int i = 0; i < kHloOpcodeCount; ++i) {
    const auto opcode = static_cast<HloOpcode>(i);
    std::set<std::string> names;
    for (const OpcodeAttribute& a : GetOpcodeSchema(opcode).attributes) {
      EXPECT_TRUE(names.insert(std::string(GetAttributeInfo(a.id).name)).second)
          << HloOpcodeString(opcode) << " lists " << GetAttributeInfo(a.id).name
          << " twice";
    }
  }
}

TEST(OpcodeSchema, FindsAttributesByTextName) {
  auto gather = FindOpcodeAttribute(HloOpcode::kGather, "index_vector_dim");
  ASSERT_TRUE(gather.has_value());
  EXPECT_EQ(gather->id, AttributeId::kGatherIndexVectorDim);
  EXPECT_EQ(gather->use, AttributeUse::kRequired);
  auto scatter = FindOpcodeAttribute(HloOpcode::kScatter, "index_vector_dim");
  ASSERT_TRUE(scatter.has_value());
  EXPECT_EQ(scatter->id, AttributeId::kScatterIndexVectorDim);
  EXPECT_EQ(FindOpcodeAttribute(HloOpcode::kRngBitGenerator, "algorithm")->id,
            AttributeId::kRngAlgorithm);
  EXPECT_EQ(FindOpcodeAttribute(HloOpcode::kDot, "algorithm")->id,
            AttributeId::kDotAlgorithm);
  EXPECT_FALSE(FindOpcodeAttribute(HloOpcode::kAdd, "dimensions").has_value());
}

TEST(OpcodeSchema, CalledComputationCountsFollowTheRows) {
  EXPECT_EQ(HloOpcodeCalledComputationCount(HloOpcode::kWhile), 2);
  EXPECT_EQ(HloOpcodeCalledComputationCount(HloOpcode::kSelectAndScatter), 2);
  for (HloOpcode op :
       {HloOpcode::kFusion, HloOpcode::kCall, HloOpcode::kMap,
        HloOpcode::kReduce, HloOpcode::kReduceWindow, HloOpcode::kSort,
        HloOpcode::kScatter, HloOpcode::kAllReduce, HloOpcode::kAllReduceStart,
        HloOpcode::kReduceScatter, HloOpcode::kCollectiveReduce,
        HloOpcode::kScan, HloOpcode::kAsyncStart, HloOpcode::kAsyncUpdate,
        HloOpcode::kAsyncDone}) {
    EXPECT_EQ(HloOpcodeCalledComputationCount(op), 1) << HloOpcodeString(op);
  }
  EXPECT_EQ(HloOpcodeCalledComputationCount(HloOpcode::kConditional), -1);
  EXPECT_EQ(HloOpcodeCalledComputationCount(HloOpcode::kCustomCall), -1);
  EXPECT_EQ(HloOpcodeCalledComputationCount(HloOpcode::kAdd), 0);
  EXPECT_EQ(HloOpcodeCalledComputationCount(HloOpcode::kTopK), 0);
}

TEST(OpcodeSchema, FamiliesGroupTheEvaluatorsFunctions) {
  EXPECT_EQ(HloOpcodeFamily(HloOpcode::kAdd), OpcodeFamily::kElementwise);
  EXPECT_EQ(HloOpcodeFamily(HloOpcode::kConvert), OpcodeFamily::kConversion);
  EXPECT_EQ(HloOpcodeFamily(HloOpcode::kGather), OpcodeFamily::kGatherScatter);
  EXPECT_EQ(HloOpcodeFamily(HloOpcode::kAllReduce), OpcodeFamily::kCollective);
}

// The element-wise predicates follow from the family and arity columns, so
// a new element-wise opcode needs only its row in the opcode list.
TEST(OpcodeSchema, ElementwisePredicatesFollowFamilyAndArity) {
  int unary = 0, binary = 0;
  for (int i = 0; i < kHloOpcodeCount; ++i) {
    const auto op = static_cast<HloOpcode>(i);
    unary += IsElementwiseUnary(op);
    binary += IsElementwiseBinary(op);
  }
  EXPECT_EQ(unary, 38);
  EXPECT_EQ(binary, 19);
  EXPECT_TRUE(IsElementwiseUnary(HloOpcode::kCopy));
  EXPECT_TRUE(IsElementwiseUnary(HloOpcode::kConvert));
  EXPECT_TRUE(IsElementwiseUnary(HloOpcode::kReducePrecision));
  EXPECT_TRUE(IsElementwiseBinary(HloOpcode::kStochasticConvert));
  EXPECT_TRUE(IsElementwiseBinary(HloOpcode::kCompare));
  EXPECT_FALSE(IsElementwiseUnary(HloOpcode::kBroadcast));
  EXPECT_TRUE(IsElementwiseOpcode(HloOpcode::kClamp));
  EXPECT_TRUE(IsElementwiseOpcode(HloOpcode::kSelect));
  EXPECT_FALSE(IsElementwiseOpcode(HloOpcode::kIota));
}

}  // namespace
}  // namespace xlite
