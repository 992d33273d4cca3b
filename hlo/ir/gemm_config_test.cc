#include "hlo/ir/gemm_config.h"

#include <gtest/gtest.h>


namespace xlite {
namespace {

TEST(GemmConfig, StridesAndFlagsOfThePrettyDump) {
  absl::StatusOr<GemmBackendConfig> c = ParseGemmBackendConfig(R"({
    "operation_queue_id": "3",
    "gemm_backend_config": {"alpha_real": 1, "beta": 0,
      "dot_dimension_numbers": {"lhs_contracting_dimensions": ["1"],
        "rhs_contracting_dimensions": ["0"], "lhs_batch_dimensions": [],
        "rhs_batch_dimensions": []},
      "precision_config": {"operand_precision": ["HIGHEST", "HIGHEST"]},
      "epilogue": "BIAS_GELU_AUX", "lhs_stride": "20000", "rhs_stride": 7,
      "grad_x": false, "grad_y": true, "damax_output": false,
      "some_future_field": {"x": 1}}})");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->operation_queue_id, 3);
  EXPECT_EQ(c->lhs_stride, 20000);
  EXPECT_EQ(c->rhs_stride, 7);
  EXPECT_EQ(c->grad_y, true);
  EXPECT_EQ(c->epilogue, GemmEpilogue::kBiasGeluAux);
  EXPECT_TRUE(EpilogueAddsBias(c->epilogue));
  EXPECT_TRUE(EpilogueHasAux(c->epilogue));
  EXPECT_EQ(EpilogueActivation(c->epilogue), GemmActivation::kGelu);
  EXPECT_EQ(c->operand_precision[0], "HIGHEST");
}

TEST(GemmConfig, MalformedConfigsNameTheField) {
  struct Case {
    const char* json;
    const char* error;
  } cases[] = {
      {"{", "not JSON"},
      {R"({"other_config": {}})", "no gemm_backend_config"},
      {R"({"gemm_backend_config": 3})", "gemm_backend_config: expected an object"},
      {R"({"gemm_backend_config": {"beta": "x"}})",
       "gemm_backend_config.beta: expected a number"},
      {R"({"gemm_backend_config": {"epilogue": "TANH"}})",
       "gemm_backend_config.epilogue: unknown epilogue"},
      {R"({"gemm_backend_config": {"dot_dimension_numbers":
           {"lhs_batch_dimensions": ["a"]}}})",
       "gemm_backend_config.dot_dimension_numbers.lhs_batch_dimensions[0]: "
       "expected an integer"},
      {R"({"gemm_backend_config": {"dot_dimension_numbers":
           {"lhs_batch_dimensions": [0]}}})",
       "disagree on the number of batch"},
      {R"({"gemm_backend_config": {"lhs_stride": 1.5}})",
       "gemm_backend_config.lhs_stride: expected an integer"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<GemmBackendConfig> got = ParseGemmBackendConfig(c.json);
    ASSERT_FALSE(got.ok()) << c.json;
    EXPECT_NE(got.status().message().find(c.error), std::string::npos)
        << got.status().message();
  }
}

TEST(GemmCallLayout, OperandsAndResultsFollowTheConfig) {
  GemmBackendConfig c;
  c.alpha_real = 1;
  c.dnums.lhs_contracting_dimensions = {1};
  c.dnums.rhs_contracting_dimensions = {0};
  const Shape a = Shape::WithDefaultLayout(PrimitiveType::kF8E4M3FN, {4, 8});
  const Shape b = Shape::WithDefaultLayout(PrimitiveType::kF8E4M3FN, {8, 6});
  const Shape d = Shape::WithDefaultLayout(PrimitiveType::kF32, {4, 6});
  const Shape s = Shape::WithDefaultLayout(PrimitiveType::kF32, {});
  const Shape bias = Shape::WithDefaultLayout(PrimitiveType::kBF16, {6});
  const Shape ws = Shape::WithDefaultLayout(PrimitiveType::kS8, {1024});
  c.beta = 1;
  c.epilogue = GemmEpilogue::kBiasRelu;
  c.damax_output = true;
  absl::StatusOr<GemmCallLayout> l = GemmCallLayoutFor(
      GemmTarget::kCublasLtMatmulF8, c, {&a, &b, &d, &s, &s, &s, &s, &bias},
      Shape::Tuple({d, s, ws}));
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(l->c, 2);
  EXPECT_EQ(l->a_scale, 3);
  EXPECT_EQ(l->d_scale, 6);
  EXPECT_EQ(l->bias, 7);
  EXPECT_EQ(l->amax, 1);
  EXPECT_EQ(l->workspace, 2);
  // A missing bias, a wrong result tuple, a bias of the wrong length.
  EXPECT_FALSE(GemmCallLayoutFor(GemmTarget::kCublasLtMatmulF8, c,
                                 {&a, &b, &d, &s, &s, &s, &s},
                                 Shape::Tuple({d, s, ws}))
                   .ok());
  EXPECT_FALSE(GemmCallLayoutFor(GemmTarget::kCublasLtMatmulF8, c,
                                 {&a, &b, &d, &s, &s, &s, &s, &bias}, d)
                   .ok());
  EXPECT_FALSE(GemmCallLayoutFor(GemmTarget::kCublasLtMatmulF8, c,
                                 {&a, &b, &d, &s, &s, &s, &s, &ws},
                                 Shape::Tuple({d, s, ws}))
                   .ok());
}

}  // namespace
}  // namespace xlite
