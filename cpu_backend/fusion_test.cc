// The CPU backend's HLO fusion (instruction_fusion, sibling_fusion,
// reshape_to_bitcast): which instructions end up in which kernel, checked
// on the module PrepareForCpu leaves, and the compiled module against the
// evaluator on random inputs.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "cpu_backend/executable.h"
#include "cpu_backend/runtime_lib/test_support.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"

namespace xlite::cpu {
namespace {

std::unique_ptr<HloModule> Prepared(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return nullptr;
  absl::Status s = PrepareForCpu(**module);
  EXPECT_TRUE(s.ok()) << s;
  return *std::move(module);
}

int Count(const HloComputation* c, HloOpcode opcode) {
  int n = 0;
  for (const HloInstruction* h : c->instructions()) n += h->opcode() == opcode;
  return n;
}

void ExpectSameAsEvaluator(const std::string& text) {
  SCOPED_TRACE(text);
  absl::StatusOr<std::unique_ptr<HloModule>> reference = ParseHloModule(text);
  ASSERT_TRUE(reference.ok()) << reference.status();
  std::mt19937_64 rng(7);
  std::vector<Literal> args;
  for (const HloInstruction* p :
       (*reference)->entry_computation()->parameter_instructions()) {
    args.push_back(rtlib_test::RandomLiteral(p->shape(), rng));
  }
  absl::StatusOr<Literal> want = EvaluateModule(**reference, args);
  ASSERT_TRUE(want.ok()) << want.status();
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok());
  absl::StatusOr<std::unique_ptr<CpuExecutable>> exe =
      CpuExecutable::Compile(*std::move(module));
  ASSERT_TRUE(exe.ok()) << exe.status();
  absl::StatusOr<Literal> got = (*exe)->Run(args);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(rtlib_test::Near(*want, *got));
}

constexpr char kAdd[] =
    "add { x = f32[] parameter(0)\n y = f32[] parameter(1)\n"
    " ROOT s = f32[] add(x, y) }\n";

TEST(CpuFusion, ElementwiseChainIsOneKernelWithNoTemporaries) {
  const std::string text = R"(
HloModule m
ENTRY e {
  x = f32[64,32] parameter(0)
  b = f32[32] parameter(1)
  bb = f32[64,32] broadcast(b), dimensions={1}
  a = f32[64,32] add(x, bb)
  z = f32[64,32] broadcast(f32[] constant(0)), dimensions={}
  ROOT r = f32[64,32] maximum(a, z)
})";
  auto m = Prepared(text);
  ASSERT_NE(m, nullptr);
  const HloComputation* entry = m->entry_computation();
  EXPECT_EQ(entry->root_instruction()->opcode(), HloOpcode::kFusion);
  EXPECT_EQ(entry->instruction_count(), 3);  // two parameters, one kernel
  ExpectSameAsEvaluator(text);
}

// exp feeds two kernels: it is computed once (its own kernel); the cheap
// negate is copied into both of its consumers.
TEST(CpuFusion, ExpensiveProducersAreNeverDuplicated) {
  const std::string text = R"(
HloModule m
ENTRY e {
  x = f32[128] parameter(0)
  n = f32[128] negate(x)
  e = f32[128] exponential(x)
  a = f32[128] add(e, n)
  s = f32[128] subtract(e, n)
  r = f32[128] reverse(a), dimensions={0}
  t = f32[128] reverse(s), dimensions={0}
  ROOT o = (f32[128], f32[128]) tuple(r, t)
})";
  auto m = Prepared(text);
  ASSERT_NE(m, nullptr);
  int exps = 0, negates = 0;
  for (const HloComputation* c : m->computations()) {
    exps += Count(c, HloOpcode::kExp);
    negates += Count(c, HloOpcode::kNegate);
  }
  EXPECT_EQ(exps, 1);
  EXPECT_EQ(negates, 2);
  ExpectSameAsEvaluator(text);
}

// A broadcast reads each element of its operand many times: an expensive
// operand stays materialized, a cheap one is fused.
TEST(CpuFusion, ExpensiveOperandsOfBroadcastsStayMaterialized) {
  const std::string text = R"(
HloModule m
ENTRY e {
  x = f32[16] parameter(0)
  l = f32[16] log(x)
  b = f32[16,16] broadcast(l), dimensions={0}
  n = f32[16] negate(x)
  c = f32[16,16] broadcast(n), dimensions={1}
  ROOT r = f32[16,16] multiply(b, c)
})";
  auto m = Prepared(text);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Count(m->entry_computation(), HloOpcode::kLog) +
                Count(m->entry_computation(), HloOpcode::kFusion),
            2);
  const HloInstruction* root = m->entry_computation()->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kFusion);
  EXPECT_EQ(Count(root->fused_computation(), HloOpcode::kLog), 0);
  EXPECT_EQ(Count(root->fused_computation(), HloOpcode::kNegate), 1);
  ExpectSameAsEvaluator(text);
}

// A reduction kernel takes its elementwise producers; the tree XLA:CPU
// reduces long rows with stays in the kernel.
TEST(CpuFusion, ReductionsFuseTheirProducers) {
  const std::string text = std::string("HloModule m\n") + kAdd + R"(
ENTRY e {
  x = f32[8,1000] parameter(0)
  s = f32[8,1000] multiply(x, x)
  ROOT r = f32[8] reduce(s, f32[] constant(0)), dimensions={1}, to_apply=add
})";
  auto m = Prepared(text);
  ASSERT_NE(m, nullptr);
  const HloInstruction* root = m->entry_computation()->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kFusion);
  EXPECT_EQ(root->attrs().fusion_kind, FusionKind::kInput);
  EXPECT_EQ(m->entry_computation()->instruction_count(), 2);
  ExpectSameAsEvaluator(text);
}

// The update of an in-place dynamic-update-slice fuses, but nothing that
// reads the buffer being updated does: the kernel writes the window only.
TEST(CpuFusion, InPlaceUpdatesKeepTheirBufferUnread) {
  const std::string text = R"(
HloModule m
ENTRY e {
  p = f32[16,8] parameter(0)
  buf = f32[16,8] negate(p)
  i = s32[] parameter(1)
  z = s32[] constant(0)
  row = f32[1,8] dynamic-slice(buf, i, z), dynamic_slice_sizes={1,8}
  u = f32[1,8] multiply(row, row)
  ROOT d = f32[16,8] dynamic-update-slice(buf, u, i, z)
})";
  auto m = Prepared(text);
  ASSERT_NE(m, nullptr);
  const HloInstruction* root = m->entry_computation()->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kFusion);
  const HloInstruction* dus = root->fused_computation()->root_instruction();
  ASSERT_EQ(dus->opcode(), HloOpcode::kDynamicUpdateSlice);
  EXPECT_EQ(dus->operand(0)->opcode(), HloOpcode::kParameter);
  EXPECT_EQ(dus->operand(0)->user_count(), 1);
  ExpectSameAsEvaluator(text);
}

TEST(CpuFusion, ReshapesAndTransposesThatMoveNothingAreBitcasts) {
  const std::string text = R"(
HloModule m
ENTRY e {
  x = f32[4,6]{1,0} parameter(0)
  r = f32[2,2,6]{2,1,0} reshape(x)
  t = f32[6,4]{0,1} transpose(x), dimensions={1,0}
  u = f32[6,4]{1,0} transpose(x), dimensions={1,0}
  ROOT o = (f32[2,2,6], f32[6,4]{0,1}, f32[6,4]) tuple(r, t, u)
})";
  auto m = Prepared(text);
  ASSERT_NE(m, nullptr);
  const HloInstruction* root = m->entry_computation()->root_instruction();
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kBitcast);
  EXPECT_EQ(root->operand(1)->opcode(), HloOpcode::kBitcast);
  EXPECT_NE(root->operand(2)->opcode(), HloOpcode::kBitcast);
  ExpectSameAsEvaluator(text);
}

// Two kernels reading the same array, read together by one instruction,
// become one kernel with two results.
TEST(CpuFusion, SiblingsBecomeOneMultiOutputKernel) {
  const std::string text = std::string("HloModule m\n") + kAdd + R"(
ENTRY e {
  x = f32[32,64] parameter(0)
  e = f32[32,64] exponential(x)
  a = f32[32] reduce(e, f32[] constant(0)), dimensions={1}, to_apply=add
  q = f32[32,64] multiply(e, e)
  b = f32[32] reduce(q, f32[] constant(0)), dimensions={1}, to_apply=add
  ROOT o = (f32[32], f32[32]) tuple(a, b)
})";
  auto m = Prepared(text);
  ASSERT_NE(m, nullptr);
  int multi = 0;
  for (const HloInstruction* h : m->entry_computation()->instructions()) {
    multi += h->opcode() == HloOpcode::kFusion && h->shape().IsTuple();
  }
  EXPECT_EQ(multi, 1);
  ExpectSameAsEvaluator(text);
}

TEST(CpuFusion, LoopBodiesAreFusedToo) {
  const std::string text = std::string("HloModule m\n") + R"(
cond {
  p = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  ROOT lt = pred[] compare(i, s32[] constant(5)), direction=LT
}
body {
  p = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[64] get-tuple-element(p), index=1
  y = f32[64] multiply(x, x)
  h = f32[64] broadcast(f32[] constant(0.5)), dimensions={}
  z = f32[64] multiply(y, h)
  ROOT t = (s32[], f32[64]) tuple(s32[] add(i, s32[] constant(1)), z)
}
ENTRY e {
  x = f32[64] parameter(0)
  init = (s32[], f32[64]) tuple(s32[] constant(0), x)
  w = (s32[], f32[64]) while(init), condition=cond, body=body
  ROOT r = f32[64] get-tuple-element(w), index=1
})";
  auto m = Prepared(text);
  ASSERT_NE(m, nullptr);
  const HloComputation* body = m->GetComputationWithName("body");
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(Count(body, HloOpcode::kMultiply), 0);
  EXPECT_GE(Count(body, HloOpcode::kFusion), 1);
  ExpectSameAsEvaluator(text);
}

}  // namespace
}  // namespace xlite::cpu
