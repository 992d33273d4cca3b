// Custom calls XLA runs that the evaluator implements: the SPMD annotations
// and AllocateBuffer on one device, and QR as XLA's QrExpander lowers it.
// The QR numbers are LAPACK's (NumPy's linalg.qr, mode='raw' for geqrf's
// packed form and taus, mode='reduced' for Q), computed once offline.
#include <gtest/gtest.h>

#include <complex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/evaluator/test_util.h"

namespace xlite {
namespace {

using C = std::complex<double>;

using eval_test::Evaluate;

void ExpectNear(const Literal& got, const std::vector<C>& want, double tol,
                const std::string& what) {
  ASSERT_EQ(got.element_count(), static_cast<int64_t>(want.size())) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got.GetAsComplex(i).real(), want[i].real(), tol)
        << what << " element " << i;
    EXPECT_NEAR(got.GetAsComplex(i).imag(), want[i].imag(), tol)
        << what << " element " << i;
  }
}

// (a', taus) = Qr(p) and q = Product(a', taus), returned as a tuple.
std::string QrModule(const std::string& type, const std::string& dims,
                     const std::string& tau_dims) {
  const std::string a = absl::StrCat(type, "[", dims, "]");
  const std::string t = absl::StrCat(type, "[", tau_dims, "]");
  return absl::StrCat(
      "HloModule qr\nENTRY e {\n  p = ", a, " parameter(0)\n  qr = (", a, ", ",
      t, ") custom-call(p), custom_call_target=\"Qr\"\n  h = ", a,
      " get-tuple-element(qr), index=0\n  taus = ", t,
      " get-tuple-element(qr), index=1\n  q = ", a,
      " custom-call(h, taus), "
      "custom_call_target=\"ProductOfElementaryHouseholderReflectors\"\n"
      "  ROOT r = (",
      a, ", ", t, ", ", a, ") tuple(h, taus, q)\n}\n");
}

TEST(SpmdCustomCalls, AreIdentityOnOneDevice) {
  const std::string hlo = R"(
HloModule spmd
ENTRY e {
  p = f32[2,2] parameter(0)
  s = f32[2,2] custom-call(p), custom_call_target="Sharding", sharding={replicated}
  f = f32[2,2] custom-call(s), custom_call_target="SPMDFullToShardShape", sharding={manual}
  n = f32[2,2] negate(f)
  ROOT b = f32[2,2] custom-call(n), custom_call_target="SPMDShardToFullShape", sharding={replicated}
}
)";
  auto result = Evaluate(hlo, {"f32[2,2] {{1, -2}, {3, 4.5}}"});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->ToString(), "f32[2,2] { { -1, 2 }, { -3, -4.5 } }");
}

TEST(SpmdCustomCalls, ShardOfAnotherShapeNeedsThePartitioner) {
  const std::string hlo = R"(
HloModule spmd
ENTRY e {
  p = f32[4] parameter(0)
  ROOT f = f32[2] custom-call(p), custom_call_target="SPMDFullToShardShape", sharding={manual}
}
)";
  auto result = Evaluate(hlo, {"f32[4] {1, 2, 3, 4}"});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("only the one-device"),
            std::string::npos)
      << result.status();
}

TEST(AllocateBuffer, YieldsABufferOfItsShape) {
  const std::string hlo = R"(
HloModule alloc
ENTRY e {
  p = s32[3] parameter(0)
  b = s32[3] custom-call(), custom_call_target="AllocateBuffer"
  ROOT r = (s32[3], s32[3]) tuple(p, b)
}
)";
  auto result = Evaluate(hlo, {"s32[3] {1, 2, 3}"});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->tuple_elements()[1].shape().ToString(false), "s32[3]");
}

TEST(Qr, TallRealMatrixMatchesLapack) {
  auto result = Evaluate(QrModule("f32", "3,2", "2"),
                    {"f32[3,2] {{2, -1}, {1, 3}, {-2, 0.5}}"});
  ASSERT_TRUE(result.ok()) << result.status();
  const auto& r = result->tuple_elements();
  ExpectNear(r[0], {-3.0, -2.220446049250313e-16, 0.2, -3.2015621187164243,
                    -0.4, 0.015621187164243442},
             1e-6, "geqrf");
  ExpectNear(r[1], {1.6666666666666667, 1.9995120760870788}, 1e-6, "taus");
  ExpectNear(r[2], {-0.6666666666666667, 0.31234752377721214,
                    -0.33333333333333337, -0.9370425713316364,
                    0.6666666666666667, -0.1561737618886061},
             1e-6, "orgqr");
}

TEST(Qr, WideMatrixInF64MatchesLapack) {
  const std::string hlo = R"(
HloModule qr
ENTRY e {
  p = f64[2,3] parameter(0)
  ROOT qr = (f64[2,3], f64[2]) custom-call(p), custom_call_target="Qr"
}
)";
  auto result = Evaluate(hlo, {"f64[2,3] {{0, 4, 1}, {3, -2, 5}}"});
  ASSERT_TRUE(result.ok()) << result.status();
  const auto& r = result->tuple_elements();
  ExpectNear(r[0], {-3.0, 2.0, -5.0, 1.0, -4.0, -1.0}, 1e-14, "geqrf");
  ExpectNear(r[1], {1.0, 0.0}, 1e-14, "taus");
}

TEST(Qr, ComplexMatrixMatchesLapack) {
  auto result =
      Evaluate(QrModule("c64", "3,2", "2"),
          {"c64[3,2] {{(1, 2), (3, -1)}, {(-2, 0.5), (0, 1)}, {(0.5, 0), "
           "(-1, -1)}}"});
  ASSERT_TRUE(result.ok()) << result.status();
  const auto& r = result->tuple_elements();
  ExpectNear(r[0],
             {C(-3.0822070014844885, 0), C(-0.32444284226152487, 3.0822070014844876),
              C(-0.346702984267525, 0.2923433250937715), C(1.842481164654136, 0),
              C(0.09877383895081597, -0.04839237153573888),
              C(0.49978171577914854, -0.13666814284501244)},
             1e-5, "geqrf");
  ExpectNear(r[1],
             {C(1.324442842261525, 0.6488856845230501),
              C(1.0221504104785935, 0.7528934629102588)},
             1e-5, "taus");
  ExpectNear(r[2],
             {C(-0.3244428422615251, -0.6488856845230501),
              C(0.4856151906840359, -0.11426239780800829),
              C(0.6488856845230501, -0.16222142113076252),
              C(-0.1571107969860115, -0.5713119890400423),
              C(-0.16222142113076254, 0),
              C(-0.5713119890400425, -0.27137319479402017)},
             1e-5, "orgqr");
}

TEST(Qr, BatchDimensionsLead) {
  auto result = Evaluate(QrModule("f32", "2,2,2", "2,2"),
                    {"f32[2,2,2] {{{4, 3}, {3, 2}}, {{1, 0}, {0, 1}}}"});
  ASSERT_TRUE(result.ok()) << result.status();
  const auto& r = result->tuple_elements();
  ExpectNear(r[0],
             {-5.0, -3.5999999999999996, 0.3333333333333333,
              -0.19999999999999976, 1, 0, 0, 1},
             1e-6, "geqrf");
  ExpectNear(r[1], {1.8, 0, 0, 0}, 1e-6, "taus");
  ExpectNear(r[2], {-0.8, -0.6, -0.6, 0.8, 1, 0, 0, 1}, 1e-6, "orgqr");
}

TEST(Qr, NarrowFloatsComputeWideAndRoundOnce) {
  auto result = Evaluate(QrModule("bf16", "3,2", "2"),
                    {"bf16[3,2] {{2, -1}, {1, 3}, {-2, 0.5}}"});
  ASSERT_TRUE(result.ok()) << result.status();
  const auto& r = result->tuple_elements();
  // LAPACK's values rounded to bf16 (8 significant bits).
  ExpectNear(r[0], {-3.0, 0, 0.2, -3.2015621187164243, -0.4, 0.015621187164243442},
             0.02, "geqrf");
  ExpectNear(r[2], {-0.6666666666666667, 0.31234752377721214,
                    -0.33333333333333337, -0.9370425713316364,
                    0.6666666666666667, -0.1561737618886061},
             0.01, "orgqr");
}

TEST(Qr, IntegerMatricesAreRefused) {
  auto result = Evaluate(R"(
HloModule qr
ENTRY e {
  p = s32[2,2] parameter(0)
  ROOT qr = (s32[2,2], s32[2]) custom-call(p), custom_call_target="Qr"
}
)",
                    {"s32[2,2] {{1, 2}, {3, 4}}"});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("floating-point or complex"),
            std::string::npos)
      << result.status();
}

TEST(Qr, WideProductIsRefused) {
  auto result = Evaluate(R"(
HloModule qr
ENTRY e {
  a = f32[2,3] parameter(0)
  t = f32[2] parameter(1)
  ROOT q = f32[2,3] custom-call(a, t), custom_call_target="ProductOfElementaryHouseholderReflectors"
}
)",
                    {"f32[2,3] {{1, 2, 3}, {4, 5, 6}}", "f32[2] {0, 0}"});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("m >= n"), std::string::npos)
      << result.status();
}

// XLA's own test module (xla/tests/matmul_test.cc, InverseAndMatmul): a
// batched inverse through Qr, the reflector product and a triangular solve.
TEST(Qr, XlaMatrixInverseModuleInverts) {
  const std::string hlo = R"(
HloModule MatrixInverse.26, entry_computation_layout={(f32[2,6,2,2]{3,2,1,0})->f32[2,6,2,2]{3,2,1,0}}

ENTRY MatrixInverse.26 {
  iota.10 = s32[2]{0} iota(), iota_dimension=0
  constant.11 = s32[] constant(-1)
  broadcast.12 = s32[2]{0} broadcast(constant.11), dimensions={}
  add.13 = s32[2]{0} add(iota.10, broadcast.12)
  broadcast.15 = s32[2,2]{1,0} broadcast(add.13), dimensions={0}
  iota.9 = s32[2]{0} iota(), iota_dimension=0
  broadcast.14 = s32[2,2]{1,0} broadcast(iota.9), dimensions={1}
  compare.16 = pred[2,2]{1,0} compare(broadcast.15, broadcast.14), direction=GE
  broadcast.17 = pred[2,6,2,2]{3,2,1,0} broadcast(pred[2,2]{1,0} compare.16), dimensions={2,3}
  constant.18 = f32[] constant(0)
  broadcast.19 = f32[2,6,2,2]{3,2,1,0} broadcast(constant.18), dimensions={}
  arg0.1 = f32[2,6,2,2]{3,2,1,0} parameter(0), parameter_replication={false}
  reshape.2 = f32[2,6,2,2]{3,2,1,0} reshape(arg0.1)
  custom-call.3 = (f32[2,6,2,2]{3,2,1,0}, f32[2,6,2]{2,1,0}) custom-call(reshape.2), custom_call_target="Qr"
  get-tuple-element.4 = f32[2,6,2,2]{3,2,1,0} get-tuple-element(custom-call.3), index=0
  slice.8 = f32[2,6,2,2]{3,2,1,0} slice(get-tuple-element.4), slice={[0:2], [0:6], [0:2], [0:2]}
  select.20 = f32[2,6,2,2]{3,2,1,0} select(broadcast.17, broadcast.19, slice.8)
  get-tuple-element.5 = f32[2,6,2]{2,1,0} get-tuple-element(custom-call.3), index=1
  custom-call.6 = f32[2,6,2,2]{3,2,1,0} custom-call(get-tuple-element.4, get-tuple-element.5), custom_call_target="ProductOfElementaryHouseholderReflectors"
  slice.7 = f32[2,6,2,2]{3,2,1,0} slice(custom-call.6), slice={[0:2], [0:6], [0:2], [0:2]}
  transpose.21 = f32[2,6,2,2]{2,3,1,0} transpose(slice.7), dimensions={0,1,3,2}
  triangular-solve.22 = f32[2,6,2,2]{2,3,1,0} triangular-solve(select.20, transpose.21), left_side=true, transpose_a=NO_TRANSPOSE
  reshape.23 = f32[2,6,2,2]{3,2,1,0} reshape(triangular-solve.22)
  tuple.24 = (f32[2,6,2,2]{3,2,1,0}) tuple(reshape.23)
  ROOT get-tuple-element.25 = f32[2,6,2,2]{3,2,1,0} get-tuple-element(tuple.24), index=0
}
)";
  // 12 invertible 2x2 matrices {{b+2, 1}, {-1, b%3 + 1}}.
  std::vector<double> a;
  std::string text = "f32[2,6,2,2] {";
  for (int b = 0; b < 12; ++b) {
    const double m[4] = {b + 2.0, 1.0, -1.0, b % 3 + 1.0};
    a.insert(a.end(), m, m + 4);
    absl::StrAppend(&text, b % 6 == 0 ? "{" : "", "{{", m[0], ",", m[1],
                    "},{", m[2], ",", m[3], "}}", b % 6 == 5 ? "}" : ",",
                    b == 5 ? "," : "");
  }
  text += "}";
  auto result = Evaluate(hlo, {text});
  ASSERT_TRUE(result.ok()) << result.status();
  for (int b = 0; b < 12; ++b) {
    const double* m = &a[4 * b];
    const double det = m[0] * m[3] - m[1] * m[2];
    const std::vector<C> inverse = {m[3] / det, -m[1] / det, -m[2] / det,
                                    m[0] / det};
    for (int i = 0; i < 4; ++i) {
      EXPECT_NEAR(result->GetAsDouble(4 * b + i), inverse[i].real(), 1e-5)
          << "matrix " << b << " element " << i;
    }
  }
}

}  // namespace
}  // namespace xlite
