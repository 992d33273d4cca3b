// The buffer pool (kept sets, concurrent runs, huge-page alignment) and a
// compiled module run repeatedly on kept buffers: every run's result is
// its own arguments' result, whatever the previous run left behind.

#include "cpu_backend/buffer_pool.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "cpu_backend/executable.h"
#include "cpu_backend/runtime_lib/test_support.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"

namespace xlite::cpu {
namespace {

TEST(BufferPool, KeepsSetsForLaterRunsAndGivesConcurrentRunsTheirOwn) {
  BufferPool pool({16, -1, int64_t{3} << 20});
  BufferSet first = pool.Take();
  ASSERT_EQ(first.size(), 3u);
  EXPECT_EQ(first[1], nullptr);
  EXPECT_EQ(first[0]->data()[15], 0);  // fresh buffers are zeroed
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first[0]->data()) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first[2]->data()) % (2 << 20), 0u);
  BufferSet second = pool.Take();  // taken while the first is out
  EXPECT_NE(first[0]->data(), second[0]->data());
  const uint8_t* kept = first[2]->data();
  pool.Give(std::move(first));
  BufferSet third = pool.Take();
  EXPECT_EQ(third[2]->data(), kept);
}

TEST(BufferPool, RepeatedRunsOnKeptBuffersMatchTheEvaluator) {
  constexpr char kText[] = R"(
HloModule m
add { x = f32[] parameter(0)
 y = f32[] parameter(1)
 ROOT s = f32[] add(x, y) }
ENTRY e {
  a = f32[64,33] parameter(0)
  b = f32[33,64] parameter(1)
  t = f32[64,33] transpose(b), dimensions={1,0}
  m = f32[64,33] multiply(a, t)
  z = f32[] constant(0)
  r = f32[64] reduce(m, z), dimensions={1}, to_apply=add
  ROOT out = (f32[64,33], f32[64]) tuple(m, r)
})";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kText);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<HloModule>> reference = ParseHloModule(kText);
  ASSERT_TRUE(reference.ok());
  absl::StatusOr<std::unique_ptr<CpuExecutable>> exe =
      CpuExecutable::Compile(*std::move(module));
  ASSERT_TRUE(exe.ok()) << exe.status();
  std::mt19937_64 rng(11);
  for (int run = 0; run < 4; ++run) {
    std::vector<Literal> args;
    for (const HloInstruction* p :
         (*reference)->entry_computation()->parameter_instructions()) {
      args.push_back(rtlib_test::RandomLiteral(p->shape(), rng));
    }
    absl::StatusOr<Literal> want = EvaluateModule(**reference, args);
    ASSERT_TRUE(want.ok()) << want.status();
    absl::StatusOr<Literal> got = (*exe)->Run(args);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(rtlib_test::Near(*want, *got)) << "run " << run;
  }
}

}  // namespace
}  // namespace xlite::cpu
