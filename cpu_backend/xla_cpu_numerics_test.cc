// Where XLA:CPU rounds the narrow types (xla_cpu_numerics.h): the compiled
// module's values against the ones XLA:CPU (jaxlib 0.10.2) computes for
// the same HLO and inputs, stored as bit patterns and literals. Each case
// gave other values before these rewrites.

#include "cpu_backend/xla_cpu_numerics.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "cpu_backend/executable.h"
#include "cpu_backend/text_run_testing.h"
#include "hlo/ir/float_types.h"
#include "hlo/text/parser.h"
#include "hlo/text/printer.h"

namespace xlite::cpu {
namespace {

using testing::RunCompiled;
using testing::RunOnText;

std::unique_ptr<HloModule> Parse(const std::string& text) {
  return testing::ParseForTest(text);
}

bool IsF16Nan(uint64_t bits) {
  return (bits & 0x7C00) == 0x7C00 && (bits & 0x3FF) != 0;
}

// XLA:CPU's f16 logistic of k / 8 for k = -64..64: the sum and the
// quotient round to f16. 46 of these are an f16 ulp from the f32 logistic
// rounded once (2 gives 0x3B0B, not 0x3B0C).
constexpr uint16_t kF16Logistic[129] = {
    0x0D7F, 0x0E3A, 0x0F0D, 0x1000, 0x1087, 0x1121, 0x11D0, 0x1296, 0x1376,
    0x143A, 0x14CA, 0x156E, 0x1626, 0x16F7, 0x17E4, 0x1878, 0x1910, 0x19BD,
    0x1A7F, 0x1B5C, 0x1C2B, 0x1CB8, 0x1D58, 0x1E0E, 0x1EDB, 0x1FC2, 0x2064,
    0x20F9, 0x21A0, 0x225D, 0x2333, 0x2412, 0x249B, 0x2534, 0x25E1, 0x26A5,
    0x2780, 0x283C, 0x28C7, 0x2963, 0x2A13, 0x2AD7, 0x2BB1, 0x2C53, 0x2CDB,
    0x2D72, 0x2E1B, 0x2ED4, 0x2FA1, 0x3041, 0x30BD, 0x3144, 0x31D7, 0x3276,
    0x3320, 0x33D9, 0x344D, 0x34B5, 0x3522, 0x3595, 0x360B, 0x3684, 0x3700,
    0x3780, 0x3800, 0x3840, 0x387F, 0x38BE, 0x38FB, 0x3936, 0x396F, 0x39A5,
    0x39D9, 0x3A0B, 0x3A37, 0x3A63, 0x3A8B, 0x3AAF, 0x3AD1, 0x3AF0, 0x3B0B,
    0x3B26, 0x3B3D, 0x3B52, 0x3B65, 0x3B76, 0x3B86, 0x3B92, 0x3B9F, 0x3BAA,
    0x3BB3, 0x3BBC, 0x3BC4, 0x3BCB, 0x3BD1, 0x3BD7, 0x3BDB, 0x3BDF, 0x3BE2,
    0x3BE6, 0x3BEA, 0x3BEC, 0x3BEE, 0x3BF0, 0x3BF2, 0x3BF4, 0x3BF6, 0x3BF6,
    0x3BF8, 0x3BF8, 0x3BFA, 0x3BFA, 0x3BFA, 0x3BFC, 0x3BFC, 0x3BFC, 0x3BFC,
    0x3BFE, 0x3BFE, 0x3BFE, 0x3BFE, 0x3BFE, 0x3BFE, 0x3BFE, 0x3BFE, 0x3C00,
    0x3C00, 0x3C00, 0x3C00,
};

TEST(XlaCpuNumericsTest, F16LogisticRoundsEveryStep) {
  Literal x(Shape(PrimitiveType::kF16, {129}));
  for (int64_t k = -64; k <= 64; ++k) x.SetFromDouble(k + 64, k / 8.0);
  std::vector<Literal> args;
  args.push_back(std::move(x));
  absl::StatusOr<Literal> got = RunCompiled(R"(
HloModule m
ENTRY e {
  x = f16[129] parameter(0)
  ROOT l = f16[129] logistic(x)
}
)",
                                            std::move(args));
  ASSERT_TRUE(got.ok()) << got.status();
  for (int64_t i = 0; i < 129; ++i) {
    EXPECT_EQ(got->GetBits(i), kF16Logistic[i]) << "x = " << (i - 64) / 8.0;
  }
}

// XLA:CPU's f8e4m3fn logistic of every bit pattern (0x00..0xFF), converted
// to f16: the f16 quotient of the expansion in f16, which the f8e4m3fn
// result rounds once. 48 of these differ from the f32 logistic rounded to
// f16. NaN in, NaN out (the sign is not compared).
constexpr uint16_t kF8E4M3FnLogisticAsF16[256] = {
    0x3800, 0x3801, 0x3802, 0x3803, 0x3804, 0x3805, 0x3806, 0x3807, 0x3808,
    0x3809, 0x380A, 0x380B, 0x380C, 0x380D, 0x380E, 0x380F, 0x3810, 0x3812,
    0x3814, 0x3816, 0x3818, 0x381A, 0x381C, 0x381E, 0x3820, 0x3824, 0x3828,
    0x382C, 0x3830, 0x3834, 0x3838, 0x383C, 0x3840, 0x3848, 0x3850, 0x3858,
    0x3860, 0x3868, 0x386F, 0x3877, 0x387F, 0x388F, 0x389F, 0x38AE, 0x38BE,
    0x38CD, 0x38DD, 0x38EC, 0x38FB, 0x3918, 0x3936, 0x3953, 0x396F, 0x398B,
    0x39A5, 0x39C0, 0x39D9, 0x3A0B, 0x3A37, 0x3A63, 0x3A8B, 0x3AAF, 0x3AD1,
    0x3AF0, 0x3B0B, 0x3B3D, 0x3B65, 0x3B86, 0x3B9F, 0x3BB3, 0x3BC4, 0x3BD1,
    0x3BDB, 0x3BEA, 0x3BF2, 0x3BF8, 0x3BFA, 0x3BFC, 0x3BFE, 0x3BFE, 0x3C00,
    0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00,
    0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00,
    0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00,
    0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00,
    0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00,
    0x3C00, 0xFE00, 0x3800, 0x37FE, 0x37FC, 0x37FA, 0x37F8, 0x37F6, 0x37F4,
    0x37F2, 0x37F0, 0x37EE, 0x37EC, 0x37EA, 0x37E8, 0x37E6, 0x37E4, 0x37E2,
    0x37E0, 0x37DD, 0x37D9, 0x37D5, 0x37D1, 0x37CD, 0x37C8, 0x37C4, 0x37C0,
    0x37B7, 0x37AF, 0x37A8, 0x37A1, 0x3799, 0x3790, 0x3788, 0x3780, 0x376F,
    0x3761, 0x3750, 0x3740, 0x3730, 0x3721, 0x3711, 0x3700, 0x36E2, 0x36C2,
    0x36A3, 0x3684, 0x3666, 0x3647, 0x3629, 0x360B, 0x35CF, 0x3595, 0x355B,
    0x3522, 0x34EB, 0x34B5, 0x3481, 0x344D, 0x33D9, 0x3320, 0x3276, 0x31D7,
    0x3144, 0x30BD, 0x3041, 0x2FA1, 0x2E1B, 0x2CDB, 0x2BB1, 0x2A13, 0x28C7,
    0x2780, 0x25E1, 0x249B, 0x21A0, 0x1EDB, 0x1C2B, 0x1910, 0x1626, 0x1376,
    0x1087, 0x0D7F, 0x080B, 0x02F9, 0x0118, 0x0000, 0x0000, 0x0000, 0x0000,
    0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
    0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
    0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
    0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
    0x0000, 0x0000, 0x0000, 0x7E00,
};

TEST(XlaCpuNumericsTest, F8LogisticRoundsItsStepsInF16) {
  Literal x(Shape(PrimitiveType::kF8E4M3FN, {256}));
  for (int64_t i = 0; i < 256; ++i) x.SetBits(i, i);
  std::vector<Literal> args;
  args.push_back(std::move(x));
  absl::StatusOr<Literal> got = RunCompiled(R"(
HloModule m
ENTRY e {
  x = f8e4m3fn[256] parameter(0)
  l = f8e4m3fn[256] logistic(x)
  h = f16[256] convert(l)
  ROOT t = (f8e4m3fn[256], f16[256]) tuple(l, h)
}
)",
                                            std::move(args));
  ASSERT_TRUE(got.ok()) << got.status();
  const Literal& f8 = got->tuple_elements()[0];
  const Literal& f16 = got->tuple_elements()[1];
  for (int64_t i = 0; i < 256; ++i) {
    const uint64_t want = kF8E4M3FnLogisticAsF16[i];
    if (IsF16Nan(want)) {
      EXPECT_TRUE(IsF16Nan(f16.GetBits(i))) << "pattern " << i;
      continue;
    }
    EXPECT_EQ(f16.GetBits(i), want) << "pattern " << i;
    EXPECT_EQ(f8.GetBits(i),
              EncodeFromF32(PrimitiveType::kF8E4M3FN, HalfToFloat(want)))
        << "pattern " << i;
  }
}

// bf16 computes in f32: its logistic is the f32 one rounded once, not
// its steps rounded to bf16 (which give 0.50390625 for the first).
TEST(XlaCpuNumericsTest, Bf16LogisticRoundsOnce) {
  EXPECT_EQ(RunOnText(R"(
HloModule m
ENTRY e {
  x = bf16[2] parameter(0)
  ROOT l = bf16[2] logistic(x)
}
)",
                      {"bf16[2] {0.005889892578125, 2}"}),
            "bf16[2] {0.5, 0.8789}");
}

// The contractions (passes/contraction_type_caster.h), each against
// XLA:CPU's result for the same HLO.
struct ContractionCase {
  const char* name;
  const char* text;
  std::vector<std::string> args;
  const char* want;
};

std::vector<ContractionCase> ContractionCases() {
  return {
      // f8e4m3fn 1.125 rounds to f8e5m2 1 (even), the sum 1.125 too.
      {"MixedF8ComputesInF8E5M2",
       "a = f8e4m3fn[1,2] parameter(0)\n b = f8e5m2[2,1] parameter(1)\n"
       " ROOT d = f8e4m3fn[1,1] dot(a, b), lhs_contracting_dims={1}, "
       "rhs_contracting_dims={0}",
       {"f8e4m3fn[1,2] {{1.125, 0.125}}", "f8e5m2[2,1] {{1}, {1}}"},
       "f8e4m3fn[1,1] { {1} }"},
      // The same read through a convert to f16: still the f8e5m2 value.
      {"MixedF8ConvertedToF16",
       "a = f8e4m3fn[1,2] parameter(0)\n b = f8e5m2[2,1] parameter(1)\n"
       " d = f8e4m3fn[1,1] dot(a, b), lhs_contracting_dims={1}, "
       "rhs_contracting_dims={0}\n ROOT w = f16[1,1] convert(d)",
       {"f8e4m3fn[1,2] {{1.125, 0.125}}", "f8e5m2[2,1] {{1}, {1}}"},
       "f16[1,1] { {1} }"},
      // A higher result type converts the operands to it first.
      {"F8E4M3FnOperandsRoundToF8E5M2",
       "a = f8e4m3fn[1,2] parameter(0)\n b = f8e4m3fn[2,1] parameter(1)\n"
       " ROOT d = f8e5m2[1,1] dot(a, b), lhs_contracting_dims={1}, "
       "rhs_contracting_dims={0}",
       {"f8e4m3fn[1,2] {{1.125, 0.125}}", "f8e4m3fn[2,1] {{1}, {1}}"},
       "f8e5m2[1,1] { {1} }"},
      // 1.18359375 rounds to bf16 1.1875, a tie f8e4m3fn rounds to 1.25
      // (through f16 it would stay below the tie: 1.125).
      {"Bf16ToF8RoundsThroughBf16",
       "a = bf16[1,2] parameter(0)\n b = bf16[2,1] parameter(1)\n"
       " ROOT d = f8e4m3fn[1,1] dot(a, b), lhs_contracting_dims={1}, "
       "rhs_contracting_dims={0}",
       {"bf16[1,2] {{1, 0.18359375}}", "bf16[2,1] {{1}, {1}}"},
       "f8e4m3fn[1,1] { {1.25} }"},
      // f16 1.005859375 rounds to bf16 1.0078125 before the product.
      {"F16OperandsRoundToBf16",
       "a = f16[1,1] parameter(0)\n b = f16[1,1] parameter(1)\n"
       " ROOT d = bf16[1,1] dot(a, b), lhs_contracting_dims={1}, "
       "rhs_contracting_dims={0}",
       {"f16[1,1] {{1.005859375}}", "f16[1,1] {{3}}"},
       "bf16[1,1] { {3.031} }"},
      // s16 257 is bf16 256.
      {"S16OperandsRoundToBf16",
       "a = s16[1,1] parameter(0)\n b = s16[1,1] parameter(1)\n"
       " ROOT d = bf16[1,1] dot(a, b), lhs_contracting_dims={1}, "
       "rhs_contracting_dims={0}",
       {"s16[1,1] {{257}}", "s16[1,1] {{3}}"},
       "bf16[1,1] { {768} }"},
      // A dot(f32, f32) -> bf16 widened again reads the rounded value.
      {"F32DotToBf16StaysRounded",
       "a = f32[1,2] parameter(0)\n b = f32[2,1] parameter(1)\n"
       " d = bf16[1,1] dot(a, b), lhs_contracting_dims={1}, "
       "rhs_contracting_dims={0}\n ROOT w = f32[1,1] convert(d)",
       {"f32[1,2] {{1, 0.0009765625}}", "f32[2,1] {{1}, {1}}"},
       "f32[1,1] { {1} }"},
      // A bf16 convolution to f16 rounds to bf16 first (a tie, to 1).
      {"Bf16ConvolutionToF16RoundsThroughBf16",
       "x = bf16[1,2,1] parameter(0)\n w = bf16[1,2,1] parameter(1)\n"
       " ROOT c = f16[1,1,1] convolution(x, w), window={size=1}, "
       "dim_labels=bf0_0io->bf0",
       {"bf16[1,2,1] {{{1}, {0.00390625}}}", "bf16[1,2,1] {{{1}, {1}}}"},
       "f16[1,1,1] { { {1} } }"},
  };
}

TEST(XlaCpuNumericsTest, ContractionsComputeInTheHigherType) {
  for (const ContractionCase& c : ContractionCases()) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(
        RunOnText(absl::StrCat("HloModule m\nENTRY e {\n ", c.text, "\n}\n"),
                  c.args),
        c.want);
  }
}

// The order: contractions are cast before the widening converts fold (the
// f32 convert keeps reading the rounded bf16 result), and an f8 logistic
// is expanded after it (the f16 convert reads the f16 quotient).
TEST(XlaCpuNumericsTest, RewritesRunInXlaOrder) {
  std::unique_ptr<HloModule> module = Parse(R"(
HloModule m
ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[3,2] parameter(1)
  d = bf16[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  wide = f32[2,2] convert(d)
  x = f8e5m2[4] parameter(2)
  l = f8e5m2[4] logistic(x)
  h = f16[4] convert(l)
  ROOT t = (f32[2,2], f16[4]) tuple(wide, h)
}
)");
  ASSERT_NE(module, nullptr);
  absl::StatusOr<bool> changed = RewriteForXlaCpuNumerics(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  const std::string text = PrintModule(*module);
  EXPECT_NE(text.find("f32[2,2]{1,0} dot("), std::string::npos) << text;
  EXPECT_NE(text.find("bf16[2,2]{1,0} convert("), std::string::npos) << text;
  EXPECT_EQ(text.find("logistic("), std::string::npos) << text;
  EXPECT_NE(text.find("f16[4]{0} divide("), std::string::npos) << text;
  EXPECT_EQ(text.find("f8e5m2[4]{0} convert("), std::string::npos) << text;
}

}  // namespace
}  // namespace xlite::cpu
