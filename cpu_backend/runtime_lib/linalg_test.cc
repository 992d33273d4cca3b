// xlite_cpu_cholesky, xlite_cpu_trsm, xlite_cpu_geqrf and xlite_cpu_orgqr
// against the evaluator's LAPACK custom calls (lapack_?potrf_ffi,
// lapack_?trsm_ffi, Qr, ProductOfElementaryHouseholderReflectors) and the
// cholesky and triangular-solve opcodes, in both matrix layouts.

#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cpu_backend/runtime_lib/runtime_lib.h"
#include "cpu_backend/runtime_lib/test_support.h"

namespace xlite {
namespace {

using rtlib_test::EvaluateHlo;
using rtlib_test::FromBytes;
using rtlib_test::Near;
using rtlib_test::RandomLiteral;
using rtlib_test::TransposeMatrices;

constexpr PrimitiveType kTypes[] = {PrimitiveType::kF32, PrimitiveType::kF64,
                                    PrimitiveType::kC64, PrimitiveType::kC128};

std::string LapackPrefix(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::kF32:
      return "s";
    case PrimitiveType::kF64:
      return "d";
    case PrimitiveType::kC64:
      return "c";
    default:
      return "z";
  }
}

// [batch..., rows, cols] with the given batch dimensions.
Shape MatrixShape(PrimitiveType t, const std::vector<int64_t>& batch,
                  int64_t rows, int64_t cols) {
  std::vector<int64_t> dims = batch;
  dims.push_back(rows);
  dims.push_back(cols);
  return Shape(t, dims);
}

int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// A literal's bytes, each matrix (rows x cols) transposed when col_major.
std::vector<uint8_t> Bytes(const Literal& l, int64_t rows, int64_t cols,
                           bool col_major) {
  if (!col_major) return l.data();
  const int64_t w = StorageBytes(l.shape().element_type());
  const int64_t batch =
      rows * cols == 0 ? 0 : l.element_count() / (rows * cols);
  return TransposeMatrices(l.data(), batch, rows, cols, w);
}

// The literal of `shape` whose matrices are `bytes` (column-major ones
// transposed back).
Literal Back(const Shape& shape, const std::vector<uint8_t>& bytes,
             int64_t rows, int64_t cols, bool col_major) {
  const int64_t w = StorageBytes(shape.element_type());
  const int64_t batch =
      rows * cols == 0 ? 0 : shape.ElementCount() / (rows * cols);
  if (!col_major) return FromBytes(shape, bytes.data());
  // The transpose of a cols x rows column-major matrix is row-major.
  return FromBytes(shape,
                   TransposeMatrices(bytes, batch, cols, rows, w).data());
}

// Hermitian positive definite matrices (M M^H + n I) in the triangle
// `lower` says; random values in the other one, which must not be read.
Literal RandomSpd(PrimitiveType t, const std::vector<int64_t>& batch, int64_t n,
                  bool lower, std::mt19937_64& rng) {
  const Shape shape = MatrixShape(t, batch, n, n);
  const Literal m = RandomLiteral(shape, rng);
  Literal out = RandomLiteral(shape, rng);
  for (int64_t b = 0; b < Product(batch); ++b) {
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        if (lower ? j > i : j < i) continue;
        std::complex<double> v = i == j ? double(n) : 0.0;
        for (int64_t k = 0; k < n; ++k) {
          v += m.GetAsComplex((b * n + i) * n + k) *
               std::conj(m.GetAsComplex((b * n + j) * n + k));
        }
        out.SetFromComplex((b * n + i) * n + j, v);
      }
    }
  }
  return out;
}

// Runs the library's Cholesky on `a` in both layouts and compares the
// factor and info with the evaluator's result of `hlo` (a tuple (factor,
// info) when `keep_other_triangle`, the factor alone otherwise).
void CheckCholesky(const std::string& hlo, const Literal& a,
                   const std::vector<int64_t>& batch, int64_t n, bool lower,
                   bool keep_other_triangle) {
  absl::StatusOr<Literal> want = EvaluateHlo(hlo, {&a, 1});
  ASSERT_TRUE(want.ok()) << want.status() << "\n" << hlo;
  const Literal& want_factor =
      keep_other_triangle ? want->tuple_elements()[0] : *want;
  for (bool col_major : {false, true}) {
    SCOPED_TRACE(col_major ? "column-major" : "row-major");
    std::vector<uint8_t> bytes = Bytes(a, n, n, col_major);
    std::vector<int32_t> info(Product(batch), -7);
    // In place, as output_to_operand_aliasing lets the caller ask.
    ASSERT_EQ(xlite_cpu_cholesky(static_cast<int32_t>(a.shape().element_type()),
                                 bytes.data(), bytes.data(), info.data(),
                                 Product(batch), n, lower, keep_other_triangle,
                                 col_major),
              xlite::cpu::kStatusOk);
    EXPECT_TRUE(Near(want_factor, Back(a.shape(), bytes, n, n, col_major)))
        << hlo;
    if (keep_other_triangle) {
      const Literal& want_info = want->tuple_elements()[1];
      for (int64_t b = 0; b < Product(batch); ++b) {
        EXPECT_EQ(info[b], want_info.GetAsInt64(b)) << "batch " << b;
      }
    }
  }
}

std::string PotrfHlo(const Shape& a, const std::vector<int64_t>& batch,
                     bool lower) {
  const Shape info(PrimitiveType::kS32, batch);
  return absl::StrCat(
      "HloModule m\nENTRY e {\n  p = ", a.ToString(false),
      " parameter(0)\n  ROOT c = (", a.ToString(false), ", ",
      info.ToString(false), ") custom-call(p), custom_call_target=\"lapack_",
      LapackPrefix(a.element_type()),
      "potrf_ffi\", backend_config={uplo = ", lower ? 76 : 85, " : ui8}\n}\n");
}

TEST(Cholesky, PotrfMatchesTheEvaluator) {
  std::mt19937_64 rng(1);
  for (PrimitiveType t : kTypes) {
    for (bool lower : {true, false}) {
      for (const auto& [batch, n] :
           std::vector<std::pair<std::vector<int64_t>, int64_t>>{
               {{}, 1}, {{}, 4}, {{3}, 5}, {{2, 2}, 3}, {{}, 40}}) {
        SCOPED_TRACE(absl::StrCat(PrimitiveTypeName(t), " n=", n,
                                  lower ? " lower" : " upper"));
        const Literal a = RandomSpd(t, batch, n, lower, rng);
        CheckCholesky(PotrfHlo(a.shape(), batch, lower), a, batch, n, lower,
                      true);
      }
    }
  }
}

TEST(Cholesky, TheOpcodeZeroesTheOtherTriangle) {
  std::mt19937_64 rng(2);
  for (PrimitiveType t : kTypes) {
    for (bool lower : {true, false}) {
      const std::vector<int64_t> batch = {2};
      const Literal a = RandomSpd(t, batch, 6, lower, rng);
      const std::string hlo = absl::StrCat(
          "HloModule m\nENTRY e {\n  p = ", a.shape().ToString(false),
          " parameter(0)\n  ROOT c = ", a.shape().ToString(false),
          " cholesky(p), lower=", lower ? "true" : "false", "\n}\n");
      CheckCholesky(hlo, a, batch, 6, lower, false);
    }
  }
}

TEST(Cholesky, NotPositiveDefiniteReportsTheColumnAndNaNs) {
  for (PrimitiveType t : kTypes) {
    // Pivots 4, 1, then 0.5 - 1 - 0 < 0 in column 2 (info 3); the second
    // matrix has a NaN pivot in column 0 (info 1), the third is fine.
    Literal a = Literal::FromDoubles(MatrixShape(t, {3}, 3, 3), {4,
                                                                 0,
                                                                 0,
                                                                 2,
                                                                 2,
                                                                 0,
                                                                 2,
                                                                 1,
                                                                 0.5,  //
                                                                 std::nan(""),
                                                                 0,
                                                                 0,
                                                                 1,
                                                                 2,
                                                                 0,
                                                                 0,
                                                                 0,
                                                                 1,  //
                                                                 4,
                                                                 0,
                                                                 0,
                                                                 2,
                                                                 5,
                                                                 0,
                                                                 0,
                                                                 1,
                                                                 2});
    CheckCholesky(PotrfHlo(a.shape(), {3}, true), a, {3}, 3, true, true);
  }
}

// ----------------------------------------------------------------------------
// Triangular solve

// Well-conditioned triangular operands: small random values plus 2 on the
// diagonal (both triangles filled: only one may be read).
Literal RandomTriangular(PrimitiveType t, const std::vector<int64_t>& batch,
                         int64_t s, std::mt19937_64& rng) {
  Literal a = RandomLiteral(MatrixShape(t, batch, s, s), rng, -0.3, 0.3);
  for (int64_t b = 0; b < Product(batch); ++b) {
    for (int64_t i = 0; i < s; ++i) {
      const int64_t at = (b * s + i) * s + i;
      a.SetFromComplex(at, a.GetAsComplex(at) + 2.0);
    }
  }
  return a;
}

struct TrsmCase {
  bool left, lower, unit;
  int32_t transpose;  // kTrsm*
};

void CheckTrsm(const std::string& hlo, const Literal& a, const Literal& b,
               const std::vector<int64_t>& batch, int64_t m, int64_t n,
               const TrsmCase& c) {
  std::vector<Literal> args;
  args.push_back(a);
  args.push_back(b);
  absl::StatusOr<Literal> want = EvaluateHlo(hlo, args);
  ASSERT_TRUE(want.ok()) << want.status() << "\n" << hlo;
  const int64_t s = c.left ? m : n;
  for (bool col_major : {false, true}) {
    SCOPED_TRACE(col_major ? "column-major" : "row-major");
    const std::vector<uint8_t> a_bytes = Bytes(a, s, s, col_major);
    std::vector<uint8_t> x = Bytes(b, m, n, col_major);
    ASSERT_EQ(
        xlite_cpu_trsm(static_cast<int32_t>(a.shape().element_type()),
                       a_bytes.data(), x.data(), x.data(), Product(batch), m, n,
                       c.left, c.lower, c.transpose, c.unit, col_major),
        xlite::cpu::kStatusOk);
    EXPECT_TRUE(Near(*want, Back(b.shape(), x, m, n, col_major))) << hlo;
  }
}

TEST(Trsm, LapackCustomCallMatchesTheEvaluator) {
  std::mt19937_64 rng(3);
  const char kTrans[] = {0, 'N', 'T', 'C'};
  for (PrimitiveType t : kTypes) {
    for (int bits = 0; bits < 8; ++bits) {
      for (int32_t trans = 1; trans <= 3; ++trans) {
        const TrsmCase c{(bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0,
                         trans};
        const std::vector<int64_t> batch =
            bits % 3 == 0 ? std::vector<int64_t>{} : std::vector<int64_t>{2};
        const int64_t m = 5, n = 3, s = c.left ? m : n;
        SCOPED_TRACE(absl::StrCat(PrimitiveTypeName(t), " left=", c.left,
                                  " lower=", c.lower, " unit=", c.unit,
                                  " trans=", trans));
        const Literal a = RandomTriangular(t, batch, s, rng);
        const Literal b = RandomLiteral(MatrixShape(t, batch, m, n), rng);
        const std::string hlo = absl::StrCat(
            "HloModule m\nENTRY e {\n  a = ", a.shape().ToString(false),
            " parameter(0)\n  b = ", b.shape().ToString(false),
            " parameter(1)\n  ROOT x = ", b.shape().ToString(false),
            " custom-call(a, b), custom_call_target=\"lapack_", LapackPrefix(t),
            "trsm_ffi\", backend_config={diag = ", c.unit ? 85 : 78,
            " : ui8, side = ", c.left ? 76 : 82,
            " : ui8, trans_x = ", static_cast<int>(kTrans[trans]),
            " : ui8, uplo = ", c.lower ? 76 : 85, " : ui8}\n}\n");
        CheckTrsm(hlo, a, b, batch, m, n, c);
      }
    }
  }
}

TEST(Trsm, TheOpcodeMatchesTheEvaluator) {
  std::mt19937_64 rng(4);
  const char* kTrans[] = {"", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
  for (PrimitiveType t : kTypes) {
    for (int bits = 0; bits < 8; ++bits) {
      const TrsmCase c{(bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0,
                       1 + bits % 3};
      const std::vector<int64_t> batch = {3};
      const int64_t m = 4, n = 6, s = c.left ? m : n;
      const Literal a = RandomTriangular(t, batch, s, rng);
      const Literal b = RandomLiteral(MatrixShape(t, batch, m, n), rng);
      const std::string hlo = absl::StrCat(
          "HloModule m\nENTRY e {\n  a = ", a.shape().ToString(false),
          " parameter(0)\n  b = ", b.shape().ToString(false),
          " parameter(1)\n  ROOT x = ", b.shape().ToString(false),
          " triangular-solve(a, b), left_side=", c.left ? "true" : "false",
          ", lower=", c.lower ? "true" : "false",
          ", unit_diagonal=", c.unit ? "true" : "false",
          ", transpose_a=", kTrans[c.transpose], "\n}\n");
      CheckTrsm(hlo, a, b, batch, m, n, c);
    }
  }
}

TEST(Trsm, RejectsBadArguments) {
  float x = 1;
  EXPECT_EQ(
      xlite_cpu_trsm(xlite::cpu::kTypeF32, &x, &x, &x, 1, 1, 1, 1, 1, 0, 0, 0),
      xlite::cpu::kStatusInvalidArgument);
  EXPECT_EQ(
      xlite_cpu_trsm(xlite::cpu::kTypeF16, &x, &x, &x, 1, 1, 1, 1, 1, 1, 0, 0),
      xlite::cpu::kStatusUnsupportedType);
}

// ----------------------------------------------------------------------------
// QR

TEST(Qr, GeqrfMatchesTheEvaluator) {
  std::mt19937_64 rng(5);
  for (PrimitiveType t : kTypes) {
    for (const auto& [batch, m, n] :
         std::vector<std::tuple<std::vector<int64_t>, int64_t, int64_t>>{
             {{}, 3, 2},
             {{}, 2, 3},
             {{2}, 5, 5},
             {{2, 3}, 6, 4},
             {{}, 1, 1},
             {{}, 30, 20}}) {
      SCOPED_TRACE(absl::StrCat(PrimitiveTypeName(t), " ", m, "x", n));
      const Literal a = RandomLiteral(MatrixShape(t, batch, m, n), rng);
      const int64_t k = std::min(m, n);
      std::vector<int64_t> tau_dims = batch;
      tau_dims.push_back(k);
      const Shape taus_shape(t, tau_dims);
      const std::string hlo = absl::StrCat(
          "HloModule m\nENTRY e {\n  p = ", a.shape().ToString(false),
          " parameter(0)\n  ROOT qr = (", a.shape().ToString(false), ", ",
          taus_shape.ToString(false),
          ") custom-call(p), custom_call_target=\"Qr\"\n}\n");
      absl::StatusOr<Literal> want = EvaluateHlo(hlo, {&a, 1});
      ASSERT_TRUE(want.ok()) << want.status();
      for (bool col_major : {false, true}) {
        SCOPED_TRACE(col_major ? "column-major" : "row-major");
        std::vector<uint8_t> bytes = Bytes(a, m, n, col_major);
        Literal taus(taus_shape);
        ASSERT_EQ(xlite_cpu_geqrf(static_cast<int32_t>(t), bytes.data(),
                                  bytes.data(), taus.mutable_data().data(),
                                  Product(batch), m, n, col_major),
                  xlite::cpu::kStatusOk);
        EXPECT_TRUE(Near(want->tuple_elements()[0],
                         Back(a.shape(), bytes, m, n, col_major)));
        EXPECT_TRUE(Near(want->tuple_elements()[1], taus));
      }
    }
  }
}

TEST(Qr, OrgqrMatchesTheEvaluator) {
  std::mt19937_64 rng(6);
  for (PrimitiveType t : kTypes) {
    for (const auto& [batch, m, n, p] : std::vector<
             std::tuple<std::vector<int64_t>, int64_t, int64_t, int64_t>>{
             {{}, 3, 2, 2},
             {{2}, 5, 5, 5},
             {{2, 2}, 6, 4, 2},
             {{}, 4, 3, 0},
             {{}, 25, 12, 12}}) {
      SCOPED_TRACE(
          absl::StrCat(PrimitiveTypeName(t), " ", m, "x", n, " p=", p));
      const Literal a = RandomLiteral(MatrixShape(t, batch, m, n), rng);
      std::vector<int64_t> tau_dims = batch;
      tau_dims.push_back(p);
      // taus in [0, 2]: the range of Householder taus for real matrices.
      const Literal taus = RandomLiteral(Shape(t, tau_dims), rng, 0, 2);
      const std::string hlo = absl::StrCat(
          "HloModule m\nENTRY e {\n  a = ", a.shape().ToString(false),
          " parameter(0)\n  t = ", taus.shape().ToString(false),
          " parameter(1)\n  ROOT q = ", a.shape().ToString(false),
          " custom-call(a, t), "
          "custom_call_target=\"ProductOfElementaryHouseholderReflectors\"\n}"
          "\n");
      std::vector<Literal> args;
      args.push_back(a);
      args.push_back(taus);
      absl::StatusOr<Literal> want = EvaluateHlo(hlo, args);
      ASSERT_TRUE(want.ok()) << want.status();
      for (bool col_major : {false, true}) {
        SCOPED_TRACE(col_major ? "column-major" : "row-major");
        std::vector<uint8_t> bytes = Bytes(a, m, n, col_major);
        ASSERT_EQ(xlite_cpu_orgqr(static_cast<int32_t>(t), bytes.data(),
                                  taus.data().data(), bytes.data(),
                                  Product(batch), m, n, p, col_major),
                  xlite::cpu::kStatusOk);
        EXPECT_TRUE(Near(*want, Back(a.shape(), bytes, m, n, col_major)));
      }
    }
  }
}

TEST(Qr, OrgqrRejectsWideMatrices) {
  float x[6] = {};
  EXPECT_EQ(xlite_cpu_orgqr(xlite::cpu::kTypeF32, x, x, x, 1, 2, 3, 2, 0),
            xlite::cpu::kStatusInvalidArgument);
}

}  // namespace
}  // namespace xlite
