// The tolerance policy's edges: the default, the reordered-reduction
// epsilons of the result type, and of a coarser type the values were
// rounded through (rounding_type).
#include "tests/testing/result_difference.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace xlite::testing {
namespace {

Literal F16(double value) {
  return Literal::Scalar(PrimitiveType::kF16, value);
}

TEST(ResultDifference, DefaultIsAThousandth) {
  EXPECT_EQ(ResultDifference(F16(1.0), F16(1.0009765625)), "");
  EXPECT_NE(ResultDifference(F16(1.0), F16(1.00390625)), "");
}

TEST(ResultDifference, ReorderedReductionsAllowEpsilonsOfTheResultType) {
  // 4 f16 epsilons (2^-10) of 1: 1 + 2^-8 passes, 1 + 2^-7 does not.
  EXPECT_EQ(ResultDifference(F16(1.0), F16(1.00390625),
                             ReorderedReductionTolerance()),
            "");
  EXPECT_NE(
      ResultDifference(F16(1.0), F16(1.0078125), ReorderedReductionTolerance()),
      "");
}

TEST(ResultDifference, RoundingTypeCountsItsEpsilons) {
  // One bf16 ulp (2^-7) in an f16 result: a bf16 GEMM rounded after its
  // epilogue instead of before.
  ResultTolerance tolerance = ReorderedReductionTolerance();
  tolerance.rounding_types = {PrimitiveType::kBF16};
  EXPECT_EQ(ResultDifference(F16(1.0), F16(1.0078125), tolerance), "");
  EXPECT_NE(ResultDifference(F16(1.0), F16(1.0625), tolerance), "");
  // A finer rounding type does not narrow the result type's.
  tolerance.rounding_types = {PrimitiveType::kF32};
  EXPECT_EQ(ResultDifference(F16(1.0), F16(1.00390625), tolerance), "");
  // Integers stay exact.
  tolerance.rounding_types = {PrimitiveType::kBF16};
  EXPECT_NE(
      ResultDifference(Literal::ScalarInt(PrimitiveType::kS32, 1),
                       Literal::ScalarInt(PrimitiveType::kS32, 2), tolerance),
      "");
}

}  // namespace
}  // namespace xlite::testing
