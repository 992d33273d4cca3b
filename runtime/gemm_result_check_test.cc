// Comparing two algorithms' results: rounding-level differences pass,
// scaled to the result type; a real difference, a NaN where the reference
// has a number, or a wrong size fails, naming the element.
#include "runtime/gemm_result_check.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/ir/literal.h"

namespace xlite::runtime {
namespace {

std::string Bytes(const Shape& shape, const std::vector<double>& values) {
  const std::vector<uint8_t> bytes =
      Literal::FromDoubles(shape, values).PhysicalData(shape);
  return std::string(bytes.begin(), bytes.end());
}

TEST(GemmResultCheck, AcceptsRoundingAndRefusesDifferences) {
  const Shape d = Shape::WithDefaultLayout(PrimitiveType::kF32, {2, 2});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::string want = Bytes(d, {1, -100, nan, inf});
  EXPECT_TRUE(CompareGemmResults(d, want, want).ok());
  EXPECT_TRUE(
      CompareGemmResults(d, want, Bytes(d, {1.001, -100.5, nan, inf})).ok());
  const absl::Status off =
      CompareGemmResults(d, want, Bytes(d, {1, -90, nan, inf}));
  ASSERT_FALSE(off.ok());
  EXPECT_EQ(off.message(),
            "element 1 is -90, the reference has -100 (tolerance 0.01)");
  EXPECT_FALSE(CompareGemmResults(d, want, Bytes(d, {1, -100, 0, inf})).ok());
  EXPECT_FALSE(
      CompareGemmResults(d, want, Bytes(d, {1, -100, nan, -inf})).ok());
  EXPECT_FALSE(CompareGemmResults(d, want, want.substr(4)).ok());
}

TEST(GemmResultCheck, ToleranceFollowsTheResultType) {
  const Shape bf16 = Shape::WithDefaultLayout(PrimitiveType::kBF16, {1});
  EXPECT_TRUE(
      CompareGemmResults(bf16, Bytes(bf16, {10}), Bytes(bf16, {10.25})).ok());
  const Shape f64 = Shape::WithDefaultLayout(PrimitiveType::kF64, {1});
  EXPECT_FALSE(
      CompareGemmResults(f64, Bytes(f64, {10}), Bytes(f64, {10.001})).ok());
  EXPECT_GT(GemmResultTolerance(PrimitiveType::kF8E4M3FN),
            GemmResultTolerance(PrimitiveType::kF16));
  // Complex results compare both parts.
  const Shape c64 = Shape::WithDefaultLayout(PrimitiveType::kC64, {1});
  Literal a(c64), b(c64);
  a.SetFromComplex(0, {1, 5});
  b.SetFromComplex(0, {1, -5});
  const std::vector<uint8_t> x = a.PhysicalData(c64), y = b.PhysicalData(c64);
  EXPECT_FALSE(CompareGemmResults(c64, std::string(x.begin(), x.end()),
                                  std::string(y.begin(), y.end()))
                   .ok());
}

}  // namespace
}  // namespace xlite::runtime
