// The LAPACK eigh and svd FFI calls JAX emits on CPU (eigh_svd.h), checked
// by their defining properties rather than against fixed numbers, since
// eigenvectors and singular vectors are unique only up to a sign (phase):
// A V = V diag(w), V^H V = I, w ascending; A = U diag(s) V^H, U^H U = I,
// V^H V = I, s descending.
#include "hlo/evaluator/eigh_svd.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "hlo/evaluator/test_util.h"

namespace xlite {
namespace {

using C = std::complex<double>;
using eval_test::Eval;
using eval_test::Evaluate;

bool IsComplexType(const std::string& type) { return type[0] == 'c'; }

std::string RealOf(const std::string& type) {
  return type == "c64" ? "f32" : type == "c128" ? "f64" : type;
}

// `count` random entries (complex ones for a complex type).
std::vector<C> RandomValues(int64_t count, bool complex, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> d(-1, 1);
  std::vector<C> v(count);
  for (C& c : v) c = C(d(gen), complex ? d(gen) : 0);
  return v;
}

// Literal text of `type`[dims] holding `values` (flat, row-major).
std::string LiteralText(const std::string& type,
                        const std::vector<int64_t>& dims,
                        const std::vector<C>& values) {
  std::vector<std::string> items;
  for (const C& c : values) {
    items.push_back(IsComplexType(type)
                        ? absl::StrFormat("(%.17g, %.17g)", c.real(), c.imag())
                        : absl::StrFormat("%.17g", c.real()));
  }
  // A flat list in braces per the innermost dimension, nested by the rest.
  std::string text;
  std::vector<std::string> level = items;
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    std::vector<std::string> next;
    for (size_t i = 0; i < level.size(); i += dims[d]) {
      next.push_back(absl::StrCat(
          "{",
          absl::StrJoin(level.begin() + i, level.begin() + i + dims[d], ", "),
          "}"));
    }
    level = next;
  }
  return absl::StrCat(type, "[", absl::StrJoin(dims, ","), "] ", level[0]);
}

C At(const Literal& l, int64_t i) { return l.GetAsComplex(i); }

// Hermitian: a = (x + x^H) / 2 per matrix.
std::vector<C> Hermitian(std::vector<C> x, int64_t batch, int64_t n) {
  for (int64_t b = 0; b < batch; ++b) {
    C* m = x.data() + b * n * n;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j <= i; ++j) {
        const C h = (m[i * n + j] + std::conj(m[j * n + i])) / 2.0;
        m[i * n + j] = h;
        m[j * n + i] = std::conj(h);
      }
    }
  }
  return x;
}

std::string EighModule(const std::string& type, int64_t batch, int64_t n,
                       char uplo) {
  const std::string target = type == "f32"   ? "lapack_ssyevd_ffi"
                             : type == "f64" ? "lapack_dsyevd_ffi"
                             : type == "c64" ? "lapack_cheevd_ffi"
                                             : "lapack_zheevd_ffi";
  const std::string a = absl::StrCat(type, "[", batch, ",", n, ",", n, "]");
  return absl::StrCat("HloModule eigh\nENTRY e {\n  p = ", a,
                      " parameter(0)\n  ROOT r = (", a, ", ", RealOf(type), "[",
                      batch, ",", n, "], s32[", batch,
                      "]) custom-call(p), custom_call_target=\"", target,
                      "\", api_version=API_VERSION_TYPED_FFI, "
                      "backend_config=\"{mode = 86 : ui8, uplo = ",
                      static_cast<int>(uplo), " : ui8}\"\n}\n");
}

// Tolerance for results of `type` with entries of magnitude ~1.
double Tolerance(const std::string& type) {
  return RealOf(type) == "f32" ? 2e-5 : 1e-12;
}

void CheckEigh(const std::string& type, int64_t batch, int64_t n) {
  SCOPED_TRACE(absl::StrCat(type, "[", batch, ",", n, ",", n, "]"));
  const std::vector<C> a =
      Hermitian(RandomValues(batch * n * n, IsComplexType(type), n), batch, n);
  auto result = Evaluate(EighModule(type, batch, n, 'L'),
                         {LiteralText(type, {batch, n, n}, a)});
  ASSERT_TRUE(result.ok()) << result.status();
  const Literal& v = result->tuple_elements()[0];
  const Literal& w = result->tuple_elements()[1];
  const Literal& info = result->tuple_elements()[2];
  const double tol = Tolerance(type) * n;
  for (int64_t b = 0; b < batch; ++b) {
    EXPECT_EQ(At(info, b), C(0));
    const int64_t o = b * n * n;
    for (int64_t j = 0; j + 1 < n; ++j) {
      EXPECT_LE(At(w, b * n + j).real(), At(w, b * n + j + 1).real());
    }
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        C av = 0, vhv = 0;
        for (int64_t k = 0; k < n; ++k) {
          av += a[o + i * n + k] * At(v, o + k * n + j);
          vhv += std::conj(At(v, o + k * n + i)) * At(v, o + k * n + j);
        }
        EXPECT_LT(std::abs(av - At(v, o + i * n + j) * At(w, b * n + j)), tol)
            << "A v, " << i << "," << j;
        EXPECT_LT(std::abs(vhv - C(i == j ? 1 : 0)), tol)
            << "V^H V, " << i << "," << j;
      }
    }
  }
}

TEST(EighCall, RealAndComplexBatches) {
  for (const char* type : {"f32", "f64", "c64", "c128"}) {
    CheckEigh(type, 3, 5);
    CheckEigh(type, 1, 1);
  }
  CheckEigh("f64", 2, 17);
}

TEST(EighCall, ReadsOnlyTheNamedTriangle) {
  // The upper triangle says [[2, 1], [1, 2]] (eigenvalues 1, 3); the
  // lower one holds garbage.
  auto upper = Evaluate(EighModule("f64", 1, 2, 'U'),
                        {"f64[1,2,2] {{{2, 1}, {99, 2}}}"});
  ASSERT_TRUE(upper.ok()) << upper.status();
  EXPECT_NEAR(At(upper->tuple_elements()[1], 0).real(), 1, 1e-15);
  EXPECT_NEAR(At(upper->tuple_elements()[1], 1).real(), 3, 1e-15);
  auto lower = Evaluate(EighModule("f64", 1, 2, 'L'),
                        {"f64[1,2,2] {{{2, 99}, {1, 2}}}"});
  ASSERT_TRUE(lower.ok()) << lower.status();
  EXPECT_NEAR(At(lower->tuple_elements()[1], 1).real(), 3, 1e-15);
}

TEST(EighCall, DiagonalAndRepeatedEigenvalues) {
  auto result = Evaluate(EighModule("f32", 1, 3, 'L'),
                         {"f32[1,3,3] {{{2, 0, 0}, {0, -1, 0}, {0, 0, 2}}}"});
  ASSERT_TRUE(result.ok()) << result.status();
  const Literal& w = result->tuple_elements()[1];
  EXPECT_EQ(At(w, 0), C(-1));
  EXPECT_EQ(At(w, 1), C(2));
  EXPECT_EQ(At(w, 2), C(2));
}

TEST(EighCall, NanInputGivesNanResults) {
  auto result = Evaluate(EighModule("f32", 1, 2, 'L'),
                         {"f32[1,2,2] {{{1, 0}, {nan, 1}}}"});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(std::isnan(At(result->tuple_elements()[1], 0).real()));
  EXPECT_TRUE(std::isnan(At(result->tuple_elements()[0], 0).real()));
}

TEST(EighCall, RejectsWrongResultShapes) {
  const std::string hlo = R"(
HloModule bad
ENTRY e {
  p = f32[3,3] parameter(0)
  ROOT r = (f32[3,3], f32[2], s32[]) custom-call(p), custom_call_target="lapack_ssyevd_ffi", api_version=API_VERSION_TYPED_FFI, backend_config="{mode = 86 : ui8, uplo = 76 : ui8}"
}
)";
  auto result = Evaluate(hlo, {"f32[3,3] {{1,0,0},{0,1,0},{0,0,1}}"});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("syevd/heevd"), std::string::npos)
      << result.status();
}

std::string SvdModule(const std::string& type, int64_t batch, int64_t m,
                      int64_t n, char mode, bool full) {
  const std::string target = absl::StrCat("lapack_",
                                          type == "f32"   ? "s"
                                          : type == "f64" ? "d"
                                          : type == "c64" ? "c"
                                                          : "z",
                                          "gesdd_ffi");
  const int64_t k = std::min(m, n);
  const std::string b = absl::StrCat(type, "[", batch, ",");
  return absl::StrCat(
      "HloModule svd\nENTRY e {\n  p = ", b, m, ",", n,
      "] parameter(0)\n  ROOT r = (", b, m, ",", n, "], ", RealOf(type), "[",
      batch, ",", k, "], ", b, m, ",", full ? m : k, "], ", b, full ? n : k,
      ",", n, "], s32[", batch, "]) custom-call(p), custom_call_target=\"",
      target,
      "\", api_version=API_VERSION_TYPED_FFI, backend_config=\"{mode = ",
      static_cast<int>(mode), " : ui8}\"\n}\n");
}

// Checks U diag(s) V^H = a, the orthonormality of U's and V^H's
// columns / rows, and the order of s, for matrix b of the batch.
void CheckSvdResult(const Literal& r, const std::vector<C>& a, int64_t b,
                    int64_t m, int64_t n, bool full, double tol) {
  const int64_t k = std::min(m, n), uc = full ? m : k, vr = full ? n : k;
  const Literal& s = r.tuple_elements()[1];
  const Literal& u = r.tuple_elements()[2];
  const Literal& vt = r.tuple_elements()[3];
  EXPECT_EQ(At(r.tuple_elements()[4], b), C(0));
  for (int64_t j = 0; j < k; ++j) {
    EXPECT_GE(At(s, b * k + j).real(), 0);
    if (j + 1 < k)
      EXPECT_GE(At(s, b * k + j).real(), At(s, b * k + j + 1).real());
  }
  auto U = [&](int64_t i, int64_t j) { return At(u, b * m * uc + i * uc + j); };
  auto Vt = [&](int64_t i, int64_t j) {
    return At(vt, b * vr * n + i * n + j);
  };
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      C sum = 0;
      for (int64_t l = 0; l < k; ++l)
        sum += U(i, l) * At(s, b * k + l) * Vt(l, j);
      EXPECT_LT(std::abs(sum - a[b * m * n + i * n + j]), tol) << i << "," << j;
    }
  }
  for (int64_t i = 0; i < uc; ++i) {
    for (int64_t j = 0; j < uc; ++j) {
      C dot = 0;
      for (int64_t l = 0; l < m; ++l) dot += std::conj(U(l, i)) * U(l, j);
      EXPECT_LT(std::abs(dot - C(i == j ? 1 : 0)), tol)
          << "U " << i << "," << j;
    }
  }
  for (int64_t i = 0; i < vr; ++i) {
    for (int64_t j = 0; j < vr; ++j) {
      C dot = 0;
      for (int64_t l = 0; l < n; ++l) dot += Vt(i, l) * std::conj(Vt(j, l));
      EXPECT_LT(std::abs(dot - C(i == j ? 1 : 0)), tol)
          << "Vt " << i << "," << j;
    }
  }
}

void CheckSvd(const std::string& type, int64_t batch, int64_t m, int64_t n,
              char mode, std::vector<C> a = {}, bool full_n = true) {
  const bool full = mode == 'N' ? full_n : mode == 'A';
  SCOPED_TRACE(absl::StrCat(type, "[", batch, ",", m, ",", n, "] mode ",
                            std::string(1, mode)));
  if (a.empty())
    a = RandomValues(batch * m * n, IsComplexType(type), m * 7 + n);
  auto result = Evaluate(SvdModule(type, batch, m, n, mode, full),
                         {LiteralText(type, {batch, m, n}, a)});
  ASSERT_TRUE(result.ok()) << result.status();
  for (int64_t b = 0; b < batch; ++b) {
    CheckSvdResult(*result, a, b, m, n, full, Tolerance(type) * (m + n));
  }
}

TEST(SvdCall, TallWideAndSquareInEveryMode) {
  for (const char* type : {"f32", "f64", "c64", "c128"}) {
    for (char mode : {'A', 'S', 'N'}) {
      CheckSvd(type, 2, 5, 3, mode);
      CheckSvd(type, 2, 3, 5, mode);
      CheckSvd(type, 1, 4, 4, mode);
    }
    // compute_uv=False with full_matrices=False: 'N' with reduced shapes.
    CheckSvd(type, 2, 5, 3, 'N', {}, /*full_n=*/false);
    CheckSvd(type, 1, 2, 6, 'N', {}, /*full_n=*/false);
  }
}

TEST(SvdCall, RankDeficientFullVectorsAreCompleted) {
  // Rank 1, with a zero column: U and V need vectors beyond the range.
  std::vector<C> a = {1, 0, 2, 2, 0, 4, 3, 0, 6, 0, 0, 0};
  CheckSvd("f64", 1, 4, 3, 'A', a);
  CheckSvd("f32", 1, 3, 4, 'A', std::vector<C>(12, 0.0));
}

TEST(SvdCall, GesvdIsTheSameComputation) {
  std::string hlo = SvdModule("f64", 2, 5, 3, 'S', false);
  const std::string gesdd =
      Eval(hlo, {LiteralText("f64", {2, 5, 3}, RandomValues(30, false, 3))});
  hlo.replace(hlo.find("gesdd"), 5, "gesvd");
  EXPECT_EQ(
      Eval(hlo, {LiteralText("f64", {2, 5, 3}, RandomValues(30, false, 3))}),
      gesdd);
}

TEST(SvdCall, NanInputReportsLapacksInfo) {
  auto result = Evaluate(SvdModule("f32", 1, 2, 2, 'A', true),
                         {"f32[1,2,2] {{{1, nan}, {0, 1}}}"});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(At(result->tuple_elements()[4], 0), C(-4));
  EXPECT_TRUE(std::isnan(At(result->tuple_elements()[1], 0).real()));
}

TEST(SvdCall, LeavesTheOperandResultAsItWas) {
  auto result = Evaluate(SvdModule("f64", 1, 2, 2, 'S', false),
                         {"f64[1,2,2] {{{1, 2}, {3, 4}}}"});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(At(result->tuple_elements()[0], 3), C(4));
}

}  // namespace
}  // namespace xlite
