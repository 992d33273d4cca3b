// xlite_cpu_rng_bit_generator against the evaluator's rng-bit-generator:
// both algorithms and the default, every width, shapes with and without an
// even dimension, u64[2] and u64[3] states (counter carries included).

#include <gtest/gtest.h>

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

void CheckRng(int32_t algorithm, PrimitiveType type,
              const std::vector<int64_t>& dims,
              const std::vector<uint64_t>& state_values) {
  constexpr const char* kNames[] = {"rng_default", "rng_three_fry",
                                    "rng_philox"};
  const int64_t state_size = state_values.size();
  const Shape state_shape(PrimitiveType::kU64, {state_size});
  const Shape bits_shape(type, dims);
  const std::string hlo = absl::StrCat(
      "HloModule m\nENTRY e {\n  p = ", state_shape.ToString(false),
      " parameter(0)\n  ROOT r = (", state_shape.ToString(false), ", ",
      bits_shape.ToString(false), ") rng-bit-generator(p), algorithm=",
      kNames[algorithm], "\n}\n");
  SCOPED_TRACE(hlo);
  const Literal state = FromBytes(state_shape, state_values.data());
  absl::StatusOr<Literal> want = EvaluateHlo(hlo, {&state, 1});
  ASSERT_TRUE(want.ok()) << want.status();
  Literal bits(bits_shape);
  std::vector<uint64_t> new_state(state_size);
  ASSERT_EQ(xlite_cpu_rng_bit_generator(
                algorithm, state_values.data(), state_size, new_state.data(),
                BitWidth(type), dims.size(), dims.data(),
                bits.mutable_data().data()),
            xlite::cpu::kStatusOk);
  EXPECT_EQ(want->tuple_elements()[0], FromBytes(state_shape, new_state.data()));
  EXPECT_EQ(want->tuple_elements()[1], bits);
}

TEST(RngBitGenerator, MatchesTheEvaluatorBitForBit) {
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {1}, {7}, {8}, {3, 5}, {3, 4}, {2, 3, 5}, {5, 1, 3}, {0, 3}};
  const std::vector<std::vector<uint64_t>> states = {
      {42, 7}, {0x0123456789abcdef, ~uint64_t{0} - 2},
      {5, ~uint64_t{0} - 1, 9}, {1, 2, 3, 4}};
  for (int32_t algorithm : {0, 1, 2}) {
    for (PrimitiveType type :
         {PrimitiveType::kU8, PrimitiveType::kU16, PrimitiveType::kU32,
          PrimitiveType::kU64, PrimitiveType::kS32}) {
      for (const auto& dims : shapes) {
        for (const auto& state : states) CheckRng(algorithm, type, dims, state);
      }
    }
  }
}

TEST(RngBitGenerator, RejectsBadArguments) {
  uint64_t state[2] = {1, 2}, out[8];
  const int64_t dims[] = {4};
  EXPECT_EQ(xlite_cpu_rng_bit_generator(1, state, 2, state, 12, 1, dims, out),
            xlite::cpu::kStatusInvalidArgument);
  EXPECT_EQ(xlite_cpu_rng_bit_generator(1, state, 1, state, 32, 1, dims, out),
            xlite::cpu::kStatusInvalidArgument);
  EXPECT_EQ(xlite_cpu_rng_bit_generator(7, state, 2, state, 32, 1, dims, out),
            xlite::cpu::kStatusInvalidArgument);
}

TEST(Scratch, AllocatesAlignedDistinctBlocks) {
  void* a = xlite_cpu_alloc(0);
  void* b = xlite_cpu_alloc(100);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a, b);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 64, 0u);
  xlite_cpu_free(a);
  xlite_cpu_free(b);
  xlite_cpu_free(nullptr);
}

}  // namespace
}  // namespace xlite
