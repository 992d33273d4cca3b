// scaled-dot in XLA's operand order (lhs, rhs, lhs_scale, rhs_scale[,
// input_global_scale, weight_global_scale]): per-dimension blocks, the type
// each side is dequantized in, XLA's scalar "unscaled" placeholder, and the
// NVFP4 global scales.
#include <gtest/gtest.h>

#include <string>

#include "hlo/evaluator/test_util.h"

namespace xlite {
namespace {

using eval_test::Eval;

TEST(ScaledDot, BlocksAlongEveryDimension) {
  // lhs blocks of 2 x 2 (one scale row for both rows), rhs one scale.
  const std::string m = R"(HloModule m
ENTRY e {
  lhs = f8e4m3fn[2,4] parameter(0)
  rhs = f8e4m3fn[1,4] parameter(1)
  lhs_scale = f32[1,2] parameter(2)
  rhs_scale = f8e8m0fnu[1,1] parameter(3)
  ROOT r = f32[2,1] scaled-dot(lhs, rhs, lhs_scale, rhs_scale), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})";
  // dq(lhs) = {{2, 4, 1.5, 2}, {2, 2, 0.5, 0.5}}, dq(rhs) = {4, 4, 4, 4}.
  EXPECT_EQ(Eval(m, {"f8e4m3fn[2,4] {{1, 2, 3, 4}, {1, 1, 1, 1}}",
                     "f8e4m3fn[1,4] {{1, 1, 1, 1}}", "f32[1,2] {{2, 0.5}}",
                     "f8e8m0fnu[1,1] {{4}}"}),
            "f32[2,1] { {38}, {20} }");
}

TEST(ScaledDot, GlobalScalesDivideByTheWeightScaleOnly) {
  const std::string m = R"(HloModule m
ENTRY e {
  lhs = f8e4m3fn[1,2] parameter(0)
  rhs = f8e4m3fn[1,2] parameter(1)
  lhs_scale = f8e8m0fnu[1,1] parameter(2)
  rhs_scale = f8e8m0fnu[1,1] parameter(3)
  input_global_scale = f32[] parameter(4)
  weight_global_scale = f32[] parameter(5)
  ROOT r = f32[1,1] scaled-dot(lhs, rhs, lhs_scale, rhs_scale, input_global_scale, weight_global_scale), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})";
  // (1*2 * 3*0.5 + 2*2 * 4*0.5) / 4 = 11 / 4; the input scale cancels out.
  EXPECT_EQ(Eval(m, {"f8e4m3fn[1,2] {{1, 2}}", "f8e4m3fn[1,2] {{3, 4}}",
                     "f8e8m0fnu[1,1] {{2}}", "f8e8m0fnu[1,1] {{0.5}}",
                     "f32[] 100", "f32[] 4"}),
            "f32[1,1] { {2.75} }");
}

TEST(ScaledDot, ScalarScaleLeavesItsSideUnscaled) {
  // XLA's placeholder for an unscaled bf16 operand (its rewriter drops it).
  const std::string m = R"(HloModule m
ENTRY e {
  lhs = bf16[1,2] parameter(0)
  rhs = f8e4m3fn[1,2] parameter(1)
  lhs_scale = bf16[] parameter(2)
  rhs_scale = f8e8m0fnu[1,1] parameter(3)
  ROOT r = f32[1,1] scaled-dot(lhs, rhs, lhs_scale, rhs_scale), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})";
  EXPECT_EQ(Eval(m, {"bf16[1,2] {{1, 2}}", "f8e4m3fn[1,2] {{1, 1}}",
                     "bf16[] 3", "f8e8m0fnu[1,1] {{2}}"}),
            "f32[1,1] { {6} }");
}

TEST(ScaledDot, DequantizesInXlasType) {
  // f16 data and f16 scale multiply in f16: (1 + 2^-10)^2 rounds to
  // 1 + 2^-9 before the f32 dot.
  const std::string m = R"(HloModule m
ENTRY e {
  lhs = f16[1,1] parameter(0)
  rhs = f32[1,1] parameter(1)
  lhs_scale = f16[1,1] parameter(2)
  rhs_scale = f32[1,1] parameter(3)
  ROOT r = f32[1,1] scaled-dot(lhs, rhs, lhs_scale, rhs_scale), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})";
  EXPECT_EQ(Eval(m, {"f16[1,1] {{1.0009765625}}", "f32[1,1] {{1}}",
                     "f16[1,1] {{1.0009765625}}", "f32[1,1] {{1}}"}),
            "f32[1,1] { {1.00195312} }");
}

}  // namespace
}  // namespace xlite
