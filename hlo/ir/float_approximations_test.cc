// The f32 polynomial exp, tanh and log against double-precision libm: the
// error bound in ulps over a sweep of every 61st f32 bit pattern (every
// sign, exponent and a spread of mantissas), and the special values.

#include "hlo/ir/float_approximations.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace xlite::approx {
namespace {

// The distance from `got` to `want` in units of the f32 spacing at
// `want` (the subnormal spacing at the least).
double UlpError(float got, double want) {
  const float rounded = static_cast<float>(want);
  const float a = std::fabs(rounded);
  double ulp = std::ldexp(1.0, -149);
  if (std::isfinite(a)) {
    ulp = std::max(ulp, static_cast<double>(std::nextafter(
                            a, std::numeric_limits<float>::infinity())) -
                            a);
  }
  return std::fabs(static_cast<double>(got) - want) / ulp;
}

struct Case {
  const char* name;
  float (*approximation)(float);
  double (*reference)(double);
  double max_ulps;
};

class Sweep : public ::testing::TestWithParam<Case> {};

TEST_P(Sweep, StaysWithinItsBound) {
  const Case& c = GetParam();
  double worst = 0;
  float worst_at = 0;
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += 61) {
    const float x = std::bit_cast<float>(static_cast<uint32_t>(bits));
    const float got = c.approximation(x);
    const double want = c.reference(x);
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << c.name << "(" << x << ")";
      continue;
    }
    if (std::isinf(static_cast<float>(want)) || std::isinf(got)) {
      ASSERT_EQ(got, static_cast<float>(want)) << c.name << "(" << x << ")";
      continue;
    }
    const double error = UlpError(got, want);
    if (error > worst) {
      worst = error;
      worst_at = x;
    }
  }
  EXPECT_LE(worst, c.max_ulps) << c.name << " at " << worst_at;
}

INSTANTIATE_TEST_SUITE_P(
    F32, Sweep,
    ::testing::Values(
        Case{"exp", ExpF32, [](double x) { return std::exp(x); }, 1.0},
        Case{"tanh", TanhF32, [](double x) { return std::tanh(x); }, 2.0},
        Case{"log", LogF32, [](double x) { return std::log(x); }, 1.0}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(FloatApproximations, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(ExpF32(0.0f), 1.0f);
  EXPECT_EQ(ExpF32(-0.0f), 1.0f);
  EXPECT_EQ(ExpF32(inf), inf);
  EXPECT_EQ(ExpF32(-inf), 0.0f);
  EXPECT_EQ(ExpF32(89.0f), inf);
  EXPECT_EQ(ExpF32(-104.0f), 0.0f);
  EXPECT_GT(ExpF32(-100.0f), 0.0f);  // subnormal, not flushed
  EXPECT_TRUE(std::isnan(ExpF32(nan)));
  EXPECT_EQ(TanhF32(0.0f), 0.0f);
  EXPECT_TRUE(std::signbit(TanhF32(-0.0f)));
  EXPECT_EQ(TanhF32(inf), 1.0f);
  EXPECT_EQ(TanhF32(-inf), -1.0f);
  EXPECT_EQ(TanhF32(20.0f), 1.0f);
  EXPECT_EQ(TanhF32(1e-30f), 1e-30f);
  EXPECT_TRUE(std::isnan(TanhF32(nan)));
  EXPECT_EQ(LogF32(1.0f), 0.0f);
  EXPECT_EQ(LogF32(0.0f), -inf);
  EXPECT_EQ(LogF32(-0.0f), -inf);
  EXPECT_EQ(LogF32(inf), inf);
  EXPECT_TRUE(std::isnan(LogF32(-1.0f)));
  EXPECT_TRUE(std::isnan(LogF32(-inf)));
  EXPECT_TRUE(std::isnan(LogF32(nan)));
  EXPECT_NEAR(LogF32(std::ldexp(1.0f, -149)), -149 * std::log(2.0), 1e-4);
}

}  // namespace
}  // namespace xlite::approx
