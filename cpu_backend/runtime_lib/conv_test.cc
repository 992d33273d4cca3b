// xlite_cpu_conv against the evaluator's convolution on random operands:
// 1 to 3 spatial dimensions, padding, strides, both dilations, window
// reversal, the 1x1 path without patches, f32 and f64.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cpu_backend/runtime_lib/runtime_lib.h"
#include "cpu_backend/runtime_lib/test_support.h"

namespace xlite {
namespace {

using rtlib_test::EvaluateHlo;
using rtlib_test::Near;
using rtlib_test::RandomLiteral;

struct Dim {
  int64_t in, window, stride = 1, pad_low = 0, pad_high = 0;
  int64_t base_dilation = 1, window_dilation = 1;
  bool reversal = false;
  int64_t Out() const {
    const int64_t padded = (in - 1) * base_dilation + 1 + pad_low + pad_high;
    const int64_t span = (window - 1) * window_dilation + 1;
    return padded < span ? 0 : (padded - span) / stride + 1;
  }
};

void Check(PrimitiveType type, int64_t batch, int64_t in_features,
           int64_t out_features, const std::vector<Dim>& dims,
           std::mt19937_64& rng) {
  const int64_t rank = dims.size();
  std::vector<int64_t> in_dims = {batch}, k_dims, out_dims = {batch};
  std::vector<std::string> size, stride, pad, lhs, rhs, rev;
  std::vector<int64_t> spatial;
  std::string labels;
  for (const Dim& d : dims) {
    in_dims.push_back(d.in);
    k_dims.push_back(d.window);
    out_dims.push_back(d.Out());
    size.push_back(absl::StrCat(d.window));
    stride.push_back(absl::StrCat(d.stride));
    pad.push_back(absl::StrCat(d.pad_low, "_", d.pad_high));
    lhs.push_back(absl::StrCat(d.base_dilation));
    rhs.push_back(absl::StrCat(d.window_dilation));
    rev.push_back(d.reversal ? "1" : "0");
    spatial.insert(spatial.end(),
                   {d.in, d.Out(), d.window, d.stride, d.pad_low,
                    d.base_dilation, d.window_dilation, d.reversal ? 1 : 0});
    labels += absl::StrCat(labels.size());
  }
  in_dims.push_back(in_features);
  k_dims.insert(k_dims.end(), {in_features, out_features});
  out_dims.push_back(out_features);
  const Shape in_shape(type, in_dims), k_shape(type, k_dims),
      out_shape(type, out_dims);
  const std::string hlo = absl::StrCat(
      "HloModule m\nENTRY e {\n  a = ", in_shape.ToString(false),
      " parameter(0)\n  b = ", k_shape.ToString(false),
      " parameter(1)\n  ROOT c = ", out_shape.ToString(false),
      " convolution(a, b), window={size=", absl::StrJoin(size, "x"),
      " stride=", absl::StrJoin(stride, "x"), " pad=", absl::StrJoin(pad, "x"),
      " lhs_dilate=", absl::StrJoin(lhs, "x"),
      " rhs_dilate=", absl::StrJoin(rhs, "x"),
      " rhs_reversal=", absl::StrJoin(rev, "x"), "}, dim_labels=b", labels,
      "f_", labels, "io->b", labels, "f\n}\n");
  SCOPED_TRACE(hlo);
  std::vector<Literal> args;
  args.push_back(RandomLiteral(in_shape, rng));
  args.push_back(RandomLiteral(k_shape, rng));
  absl::StatusOr<Literal> want = EvaluateHlo(hlo, args);
  ASSERT_TRUE(want.ok()) << want.status();
  Literal got(out_shape);
  ASSERT_EQ(
      xlite_cpu_conv(static_cast<int32_t>(type), args[0].data().data(),
                     args[1].data().data(), got.mutable_data().data(), rank,
                     batch, in_features, out_features, spatial.data()),
      cpu::kStatusOk);
  EXPECT_TRUE(Near(*want, got));
}

TEST(Conv, MatchesTheEvaluatorIn2D) {
  std::mt19937_64 rng(1);
  for (PrimitiveType type : {PrimitiveType::kF32, PrimitiveType::kF64}) {
    // Same padding.
    Check(type, 2, 3, 4, {{8, 3, 1, 1, 1}, {7, 3, 1, 1, 1}}, rng);
    // Strides and asymmetric padding.
    Check(type, 2, 5, 3, {{9, 3, 2, 0, 1}, {8, 2, 3, 1, 0}}, rng);
    // Window dilation and reversal.
    Check(type, 1, 2, 6,
          {{10, 3, 1, 2, 2, 1, 2, true}, {9, 2, 1, 0, 0, 1, 3, false}}, rng);
    // Base (lhs) dilation, as in a transposed convolution.
    Check(type, 2, 4, 2, {{5, 3, 1, 2, 2, 2, 1}, {4, 4, 2, 3, 1, 3, 1, true}},
          rng);
    // 1x1, the path without patches; and a 1x1 with a stride (patches).
    Check(type, 3, 7, 5, {{6, 1}, {5, 1}}, rng);
    Check(type, 3, 7, 5, {{6, 1, 2}, {5, 1, 1}}, rng);
  }
}

TEST(Conv, MatchesTheEvaluatorIn1DAnd3D) {
  std::mt19937_64 rng(2);
  Check(PrimitiveType::kF32, 2, 3, 5, {{20, 4, 2, 1, 2}}, rng);
  Check(PrimitiveType::kF64, 1, 2, 3,
        {{5, 2, 1, 0, 1}, {4, 3, 1, 1, 1, 1, 1, true}, {6, 2, 2, 0, 0, 2, 1}},
        rng);
}

TEST(Conv, ManyChunksOfPatches) {
  // 2 * 64 * 64 rows of 3 * 3 * 16 patch elements: several chunks.
  std::mt19937_64 rng(3);
  Check(PrimitiveType::kF32, 2, 16, 8, {{64, 3, 1, 1, 1}, {64, 3, 1, 1, 1}},
        rng);
}

TEST(Conv, WindowsEntirelyInPaddingGiveZeros) {
  std::mt19937_64 rng(4);
  Check(PrimitiveType::kF32, 1, 2, 2, {{2, 2, 1, 4, 4}}, rng);
}

TEST(Conv, RejectsBadArguments) {
  float x = 1;
  const int64_t spatial[cpu::kConvSpatialFields] = {1, 1, 1, 1, 0, 1, 1, 0};
  EXPECT_EQ(xlite_cpu_conv(cpu::kTypeF32, &x, &x, &x, 1, 1, 1, 1, spatial),
            cpu::kStatusOk);
  EXPECT_EQ(x, 1);
  EXPECT_EQ(xlite_cpu_conv(cpu::kTypeC64, &x, &x, &x, 1, 1, 1, 1, spatial),
            cpu::kStatusUnsupportedType);
  EXPECT_EQ(xlite_cpu_conv(cpu::kTypeF32, &x, &x, &x, 4, 1, 1, 1, spatial),
            cpu::kStatusInvalidArgument);
  const int64_t bad[cpu::kConvSpatialFields] = {1, 1, 1, 0, 0, 1, 1, 0};
  EXPECT_EQ(xlite_cpu_conv(cpu::kTypeF32, &x, &x, &x, 1, 1, 1, 1, bad),
            cpu::kStatusInvalidArgument);
}

}  // namespace
}  // namespace xlite
