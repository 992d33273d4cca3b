// The sign of a zero that a dot or convolution sums: XLA:CPU (jaxlib 0.10,
// probed with all-ones lhs and all -0 rhs) starts every sum of products
// from +0, so a sum of -0 products is +0, except a dot contracting a
// single element, which XLA makes a multiply: the -0 product itself. The
// CPU backend (emitted loops and the Eigen library alike) and the
// interpreter both give XLA's signs. Not followed: XLA:CPU's vector-matrix
// kernel gives -0 in the last N mod 8 columns of a [1,K] x [K,N] dot.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cpu_backend/executable.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"

namespace xlite::cpu {
namespace {

struct Case {
  std::string name;
  std::string lhs, rhs, out;  // shapes
  std::string attributes;     // the dot's or convolution's
  std::string op = "dot";
  bool negative = false;  // XLA:CPU's sign of every result element
};

Literal Filled(const std::string& shape_text, double value) {
  absl::StatusOr<Shape> shape = ParseShape(shape_text);
  EXPECT_TRUE(shape.ok()) << shape.status();
  Literal literal(*shape);
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    literal.SetFromDouble(i, value);
  }
  return literal;
}

// Which result elements have the sign bit set.
int64_t NegativeCount(const Literal& result) {
  int64_t n = 0;
  for (int64_t i = 0; i < result.element_count(); ++i) {
    n += std::signbit(result.GetAsDouble(i)) ? 1 : 0;
  }
  return n;
}

class SignedZeroSums : public ::testing::TestWithParam<Case> {};

TEST_P(SignedZeroSums, AsXlaCpu) {
  const Case& c = GetParam();
  const std::string text = absl::StrCat(
      "HloModule m\nENTRY e {\n  a = ", c.lhs, " parameter(0)\n  b = ", c.rhs,
      " parameter(1)\n  ROOT r = ", c.out, " ", c.op, "(a, b), ", c.attributes,
      "\n}\n");
  std::vector<Literal> args;
  args.push_back(Filled(c.lhs, 1.0));
  args.push_back(Filled(c.rhs, -0.0));
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<Literal> interpreted = EvaluateModule(**module, args);
  ASSERT_TRUE(interpreted.ok()) << interpreted.status();
  absl::StatusOr<std::unique_ptr<CpuExecutable>> exe =
      CpuExecutable::Compile(*std::move(module), CompileOptions());
  ASSERT_TRUE(exe.ok()) << exe.status();
  absl::StatusOr<Literal> compiled = (*exe)->Run(args);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  const int64_t want = c.negative ? compiled->element_count() : 0;
  EXPECT_EQ(NegativeCount(*compiled), want) << "cpu backend";
  EXPECT_EQ(NegativeCount(*interpreted), want) << "interpreter";
}

Case DotCase(std::string name, int64_t m, int64_t k, int64_t n,
             const char* type = "f32") {
  Case c;
  c.name = std::move(name);
  c.lhs = absl::StrCat(type, "[", m, ",", k, "]");
  c.rhs = absl::StrCat(type, "[", k, ",", n, "]");
  c.out = absl::StrCat(type, "[", m, ",", n, "]");
  c.attributes = "lhs_contracting_dims={1}, rhs_contracting_dims={0}";
  c.negative = k == 1;
  return c;
}

std::vector<Case> Cases() {
  std::vector<Case> cases = {
      DotCase("k1_small", 2, 1, 2),
      DotCase("k1_large", 64, 1, 64),
      DotCase("k1_f64", 3, 1, 5, "f64"),
      DotCase("small", 2, 3, 2),
      DotCase("small_f64", 5, 5, 9, "f64"),
      DotCase("small_bf16", 7, 4, 8, "bf16"),
      DotCase("library", 100, 50, 60),
      DotCase("column", 32, 4, 1),
      DotCase("row_full_vectors", 1, 4, 8),
  };
  Case batch;
  batch.name = "batch";
  batch.lhs = "f32[2,3,4]";
  batch.rhs = "f32[2,4,5]";
  batch.out = "f32[2,3,5]";
  batch.attributes =
      "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, "
      "rhs_contracting_dims={1}";
  cases.push_back(batch);
  Case conv;
  conv.name = "conv_1x1_one_feature";
  conv.op = "convolution";
  conv.lhs = "f32[1,1,8,8]";
  conv.rhs = "f32[4,1,1,1]";
  conv.out = "f32[1,4,8,8]";
  conv.attributes = "window={size=1x1}, dim_labels=bf01_oi01->bf01";
  cases.push_back(conv);
  Case conv3 = conv;
  conv3.name = "conv_3x3";
  conv3.lhs = "f32[1,3,8,8]";
  conv3.rhs = "f32[4,3,3,3]";
  conv3.attributes =
      "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01";
  cases.push_back(conv3);
  return cases;
}

INSTANTIATE_TEST_SUITE_P(All, SignedZeroSums, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace xlite::cpu
