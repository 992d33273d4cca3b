// xlite_cpu_fft against the evaluator's fft on random operands: every
// fft_type, 1 to 3 transformed dimensions, even, odd, prime and unit
// lengths, both precisions.

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

constexpr const char* kFftTypeNames[] = {"FFT", "IFFT", "RFFT", "IRFFT"};

// Runs an fft of `fft_type` over `dims` (the logical, full-length shape)
// whose last `fft_rank` dimensions are transformed.
void CheckFft(bool double_precision, int32_t fft_type,
              const std::vector<int64_t>& dims, int64_t fft_rank,
              std::mt19937_64& rng) {
  const PrimitiveType complex_type =
      double_precision ? PrimitiveType::kC128 : PrimitiveType::kC64;
  const PrimitiveType real_type =
      double_precision ? PrimitiveType::kF64 : PrimitiveType::kF32;
  const std::vector<int64_t> lengths(dims.end() - fft_rank, dims.end());
  std::vector<int64_t> half = dims;
  half.back() = dims.back() / 2 + 1;
  Shape in, out;
  switch (fft_type) {
    case xlite::cpu::kFftRealForward:
      in = Shape(real_type, dims);
      out = Shape(complex_type, half);
      break;
    case xlite::cpu::kFftRealInverse:
      in = Shape(complex_type, half);
      out = Shape(real_type, dims);
      break;
    default:
      in = Shape(complex_type, dims);
      out = in;
      break;
  }
  const std::string hlo =
      absl::StrCat("HloModule m\nENTRY e {\n  p = ", in.ToString(false),
                   " parameter(0)\n  ROOT f = ", out.ToString(false),
                   " fft(p), fft_type=", kFftTypeNames[fft_type],
                   ", fft_length={", absl::StrJoin(lengths, ","), "}\n}\n");
  SCOPED_TRACE(hlo);
  const Literal input = RandomLiteral(in, rng);
  absl::StatusOr<Literal> want = EvaluateHlo(hlo, {&input, 1});
  ASSERT_TRUE(want.ok()) << want.status();
  int64_t batch = 1;
  for (size_t d = 0; d + fft_rank < dims.size(); ++d) batch *= dims[d];
  Literal got(out);
  ASSERT_EQ(xlite_cpu_fft(static_cast<int32_t>(complex_type), fft_type,
                          input.data().data(), got.mutable_data().data(), batch,
                          fft_rank, lengths.data()),
            xlite::cpu::kStatusOk);
  EXPECT_TRUE(Near(*want, got));
}

TEST(Fft, EveryTypeRankAndLengthMatchesTheEvaluator) {
  std::mt19937_64 rng(1);
  const std::vector<std::pair<std::vector<int64_t>, int64_t>> cases = {
      {{8}, 1},         {{1}, 1},          {{3, 7}, 1},       {{2, 64}, 1},
      {{100}, 1},       {{13}, 1},         {{1, 8}, 2},       {{3, 4, 6}, 2},
      {{5, 9}, 2},      {{2, 3, 5, 4}, 3}, {{4, 2, 1, 3}, 3}, {{2, 6, 1}, 2},
      {{2, 16, 16}, 2},
  };
  for (bool double_precision : {false, true}) {
    for (int32_t fft_type = 0; fft_type < 4; ++fft_type) {
      for (const auto& [dims, rank] : cases) {
        CheckFft(double_precision, fft_type, dims, rank, rng);
      }
    }
  }
}

TEST(Fft, RejectsBadArguments) {
  const int64_t lengths[] = {4, 4, 4, 4};
  float x[32] = {};
  EXPECT_EQ(xlite_cpu_fft(xlite::cpu::kTypeF32, 0, x, x, 1, 1, lengths),
            xlite::cpu::kStatusUnsupportedType);
  EXPECT_EQ(xlite_cpu_fft(xlite::cpu::kTypeC64, 0, x, x, 1, 4, lengths),
            xlite::cpu::kStatusInvalidArgument);
  EXPECT_EQ(xlite_cpu_fft(xlite::cpu::kTypeC64, 4, x, x, 1, 1, lengths),
            xlite::cpu::kStatusInvalidArgument);
}

}  // namespace
}  // namespace xlite
