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
  EXPECT_FALSE(DotDecision("s32[64,64]", "s32[64,64]", "s32[64,64]", kMatMul));
  EXPECT_FALSE(
      DotDecision("f8e4m3fn[64,64]", "f8e4m3fn[64,64]", "f32[64,64]", kMatMul));
  EXPECT_FALSE(DotDecision("c64[64,64]", "c64[64,64]", "c128[64,64]", kMatMul));
  EXPECT_FALSE(DotDecision("f32[64,0]", "f32[0,64]", "f32[64,64]", kMatMul));
}

TEST(ContractionStrategy, TheThresholdIsMultiplyAdds) {
  // 32 * 32 * 32 = 32768 multiply-adds: the smallest library dot.
  EXPECT_TRUE(DotDecision("f32[32,32]", "f32[32,32]", "f32[32,32]", kMatMul));
  EXPECT_FALSE(DotDecision("f32[32,31]", "f32[31,32]", "f32[32,32]", kMatMul));
  // Batched and vector products count the same way.
  EXPECT_TRUE(DotDecision("f32[8,16,16]", "f32[8,16,16]", "f32[8,16,16]",
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
  // Too small.
  EXPECT_FALSE(ConvDecision("f32[1,4,4,2]", "f32[3,3,2,2]", "f32[1,4,4,2]",
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
