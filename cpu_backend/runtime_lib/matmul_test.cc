// xlite_cpu_matmul against the evaluator's dot on random operands.

#include <gtest/gtest.h>

#include <array>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "cpu_backend/runtime_lib/runtime_lib.h"
#include "cpu_backend/runtime_lib/test_support.h"

namespace xlite {
namespace {

using rtlib_test::EvaluateHlo;
using rtlib_test::FromBytes;
using rtlib_test::Near;
using rtlib_test::RandomLiteral;

struct Case {
  PrimitiveType type;
  int64_t batch, m, k, n;
  bool transpose_lhs, transpose_rhs;
};

void Check(const Case& c, std::mt19937_64& rng) {
  const std::string t(PrimitiveTypeName(c.type));
  const Shape lhs_shape(c.type, c.transpose_lhs
                                    ? std::vector<int64_t>{c.batch, c.k, c.m}
                                    : std::vector<int64_t>{c.batch, c.m, c.k});
  const Shape rhs_shape(c.type, c.transpose_rhs
                                    ? std::vector<int64_t>{c.batch, c.n, c.k}
                                    : std::vector<int64_t>{c.batch, c.k, c.n});
  const Shape out_shape(c.type, {c.batch, c.m, c.n});
  const std::string hlo = absl::StrCat(
      "HloModule m\nENTRY e {\n  a = ", lhs_shape.ToString(false),
      " parameter(0)\n  b = ", rhs_shape.ToString(false),
      " parameter(1)\n  ROOT d = ", out_shape.ToString(false),
      " dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={",
      c.transpose_lhs ? 1 : 2, "}, rhs_batch_dims={0}, rhs_contracting_dims={",
      c.transpose_rhs ? 2 : 1, "}\n}\n");
  std::vector<Literal> args;
  args.push_back(RandomLiteral(lhs_shape, rng));
  args.push_back(RandomLiteral(rhs_shape, rng));
  absl::StatusOr<Literal> want = EvaluateHlo(hlo, args);
  ASSERT_TRUE(want.ok()) << want.status() << "\n" << hlo;
  Literal got(out_shape);
  ASSERT_EQ(xlite_cpu_matmul(static_cast<int32_t>(c.type),
                             args[0].data().data(), args[1].data().data(),
                             got.mutable_data().data(), c.batch, c.m, c.k, c.n,
                             c.transpose_lhs, c.transpose_rhs),
            xlite::cpu::kStatusOk);
  EXPECT_TRUE(Near(*want, got)) << hlo;
}

TEST(Matmul, MatchesTheEvaluatorForEveryTypeAndTransposition) {
  std::mt19937_64 rng(1);
  for (PrimitiveType type : {PrimitiveType::kF32, PrimitiveType::kF64,
                             PrimitiveType::kC64, PrimitiveType::kC128}) {
    for (int tl = 0; tl < 2; ++tl) {
      for (int tr = 0; tr < 2; ++tr) {
        for (const auto& [batch, m, k, n] : std::vector<std::array<int64_t, 4>>{
                 {1, 1, 1, 1}, {3, 5, 7, 2}, {2, 33, 65, 17}, {1, 4, 0, 3}}) {
          SCOPED_TRACE(absl::StrCat(PrimitiveTypeName(type), " tl=", tl, " tr=",
                                    tr, " ", batch, "x", m, "x", k, "x", n));
          Check({type, batch, m, k, n, tl == 1, tr == 1}, rng);
        }
      }
    }
  }
}

TEST(Matmul, LargeF32ProductStaysWithinTheCorpusTolerance) {
  std::mt19937_64 rng(2);
  Check({PrimitiveType::kF32, 2, 130, 300, 70, false, true}, rng);
}

TEST(Matmul, RejectsOtherTypesAndNegativeSizes) {
  float x = 1;
  EXPECT_EQ(xlite_cpu_matmul(static_cast<int32_t>(PrimitiveType::kS32), &x, &x,
                             &x, 1, 1, 1, 1, 0, 0),
            xlite::cpu::kStatusUnsupportedType);
  EXPECT_EQ(
      xlite_cpu_matmul(xlite::cpu::kTypeF32, &x, &x, &x, 1, -1, 1, 1, 0, 0),
      xlite::cpu::kStatusInvalidArgument);
}

}  // namespace
}  // namespace xlite
