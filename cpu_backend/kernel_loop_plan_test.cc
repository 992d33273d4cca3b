// The compile-time rules of kernel_loop_plan: which operand reads make a
// kernel walk its result in tiles, and how many tasks a kernel is worth.

#include "cpu_backend/kernel_loop_plan.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "hlo/ir/module.h"
#include "hlo/text/parser.h"

namespace xlite::cpu {
namespace {

std::unique_ptr<HloModule> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

// The tiling of `module`'s entry root (a fusion or a single instruction).
std::optional<codegen::Tiling> TilingOfRoot(const HloModule& module) {
  const HloInstruction* kernel = module.entry_computation()->root_instruction();
  const HloInstruction* value =
      kernel->opcode() == HloOpcode::kFusion
          ? kernel->fused_computation()->root_instruction()
          : kernel;
  return ChooseTiling(kernel, {value}, kernel->shape());
}

constexpr char kTransposeAdd[] = R"(
HloModule m
f {
  p0 = f32[512,256]{1,0} parameter(0)
  p1 = f32[256,512]{1,0} parameter(1)
  t = f32[256,512]{1,0} transpose(p0), dimensions={1,0}
  ROOT a = f32[256,512]{1,0} add(t, p1)
}
ENTRY e {
  x = f32[512,256]{1,0} parameter(0)
  y = f32[256,512]{1,0} parameter(1)
  ROOT r = f32[256,512]{1,0} fusion(x, y), kind=kLoop, calls=f
})";

TEST(KernelLoopPlan, TransposedOperandTilesResultMinorAndItsMinor) {
  auto m = Parse(kTransposeAdd);
  ASSERT_NE(m, nullptr);
  std::optional<codegen::Tiling> t = TilingOfRoot(*m);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->minor, 1);
  EXPECT_EQ(t->other, 0);
  EXPECT_EQ(t->tile, kTileSize);
}

TEST(KernelLoopPlan, LayoutChangingBitcastIsFollowedPhysically) {
  // x.T as a bitcast into a {0,1} result: x is read along the result's
  // layout, y (row-major) across it.
  auto m = Parse(R"(
HloModule m
f {
  p0 = f32[512,256]{1,0} parameter(0)
  b = f32[256,512]{0,1} bitcast(p0)
  p1 = f32[256,512]{1,0} parameter(1)
  ROOT a = f32[256,512]{0,1} add(b, p1)
}
ENTRY e {
  x = f32[512,256]{1,0} parameter(0)
  y = f32[256,512]{1,0} parameter(1)
  ROOT r = f32[256,512]{0,1} fusion(x, y), kind=kLoop, calls=f
})");
  ASSERT_NE(m, nullptr);
  std::optional<codegen::Tiling> t = TilingOfRoot(*m);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->minor, 0);
  EXPECT_EQ(t->other, 1);
}

TEST(KernelLoopPlan, ElementwiseAndBroadcastReadsAreNotTiled) {
  auto m = Parse(R"(
HloModule m
f {
  p0 = f32[256,512] parameter(0)
  p1 = f32[512] parameter(1)
  b = f32[256,512] broadcast(p1), dimensions={1}
  ROOT a = f32[256,512] add(p0, b)
}
ENTRY e {
  x = f32[256,512] parameter(0)
  y = f32[512] parameter(1)
  ROOT r = f32[256,512] fusion(x, y), kind=kLoop, calls=f
})");
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(TilingOfRoot(*m).has_value());
}

TEST(KernelLoopPlan, UnfusedCopyIntoAnotherLayoutIsTiled) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  x = f32[300,400]{1,0} parameter(0)
  ROOT c = f32[300,400]{0,1} copy(x)
})");
  ASSERT_NE(m, nullptr);
  std::optional<codegen::Tiling> t = TilingOfRoot(*m);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->minor, 0);
  EXPECT_EQ(t->other, 1);
}

TEST(KernelLoopPlan, SmallTransposedOperandIsReadFromCache) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  x = f32[64,64] parameter(0)
  ROOT t = f32[64,64] transpose(x), dimensions={1,0}
})");
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(TilingOfRoot(*m).has_value());
}

TEST(KernelLoopPlan, TasksByTrafficAndNoneForSmallKernels) {
  auto m = Parse(kTransposeAdd);
  ASSERT_NE(m, nullptr);
  // Three 512 KiB arrays.
  EXPECT_EQ(MaxTasks(m->entry_computation()->root_instruction()),
            3 * (512 << 10) / kBytesPerTask);
  auto small = Parse(R"(
HloModule m
ENTRY e {
  x = f32[100,100] parameter(0)
  ROOT n = f32[100,100] negate(x)
})");
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(MaxTasks(small->entry_computation()->root_instruction()), 1);
}

}  // namespace
}  // namespace xlite::cpu
