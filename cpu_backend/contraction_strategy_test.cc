// DotUsesLibrary / ConvolutionUsesLibrary: which element types, sizes,
// fusions and convolutions go to the runtime library's GEMM.

#include "cpu_backend/contraction_strategy.h"

#include <gtest/gtest.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "hlo/ir/module.h"
#include "hlo/text/parser.h"

namespace xlite::cpu {
namespace {

// The root of the entry computation of `text`; the module is kept alive in
// `holder`.
const HloInstruction& Root(const std::string& text,
                           std::unique_ptr<HloModule>& holder) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status() << "\n" << text;
  holder = *std::move(module);
  return *holder->entry_computation()->root_instruction();
}

bool DotDecision(const std::string& lhs, const std::string& rhs,
                 const std::string& out, const std::string& dims) {
  std::unique_ptr<HloModule> holder;
  const std::string text = absl::StrCat(
      "HloModule m\nENTRY e {\n  a = ", lhs, " parameter(0)\n  b = ", rhs,
      " parameter(1)\n  ROOT d = ", out, " dot(a, b), ", dims, "\n}\n");
  return DotUsesLibrary(Root(text, holder));
}

constexpr char kMatMul[] = "lhs_contracting_dims={1}, rhs_contracting_dims={0}";

TEST(ContractionStrategy, LargeFloatDotsUseTheLibrary) {
  EXPECT_TRUE(DotDecision("f32[64,64]", "f32[64,64]", "f32[64,64]", kMatMul));
  EXPECT_TRUE(DotDecision("f64[64,64]", "f64[64,64]", "f64[64,64]", kMatMul));
  EXPECT_TRUE(DotDecision("c64[64,64]", "c64[64,64]", "c64[64,64]", kMatMul));
  EXPECT_TRUE(
      DotDecision("c128[64,64]", "c128[64,64]", "c128[64,64]", kMatMul));
  // Narrow floats are computed in f32, mixed precision too.
  EXPECT_TRUE(DotDecision("f16[64,64]", "f16[64,64]", "f16[64,64]", kMatMul));
  EXPECT_TRUE(DotDecision("bf16[64,64]", "bf16[64,64]", "f32[64,64]", kMatMul));
  EXPECT_TRUE(DotDecision("f32[64,64]", "f64[64,64]", "f64[64,64]", kMatMul));
}

TEST(ContractionStrategy, SmallIntegerAndNarrowDotsStayEmitted) {
  EXPECT_FALSE(DotDecision("f32[8,8]", "f32[8,8]", "f32[8,8]", kMatMul));
  EXPECT_FALSE(DotDecision("bf16[8,8]", "bf16[8,8]", "bf16[8,8]", kMatMul));
  EXPECT_FALSE(DotDecision("s32[64,64]", "s32[64,64]", "s32[64,64]", kMatMul));
  EXPECT_FALSE(
      DotDecision("f8e4m3fn[64,64]", "f8e4m3fn[64,64]", "f32[64,64]", kMatMul));
  EXPECT_FALSE(DotDecision("c64[64,64]", "c64[64,64]", "c128[64,64]", kMatMul));
  EXPECT_FALSE(DotDecision("f32[64,0]", "f32[0,64]", "f32[64,64]", kMatMul));
}

TEST(ContractionStrategy, DotThresholds) {
  // 8192 multiply-adds with a contraction of at least 24.
  EXPECT_TRUE(DotDecision("f32[16,32]", "f32[32,16]", "f32[16,16]", kMatMul));
  EXPECT_FALSE(DotDecision("f32[16,31]", "f32[31,16]", "f32[16,16]", kMatMul));
  EXPECT_TRUE(DotDecision("f32[16,24]", "f32[24,32]", "f32[16,32]", kMatMul));
  EXPECT_FALSE(DotDecision("f32[16,23]", "f32[23,32]", "f32[16,32]", kMatMul));
  EXPECT_FALSE(
      DotDecision("f32[512,16]", "f32[16,512]", "f32[512,512]", kMatMul));
  // Complex: contractions from 16.
  EXPECT_TRUE(DotDecision("c64[32,16]", "c64[16,32]", "c64[32,32]", kMatMul));
  EXPECT_FALSE(DotDecision("c64[32,15]", "c64[15,32]", "c64[32,32]", kMatMul));
  // f16 anywhere: 512 multiply-adds, any contraction.
  EXPECT_TRUE(DotDecision("f16[8,8]", "f16[8,8]", "f16[8,8]", kMatMul));
  EXPECT_TRUE(DotDecision("f16[32,2]", "f16[2,8]", "f32[32,8]", kMatMul));
  EXPECT_FALSE(DotDecision("f16[7,8]", "f16[8,8]", "f16[7,8]", kMatMul));
  // Batched and matrix-vector products count the same way.
  EXPECT_TRUE(DotDecision("f32[8,16,32]", "f32[8,32,4]", "f32[8,16,4]",
                          "lhs_batch_dims={0}, lhs_contracting_dims={2}, "
                          "rhs_batch_dims={0}, rhs_contracting_dims={1}"));
  EXPECT_TRUE(
      DotDecision("f32[256,128]", "f32[128]", "f32[256]",
                  "lhs_contracting_dims={1}, rhs_contracting_dims={0}"));
}

TEST(ContractionStrategy, FusionsThatOnlyWrapADot) {
  const std::string wrapped = R"(
HloModule m
fused {
  p0 = f32[64,64]{1,0} parameter(0)
  p1 = f32[64,64]{1,0} parameter(1)
  t = f32[64,64]{0,1} transpose(p1), dimensions={1,0}
  c = f32[64,64]{1,0} copy(t)
  ROOT d = f32[64,64]{1,0} dot(p0, c), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
ENTRY e {
  a = f32[64,64]{1,0} parameter(0)
  b = f32[64,64]{1,0} parameter(1)
  ROOT f = f32[64,64]{1,0} fusion(a, b), kind=kOutput, calls=fused
})";
  std::unique_ptr<HloModule> holder;
  const HloInstruction& fusion = Root(wrapped, holder);
  EXPECT_TRUE(DotUsesLibrary(fusion));
  EXPECT_EQ(WrappedDot(fusion), fusion.fused_computation()->root_instruction());

  const std::string computed = R"(
HloModule m
fused {
  p0 = f32[64,64]{1,0} parameter(0)
  p1 = f32[64,64]{1,0} parameter(1)
  n = f32[64,64]{1,0} negate(p1)
  ROOT d = f32[64,64]{1,0} dot(p0, n), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
ENTRY e {
  a = f32[64,64]{1,0} parameter(0)
  b = f32[64,64]{1,0} parameter(1)
  ROOT f = f32[64,64]{1,0} fusion(a, b), kind=kOutput, calls=fused
})";
  EXPECT_FALSE(DotUsesLibrary(Root(computed, holder)));
}

bool ConvDecision(const std::string& input, const std::string& kernel,
                  const std::string& out, const std::string& attrs) {
  std::unique_ptr<HloModule> holder;
  const std::string text = absl::StrCat("HloModule m\nENTRY e {\n  a = ", input,
                                        " parameter(0)\n  b = ", kernel,
                                        " parameter(1)\n  ROOT c = ", out,
                                        " convolution(a, b), ", attrs, "\n}\n");
  return ConvolutionUsesLibrary(Root(text, holder));
}

TEST(ContractionStrategy, Convolutions) {
  EXPECT_TRUE(ConvDecision("f32[2,16,16,16]", "f32[3,3,16,16]",
                           "f32[2,16,16,16]",
                           "window={size=3x3 pad=1_1x1_1}, "
                           "dim_labels=b01f_01io->b01f"));
  EXPECT_TRUE(ConvDecision("f16[2,16,16,16]", "f16[3,3,16,16]", "f16[2,8,8,16]",
                           "window={size=3x3 stride=2x2 pad=1_1x1_1}, "
                           "dim_labels=b01f_01io->b01f"));
  // Too small; too shallow a patch; too thin features.
  EXPECT_FALSE(ConvDecision("f32[2,8,8,4]", "f32[3,3,4,8]", "f32[2,8,8,8]",
                            "window={size=3x3 pad=1_1x1_1}, "
                            "dim_labels=b01f_01io->b01f"));
  EXPECT_FALSE(ConvDecision("f32[2,16,16,16]", "f32[1,1,16,16]",
                            "f32[2,16,16,16]",
                            "window={size=1x1}, dim_labels=b01f_01io->b01f"));
  EXPECT_TRUE(ConvDecision("f32[2,16,16,32]", "f32[1,1,32,32]",
                           "f32[2,16,16,32]",
                           "window={size=1x1}, dim_labels=b01f_01io->b01f"));
  EXPECT_FALSE(ConvDecision("f32[2,32,32,3]", "f32[5,5,3,8]", "f32[2,32,32,8]",
                            "window={size=5x5 pad=2_2x2_2}, "
                            "dim_labels=b01f_01io->b01f"));
  // ... except in f16.
  EXPECT_TRUE(ConvDecision("f16[1,4,4,2]", "f16[3,3,2,2]", "f16[1,4,4,2]",
                           "window={size=3x3 pad=1_1x1_1}, "
                           "dim_labels=b01f_01io->b01f"));
  // Grouped.
  EXPECT_FALSE(
      ConvDecision("f32[2,16,16,16]", "f32[3,3,8,16]", "f32[2,16,16,16]",
                   "window={size=3x3 pad=1_1x1_1}, "
                   "dim_labels=b01f_01io->b01f, feature_group_count=2"));
  // Integer.
  EXPECT_FALSE(ConvDecision("s32[2,16,16,16]", "s32[3,3,16,16]",
                            "s32[2,16,16,16]",
                            "window={size=3x3 pad=1_1x1_1}, "
                            "dim_labels=b01f_01io->b01f"));
}

}  // namespace
}  // namespace xlite::cpu
