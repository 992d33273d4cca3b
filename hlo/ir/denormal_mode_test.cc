#include "hlo/ir/denormal_mode.h"

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <thread>

#include "gtest/gtest.h"

namespace xlite {
namespace {

// Through volatile, so that the compiler cannot fold the arithmetic.
float Multiply(float a, float b) {
  volatile float x = a;
  volatile float y = b;
  return x * y;
}

uint32_t Bits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

TEST(DenormalModeTest, ScopeFlushesOperandsAndResultsThenRestores) {
  if (!kDenormalModeSettable) GTEST_SKIP() << "no denormal mode here";
  ASSERT_EQ(CurrentDenormalMode(), DenormalMode::kIeee);
  EXPECT_EQ(Bits(Multiply(1e-40f, 1.0f)), 0x000116c2u);
  {
    ScopedDenormalMode flush(DenormalMode::kFlushToZero);
    EXPECT_EQ(CurrentDenormalMode(), DenormalMode::kFlushToZero);
    EXPECT_EQ(Bits(Multiply(1e-40f, 1.0f)), 0u);            // DAZ
    EXPECT_EQ(Bits(Multiply(-1e-40f, 1.0f)), 0x80000000u);  // sign kept
    EXPECT_EQ(Bits(Multiply(1e-20f, 1e-20f)), 0u);          // FTZ
    volatile double tiny = 1e-310;
    EXPECT_TRUE(tiny == 0.0);
    {
      ScopedDenormalMode keep(DenormalMode::kIeee);
      EXPECT_EQ(Bits(Multiply(1e-20f, 1e-20f)), 0x000116c2u);
    }
    EXPECT_EQ(CurrentDenormalMode(), DenormalMode::kFlushToZero);
  }
  EXPECT_EQ(CurrentDenormalMode(), DenormalMode::kIeee);
  EXPECT_EQ(Bits(Multiply(1e-20f, 1e-20f)), 0x000116c2u);
}

TEST(DenormalModeTest, ReadAsFlushesSubnormalsOnlyWhenFlushing) {
  constexpr auto kFlush = DenormalMode::kFlushToZero;
  EXPECT_EQ(Bits(ReadAs(kFlush, 1e-40f)), 0u);
  EXPECT_EQ(Bits(ReadAs(kFlush, -1e-40f)), 0x80000000u);
  EXPECT_EQ(Bits(ReadAs(kFlush, 0x1p-126f)), 0x00800000u);  // normal
  EXPECT_EQ(Bits(ReadAs(kFlush, -0.0f)), 0x80000000u);
  EXPECT_EQ(Bits(ReadAs(DenormalMode::kIeee, 1e-40f)), 0x000116c2u);
  EXPECT_EQ(ReadAs(kFlush, -5e-324), 0.0);
  EXPECT_TRUE(std::signbit(ReadAs(kFlush, -5e-324)));
  EXPECT_EQ(ReadAs(kFlush, 0x1p-1022), 0x1p-1022);
  EXPECT_EQ(ReadAs(DenormalMode::kIeee, 5e-324), 5e-324);
  EXPECT_TRUE(std::isnan(ReadAs(kFlush, NAN)));
}

TEST(DenormalModeTest, RoundingModeIsLeftAlone) {
  if (!kDenormalModeSettable) GTEST_SKIP() << "no denormal mode here";
  ASSERT_EQ(std::fesetround(FE_UPWARD), 0);
  {
    ScopedDenormalMode flush(DenormalMode::kFlushToZero);
    EXPECT_EQ(std::fegetround(), FE_UPWARD);
  }
  EXPECT_EQ(std::fegetround(), FE_UPWARD);
  std::fesetround(FE_TONEAREST);
}

TEST(DenormalModeTest, ModeIsPerThread) {
  if (!kDenormalModeSettable) GTEST_SKIP() << "no denormal mode here";
  ScopedDenormalMode flush(DenormalMode::kFlushToZero);
  DenormalMode other = DenormalMode::kFlushToZero;
  std::thread t([&] {
    ScopedDenormalMode keep(DenormalMode::kIeee);
    other = CurrentDenormalMode();
  });
  t.join();
  EXPECT_EQ(other, DenormalMode::kIeee);
  EXPECT_EQ(CurrentDenormalMode(), DenormalMode::kFlushToZero);
}

}  // namespace
}  // namespace xlite
