// The rates and text forms both backends' profile reports print.
#include "runtime/profile_format.h"

#include <gtest/gtest.h>

namespace xlite::runtime {
namespace {

TEST(ProfileFormat, RatesAgainstThePeakPickTheBoundThatApplies) {
  const PeakRates peak{1e9, 1e10};  // 1 GB/s, 10 GFLOP/s
  // 1 MB and 1 MFLOP in 2 ms: 0.5 GB/s (50%), 0.5 GFLOP/s (5%).
  AchievedRates memory = RatesAgainstPeak(1000000, 1000000, 2e-3, peak);
  EXPECT_DOUBLE_EQ(memory.gbytes_per_second, 0.5);
  EXPECT_DOUBLE_EQ(memory.gflops_per_second, 0.5);
  EXPECT_DOUBLE_EQ(memory.percent_of_bandwidth, 50);
  EXPECT_DOUBLE_EQ(memory.percent_of_compute, 5);
  EXPECT_DOUBLE_EQ(memory.percent_of_peak, 50);
  EXPECT_FALSE(memory.compute_bound);
  EXPECT_EQ(PeakShareCell(memory, 2e-3, peak), "50.0 mem");
  // 1 KB and 16 MFLOP in 2 ms: 80% of the compute peak.
  AchievedRates compute = RatesAgainstPeak(1000, 16000000, 2e-3, peak);
  EXPECT_TRUE(compute.compute_bound);
  EXPECT_EQ(PeakShareCell(compute, 2e-3, peak), "80.0 fp");
  // Nothing timed, or no peak known: no share.
  EXPECT_DOUBLE_EQ(RatesAgainstPeak(1, 1, 0, peak).gbytes_per_second, 0);
  EXPECT_EQ(PeakShareCell(memory, 0, peak), "-");
  EXPECT_EQ(PeakShareCell(memory, 2e-3, PeakRates{}), "-");
  EXPECT_DOUBLE_EQ(ArithmeticIntensity(8, 2), 0.25);
  EXPECT_DOUBLE_EQ(ArithmeticIntensity(0, 2), 0);
}

TEST(ProfileFormat, AlignsColumns) {
  EXPECT_EQ(AlignColumns({{"name", "op", "us"}, {"a", "fusion", "12.5"}}, 2),
            "  name op       us\n"
            "  a    fusion 12.5\n");
}

TEST(ProfileFormat, QuotesJsonStrings) {
  EXPECT_EQ(JsonQuote("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
}

}  // namespace
}  // namespace xlite::runtime
