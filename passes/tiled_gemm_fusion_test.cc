// tiled-gemm-fusion: which producers and consumers join a dot's fusion,
// what stays outside, and that the mark survives printing and parsing.
#include "passes/tiled_gemm_fusion.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "hlo/analysis/verifier.h"
#include "hlo/ir/tiled_gemm_config.h"
#include "hlo/text/parser.h"
#include "hlo/text/printer.h"

namespace xlite {
namespace {

std::unique_ptr<HloModule> Parse(const char* text) {
  auto m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? *std::move(m) : nullptr;
}

// The names of the fused computation's instructions, parameters aside
// (the fusion builder suffixes copies: "ac.1" is the copy of "ac").
std::vector<std::string> FusedNames(const HloInstruction* fusion) {
  std::vector<std::string> out;
  for (const HloInstruction* h : fusion->fused_computation()->instructions()) {
    if (h->opcode() == HloOpcode::kParameter) continue;
    out.push_back(h->name().substr(0, h->name().find('.')));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<const HloInstruction*> TiledFusions(const HloModule& m) {
  std::vector<const HloInstruction*> out;
  for (const HloInstruction* h : m.entry_computation()->instructions()) {
    if (IsTiledGemmFusion(*h)) out.push_back(h);
  }
  return out;
}

TEST(TiledGemmFusion, FusesProducersAndBiasReluConvertEpilogue) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  a = bf16[67,257] parameter(0)
  b = bf16[129,257] parameter(1)
  bias = f32[129] parameter(2)
  s = f32[] parameter(3)
  ac = f32[67,257] convert(a)
  sb = f32[67,257] broadcast(s), dimensions={}
  as = f32[67,257] multiply(ac, sb)
  bc = f32[129,257] convert(b)
  bt = f32[257,129] transpose(bc), dimensions={1,0}
  dot = f32[67,129] dot(as, bt), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[67,129] broadcast(bias), dimensions={1}
  add = f32[67,129] add(dot, bb)
  zero = f32[] constant(0)
  zeros = f32[67,129] broadcast(zero), dimensions={}
  relu = f32[67,129] maximum(add, zeros)
  ROOT out = bf16[67,129] convert(relu)
})");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<bool> changed = RunTiledGemmFusion(*m);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  ASSERT_TRUE(VerifyModule(*m).ok()) << PrintModule(*m);
  const HloInstruction* root = m->entry_computation()->root_instruction();
  ASSERT_TRUE(IsTiledGemmFusion(*root)) << PrintModule(*m);
  EXPECT_EQ(root->attrs().fusion_kind, FusionKind::kCustom);
  EXPECT_EQ(FusedNames(root), (std::vector<std::string>{
                                  "ac", "add", "as", "bb", "bc", "bt", "dot",
                                  "out", "relu", "sb", "zero", "zeros"}));
  // Only the parameters stay outside.
  EXPECT_EQ(m->entry_computation()->instruction_count(), 5);
  // The mark survives printing and parsing.
  auto again = ParseHloModule(PrintModule(*m));
  ASSERT_TRUE(again.ok()) << again.status();
  const HloInstruction* parsed =
      (*again)->entry_computation()->root_instruction();
  ASSERT_TRUE(IsTiledGemmFusion(*parsed));
  EXPECT_EQ(TiledGemmConfigOf(*parsed), TiledGemmConfig{});
}

TEST(TiledGemmFusion, GeluWithSharedPreActivationIsOneEpilogue) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  a = f32[8,16] parameter(0)
  b = f32[16,4] parameter(1)
  x = f32[8,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  x2 = f32[8,4] multiply(x, x)
  x3 = f32[8,4] multiply(x2, x)
  c = f32[] constant(0.044715)
  cb = f32[8,4] broadcast(c), dimensions={}
  t0 = f32[8,4] multiply(x3, cb)
  t1 = f32[8,4] add(x, t0)
  th = f32[8,4] tanh(t1)
  ROOT g = f32[8,4] multiply(x, th)
})");
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(RunTiledGemmFusion(*m).ok());
  const HloInstruction* root = m->entry_computation()->root_instruction();
  ASSERT_TRUE(IsTiledGemmFusion(*root)) << PrintModule(*m);
  EXPECT_EQ(FusedNames(root),
            (std::vector<std::string>{"c", "cb", "g", "t0", "t1", "th", "x",
                                      "x2", "x3"}));
}

TEST(TiledGemmFusion, LeavesSharedProducersAndOtherUsersOutside) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  a = f16[4,3,5] parameter(0)
  b = f16[4,5,6] parameter(1)
  ac = f32[4,3,5] convert(a)
  bc = f32[4,5,6] convert(b)
  dot = f32[4,3,6] dot(ac, bc), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
  e1 = f32[4,3,6] exponential(dot)
  ROOT t = (f32[4,3,5], f32[4,3,6], f32[4,3,6]) tuple(ac, dot, e1)
})");
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(RunTiledGemmFusion(*m).ok());
  ASSERT_TRUE(VerifyModule(*m).ok());
  std::vector<const HloInstruction*> fusions = TiledFusions(*m);
  ASSERT_EQ(fusions.size(), 1u) << PrintModule(*m);
  // ac is read outside: not fused; the dot has two users: no epilogue.
  EXPECT_EQ(FusedNames(fusions[0]), (std::vector<std::string>{"bc", "dot"}));
}

// Dead epilogue steps (no users, left where no dead code elimination ran)
// stay outside: fused, nothing would lead from them to the fusion's root,
// and the kernel refused the fusion (the gpu-emulator differential fuzzer,
// dot fusion shapes without passes, seed 5184).
TEST(TiledGemmFusion, LeavesDeadEpilogueStepsOutside) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  a = s8[20,256]{0,1} parameter(0)
  b = s8[23,256]{0,1} parameter(1)
  dot = s32[20,23] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  m1 = s32[] constant(-1)
  m1s = s32[20,23] broadcast(m1), dimensions={}
  dead = s32[20,23] multiply(dot, m1s)
  ROOT neg = s32[20,23] negate(dot)
})");
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(RunTiledGemmFusion(*m).ok());
  ASSERT_TRUE(VerifyModule(*m).ok());
  std::vector<const HloInstruction*> fusions = TiledFusions(*m);
  ASSERT_EQ(fusions.size(), 1u) << PrintModule(*m);
  // The dot is read outside (by the dead multiply): no epilogue.
  EXPECT_EQ(FusedNames(fusions[0]), (std::vector<std::string>{"dot"}));
}

// A dead end deeper in the epilogue: the steps up to the value read
// outside are fused, the rest stays outside (seed 5778).
TEST(TiledGemmFusion, FusesTheEpilogueUpToADeadBranch) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  a = f32[16,29] parameter(0)
  b = f32[16,59] parameter(1)
  dot = f32[29,59] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  two = f32[] constant(2)
  twos = f32[29,59] broadcast(two), dimensions={}
  scaled = f32[29,59] multiply(dot, twos)
  sig = f32[29,59] logistic(scaled)
  silu = f32[29,59] multiply(scaled, sig)
  dead = f16[29,59] convert(silu)
  ROOT neg = f32[29,59]{0,1} negate(scaled)
})");
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(RunTiledGemmFusion(*m).ok());
  ASSERT_TRUE(VerifyModule(*m).ok());
  std::vector<const HloInstruction*> fusions = TiledFusions(*m);
  ASSERT_EQ(fusions.size(), 1u) << PrintModule(*m);
  EXPECT_EQ(FusedNames(fusions[0]),
            (std::vector<std::string>{"dot", "scaled", "two", "twos"}));
}

TEST(TiledGemmFusion, SkipsTypesTheKernelDoesNotCompute) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  a = c64[3,5] parameter(0)
  b = c64[5,4] parameter(1)
  ROOT d = c64[3,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<bool> changed = RunTiledGemmFusion(*m);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
}

TEST(TiledGemmConfig, ReadsPrettyPrintedAndRejectsInvalidTilings) {
  TiledGemmConfig c;
  c.block_m = 32;
  EXPECT_TRUE(c.IsValid());
  c.thread_m = 5;
  EXPECT_FALSE(c.IsValid());
}

}  // namespace
}  // namespace xlite
