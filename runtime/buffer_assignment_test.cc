#include "runtime/buffer_assignment.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "hlo/analysis/verifier.h"
#include "hlo/text/parser.h"
#include "runtime/alias_analysis.h"

namespace xlite::runtime {
namespace {

std::unique_ptr<HloModule> Parse(const std::string& text) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status().message();
  if (!module.ok()) return nullptr;
  EXPECT_TRUE(VerifyModule(**module).ok()) << VerifyModule(**module).message();
  return *std::move(module);
}

const HloInstruction* Find(const HloModule& m, const std::string& name) {
  for (const HloComputation* c : m.computations()) {
    if (const HloInstruction* h = c->GetInstructionWithName(name)) return h;
  }
  ADD_FAILURE() << "no instruction " << name;
  return nullptr;
}

Slice SliceOf(const BufferAssignment& ba, const HloModule& m,
              const std::string& name, const ShapeIndex& index = {}) {
  absl::StatusOr<Slice> s = ba.GetSlice(Find(m, name), index);
  EXPECT_TRUE(s.ok()) << name << ": " << s.status().message();
  return s.ok() ? *s : Slice{};
}

bool Disjoint(const Slice& a, const Slice& b) {
  return a.allocation != b.allocation || a.offset + a.size <= b.offset ||
         b.offset + b.size <= a.offset;
}

int CountOpcode(const HloModule& m, HloOpcode opcode) {
  int n = 0;
  for (const HloComputation* c : m.computations()) {
    for (const HloInstruction* h : c->instructions()) n += h->opcode() == opcode;
  }
  return n;
}

BufferAssignment Assign(HloModule& m, bool insert_copies = true) {
  if (insert_copies) {
    absl::StatusOr<bool> copied = InsertCopies(m);
    EXPECT_TRUE(copied.ok()) << copied.status().message();
    EXPECT_TRUE(VerifyModule(m).ok()) << VerifyModule(m).message();
  }
  absl::StatusOr<BufferAssignment> ba = BufferAssignment::Build(m);
  EXPECT_TRUE(ba.ok()) << ba.status().message();
  return *std::move(ba);
}

// A counter and a pass-through array: the loop state is one buffer per
// leaf (init, parameters, root and result), the pass-through leaf needs no
// copy.
constexpr char kWhilePassThrough[] = R"(
HloModule m

cond {
  p = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  p = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  x = f32[64] get-tuple-element(p), index=1
  ROOT t = (s32[], f32[64]) tuple(next, x)
}

ENTRY e {
  a = f32[64] parameter(0)
  x0 = f32[64] negate(a)
  zero = s32[] constant(0)
  i0 = s32[] negate(zero)
  init = (s32[], f32[64]) tuple(i0, x0)
  w = (s32[], f32[64]) while(init), condition=cond, body=body
  r = f32[64] get-tuple-element(w), index=1
  ROOT o = f32[64] exponential(r)
}
)";

TEST(BufferAssignment, WhileStateIsOneBufferPerLeaf) {
  auto m = Parse(kWhilePassThrough);
  ASSERT_NE(m, nullptr);
  BufferAssignment ba = Assign(*m);
  for (const ShapeIndex& leaf : {ShapeIndex{0}, ShapeIndex{1}}) {
    const Slice result = SliceOf(ba, *m, "w", leaf);
    EXPECT_EQ(SliceOf(ba, *m, "init", leaf), result);
    EXPECT_EQ(SliceOf(ba, *m, "p", leaf), result);   // body parameter
    EXPECT_EQ(SliceOf(ba, *m, "p.1", leaf), result); // condition's
    EXPECT_EQ(ba.GetSlice(m->GetComputationWithName("body")->root_instruction(),
                          leaf)
                  .value(),
              result);
  }
  // The counter lives in the arena; the array leaf dies where the
  // exponential reads it at its own index, so the output is written over
  // it and the loop runs in the output's bytes.
  EXPECT_EQ(SliceOf(ba, *m, "w", {0}).allocation, ba.temp_allocation());
  EXPECT_EQ(SliceOf(ba, *m, "w", {1}), SliceOf(ba, *m, "o", {}));
  EXPECT_EQ(SliceOf(ba, *m, "x", {}), SliceOf(ba, *m, "w", {1}));
  EXPECT_EQ(SliceOf(ba, *m, "w", {1}).size, 256);
  EXPECT_EQ(SliceOf(ba, *m, "w", {0}).size, 4);
  // Nothing is copied: the pass-through array stays where it is, and the
  // add reads the old counter only at the element it writes the new one.
  EXPECT_EQ(CountOpcode(*m, HloOpcode::kCopy), 0);
  EXPECT_EQ(SliceOf(ba, *m, "next", {}), SliceOf(ba, *m, "w", {0}));
  EXPECT_TRUE(ba.IsSequential(m->GetComputationWithName("body")));
  EXPECT_EQ(ba.Schedule(m->GetComputationWithName("body")).size(),
            m->GetComputationWithName("body")->instruction_count());
}

constexpr char kWhileSwap[] = R"(
HloModule m

cond {
  p = (f32[16], f32[16]) parameter(0)
  ROOT t = pred[] constant(false)
}

body {
  p = (f32[16], f32[16]) parameter(0)
  a = f32[16] get-tuple-element(p), index=0
  b = f32[16] get-tuple-element(p), index=1
  ROOT t = (f32[16], f32[16]) tuple(b, a)
}

ENTRY e {
  x = f32[16] parameter(0)
  y = f32[16] parameter(1)
  x1 = f32[16] negate(x)
  y1 = f32[16] negate(y)
  init = (f32[16], f32[16]) tuple(x1, y1)
  ROOT w = (f32[16], f32[16]) while(init), condition=cond, body=body
}
)";

TEST(BufferAssignment, SwappedLoopStateFailsWithoutCopies) {
  auto m = Parse(kWhileSwap);
  ASSERT_NE(m, nullptr);
  absl::StatusOr<BufferAssignment> ba = BufferAssignment::Build(*m);
  ASSERT_FALSE(ba.ok());
  EXPECT_NE(ba.status().message().find("InsertCopies"), std::string::npos)
      << ba.status().message();
}

TEST(BufferAssignment, SwappedLoopStateGetsCopies) {
  auto m = Parse(kWhileSwap);
  ASSERT_NE(m, nullptr);
  BufferAssignment ba = Assign(*m);
  EXPECT_GE(CountOpcode(*m, HloOpcode::kCopy), 2);
  EXPECT_NE(SliceOf(ba, *m, "w", {0}), SliceOf(ba, *m, "w", {1}));
  EXPECT_EQ(SliceOf(ba, *m, "w", {0}), SliceOf(ba, *m, "init", {0}));
  // The result is the entry's output: its own allocations.
  EXPECT_EQ(ba.allocations()[SliceOf(ba, *m, "w", {0}).allocation].kind,
            Allocation::Kind::kOutput);
  // Running InsertCopies again changes nothing.
  absl::StatusOr<bool> again = InsertCopies(*m);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
}

TEST(BufferAssignment, WhileInitFromParameterOrConstantIsCopied) {
  auto m = Parse(R"(
HloModule m

cond {
  p = (f32[8], f32[8]) parameter(0)
  ROOT t = pred[] constant(false)
}

body {
  p = (f32[8], f32[8]) parameter(0)
  a = f32[8] get-tuple-element(p), index=0
  b = f32[8] get-tuple-element(p), index=1
  s = f32[8] add(a, b)
  ROOT t = (f32[8], f32[8]) tuple(s, b)
}

ENTRY e {
  x = f32[8] parameter(0)
  c = f32[8] constant({1, 2, 3, 4, 5, 6, 7, 8})
  init = (f32[8], f32[8]) tuple(x, c)
  w = (f32[8], f32[8]) while(init), condition=cond, body=body
  ROOT r = f32[8] get-tuple-element(w), index=0
}
)");
  ASSERT_NE(m, nullptr);
  BufferAssignment ba = Assign(*m);
  const HloInstruction* init = Find(*m, "w")->operand(0);
  EXPECT_EQ(init->operand(0)->opcode(), HloOpcode::kCopy);
  // The loop only reads leaf 1 and nothing reads it afterwards: the
  // constant's own bytes serve as that state.
  EXPECT_EQ(init->operand(1)->opcode(), HloOpcode::kConstant);
  EXPECT_EQ(SliceOf(ba, *m, "c"), SliceOf(ba, *m, "w", {1}));
  EXPECT_NE(SliceOf(ba, *m, "x"), SliceOf(ba, *m, "w", {0}));
  EXPECT_EQ(ba.allocations()[SliceOf(ba, *m, "x").allocation].kind,
            Allocation::Kind::kParameter);
  EXPECT_EQ(ba.allocations()[SliceOf(ba, *m, "c").allocation].kind,
            Allocation::Kind::kConstant);
}

TEST(BufferAssignment, WhileInitLiveAfterTheLoopIsCopied) {
  auto m = Parse(R"(
HloModule m

cond {
  p = (f32[8]) parameter(0)
  ROOT t = pred[] constant(false)
}

body {
  p = (f32[8]) parameter(0)
  a = f32[8] get-tuple-element(p), index=0
  s = f32[8] negate(a)
  ROOT t = (f32[8]) tuple(s)
}

ENTRY e {
  x = f32[8] parameter(0)
  v = f32[8] negate(x)
  init = (f32[8]) tuple(v)
  w = (f32[8]) while(init), condition=cond, body=body
  r = f32[8] get-tuple-element(w), index=0
  ROOT o = f32[8] add(r, v)
}
)");
  ASSERT_NE(m, nullptr);
  BufferAssignment ba = Assign(*m);
  EXPECT_EQ(Find(*m, "w")->operand(0)->operand(0)->opcode(),
            HloOpcode::kCopy);
  EXPECT_TRUE(Disjoint(SliceOf(ba, *m, "v"), SliceOf(ba, *m, "w", {0})));
}

TEST(BufferAssignment, TwoLoopsSharingABodyAreFlattened) {
  auto m = Parse(R"(
HloModule m

cond {
  p = (f32[8]) parameter(0)
  ROOT t = pred[] constant(false)
}

body {
  p = (f32[8]) parameter(0)
  a = f32[8] get-tuple-element(p), index=0
  s = f32[8] negate(a)
  ROOT t = (f32[8]) tuple(s)
}

ENTRY e {
  x = f32[8] parameter(0)
  v = f32[8] negate(x)
  init = (f32[8]) tuple(v)
  w = (f32[8]) while(init), condition=cond, body=body
  w2 = (f32[8]) while(w), condition=cond, body=body
  ROOT r = f32[8] get-tuple-element(w2), index=0
}
)");
  ASSERT_NE(m, nullptr);
  // Without flattening, the shared body has two callers.
  absl::StatusOr<BufferAssignment> shared = BufferAssignment::Build(*m);
  ASSERT_FALSE(shared.ok());
  EXPECT_NE(shared.status().message().find("%body"), std::string::npos)
      << shared.status().message();
  BufferAssignment ba = Assign(*m);
  EXPECT_NE(Find(*m, "w")->while_body(), Find(*m, "w2")->while_body());
  EXPECT_NE(Find(*m, "w")->while_condition(),
            Find(*m, "w2")->while_condition());
  EXPECT_TRUE(ba.IsSequential(Find(*m, "w2")->while_body()));
}

constexpr char kConditional[] = R"(
HloModule m

yes {
  p = (f32[32]) parameter(0)
  a = f32[32] get-tuple-element(p), index=0
  n = f32[32] negate(a)
  ROOT t = (f32[32]) tuple(n)
}

no {
  p = (f32[32]) parameter(0)
  a = f32[32] get-tuple-element(p), index=0
  ROOT t = (f32[32]) tuple(a)
}

ENTRY e {
  b = pred[] parameter(0)
  x = f32[32] parameter(1)
  v = f32[32] exponential(x)
  arg = (f32[32]) tuple(v)
  c = (f32[32]) conditional(b, arg, arg), true_computation=yes, false_computation=no
  r = f32[32] get-tuple-element(c), index=0
  ROOT o = f32[32] sine(r)
}
)";

TEST(BufferAssignment, ConditionalResultIsItsBranchRoots) {
  auto m = Parse(kConditional);
  ASSERT_NE(m, nullptr);
  BufferAssignment ba = Assign(*m);
  const Slice result = SliceOf(ba, *m, "c", {0});
  EXPECT_EQ(SliceOf(ba, *m, "n"), result);
  // The branch that forwards its parameter returns a copy of it.
  const HloInstruction* no_root =
      m->GetComputationWithName("no")->root_instruction();
  EXPECT_EQ(no_root->operand(0)->opcode(), HloOpcode::kCopy);
  EXPECT_EQ(ba.GetSlice(no_root->operand(0)).value(), result);
  // The operand, read in place by both branches, is not the result.
  EXPECT_TRUE(Disjoint(SliceOf(ba, *m, "v"), result));
  EXPECT_EQ(SliceOf(ba, *m, "a"), SliceOf(ba, *m, "v"));
}

TEST(BufferAssignment, CallResultIsTheCalleeRoot) {
  auto m = Parse(R"(
HloModule m

f {
  p = f32[16] parameter(0)
  q = f32[16] parameter(1)
  ROOT s = f32[16] add(p, q)
}

g {
  p = f32[16] parameter(0)
  ROOT same = f32[16] bitcast(p)
}

ENTRY e {
  x = f32[16] parameter(0)
  v = f32[16] negate(x)
  c = f32[16] call(v, v), to_apply=f
  d = f32[16] call(c), to_apply=g
  ROOT o = f32[16] sine(d)
}
)");
  ASSERT_NE(m, nullptr);
  BufferAssignment ba = Assign(*m);
  EXPECT_EQ(SliceOf(ba, *m, "c"), SliceOf(ba, *m, "s"));
  EXPECT_EQ(SliceOf(ba, *m, "p"), SliceOf(ba, *m, "v"));
  // g returns its parameter: the call's result is a copy of it.
  EXPECT_EQ(m->GetComputationWithName("g")->root_instruction()->opcode(),
            HloOpcode::kCopy);
  EXPECT_TRUE(Disjoint(SliceOf(ba, *m, "d"), SliceOf(ba, *m, "c")));
}

constexpr char kDus[] = R"(
HloModule m

ENTRY e {
  x = f32[128] parameter(0)
  u = f32[4] parameter(1)
  i = s32[] parameter(2)
  a = f32[128] negate(x)
  d = f32[128] dynamic-update-slice(a, u, i)
  ROOT o = f32[128] sine(d)
}
)";

TEST(BufferAssignment, DynamicUpdateSliceIsInPlaceWhenItsOperandDies) {
  auto m = Parse(kDus);
  ASSERT_NE(m, nullptr);
  BufferAssignment ba = Assign(*m);
  EXPECT_EQ(SliceOf(ba, *m, "a"), SliceOf(ba, *m, "d"));
  EXPECT_EQ(CountOpcode(*m, HloOpcode::kCopy), 0);
}

TEST(BufferAssignment, DynamicUpdateSliceIsNotInPlaceWhileItsOperandLives) {
  auto m = Parse(R"(
HloModule m

ENTRY e {
  x = f32[128] parameter(0)
  u = f32[4] parameter(1)
  i = s32[] parameter(2)
  a = f32[128] negate(x)
  d = f32[128] dynamic-update-slice(a, u, i)
  s = f32[128] add(d, a)
  ROOT o = f32[128] sine(s)
}
)");
  ASSERT_NE(m, nullptr);
  BufferAssignment ba = Assign(*m);
  EXPECT_TRUE(Disjoint(SliceOf(ba, *m, "a"), SliceOf(ba, *m, "d")));
  // No copy is inserted for it: the generated code copies, then updates.
  EXPECT_EQ(CountOpcode(*m, HloOpcode::kCopy), 0);
}

TEST(BufferAssignment, DynamicUpdateSliceIsNotInPlaceAcrossLayouts) {
  // The operand's bytes are column-major, the result's row-major: writing
  // the result over them would scramble it (XLA shares a buffer with an
  // operand only at the same shape and layout).
  auto m = Parse(R"(
HloModule m

ENTRY e {
  x = f32[16,8]{1,0} parameter(0)
  u = f32[1,1] parameter(1)
  i = s32[] parameter(2)
  a = f32[16,8]{0,1} negate(x)
  d = f32[16,8]{1,0} dynamic-update-slice(a, u, i, i)
  ROOT o = f32[16,8]{1,0} sine(d)
}
)");
  ASSERT_NE(m, nullptr);
  BufferAssignment ba = Assign(*m);
  EXPECT_TRUE(Disjoint(SliceOf(ba, *m, "a"), SliceOf(ba, *m, "d")));
}

TEST(BufferAssignment, DynamicUpdateSliceOfAnEntryParameterIsNotInPlace) {
  auto m = Parse(R"(
HloModule m

ENTRY e {
  x = f32[128] parameter(0)
  u = f32[4] parameter(1)
  i = s32[] parameter(2)
  ROOT d = f32[128] dynamic-update-slice(x, u, i)
}
)");
  ASSERT_NE(m, nullptr);
  BufferAssignment ba = Assign(*m);
  EXPECT_NE(SliceOf(ba, *m, "x").allocation, SliceOf(ba, *m, "d").allocation);
  EXPECT_EQ(ba.allocations()[SliceOf(ba, *m, "d").allocation].kind,
            Allocation::Kind::kOutput);
}

TEST(BufferAssignment, DonatedParameterHoldsTheResult) {
  auto m = Parse(R"(
HloModule m, input_output_alias={ {}: (0, {}, may-alias) }

ENTRY e {
  x = f32[128] parameter(0)
  u = f32[4] parameter(1)
  i = s32[] parameter(2)
  ROOT d = f32[128] dynamic-update-slice(x, u, i)
}
)");
  ASSERT_NE(m, nullptr);
  BufferAssignment ba = Assign(*m);
  const Slice x = SliceOf(ba, *m, "x");
  EXPECT_EQ(SliceOf(ba, *m, "d"), x);
  const Allocation& a = ba.allocations()[x.allocation];
  EXPECT_EQ(a.kind, Allocation::Kind::kParameter);
  ASSERT_EQ(a.output_indices.size(), 1u);
  EXPECT_EQ(a.output_indices[0], ShapeIndex{});
  EXPECT_EQ(ba.temp_allocation(), -1);
}

TEST(BufferAssignment, DonationIsRefusedWhileTheParameterIsRead) {
  auto m = Parse(R"(
HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }

ENTRY e {
  x = f32[128] parameter(0)
  n = f32[128] negate(x)
  e = f32[128] exponential(n)
  s = f32[128] add(e, x)
  ROOT t = (f32[128], f32[128]) tuple(n, s)
}
)");
  ASSERT_NE(m, nullptr);
  BufferAssignment ba = Assign(*m);
  EXPECT_NE(SliceOf(ba, *m, "n").allocation, SliceOf(ba, *m, "x").allocation);
}

TEST(BufferAssignment, OutputToOperandAliasingWritesInPlace) {
  auto m = Parse(R"(
HloModule m

ENTRY e {
  x = f32[64] parameter(0)
  a = f32[64] negate(x)
  c = f32[64] custom-call(a), custom_call_target="update", output_to_operand_aliasing={{}: (0, {})}
  ROOT o = f32[64] sine(c)
}
)");
  ASSERT_NE(m, nullptr);
  BufferAssignment ba = Assign(*m);
  EXPECT_EQ(SliceOf(ba, *m, "a"), SliceOf(ba, *m, "c"));
}

TEST(BufferAssignment, FusionRootedAtADynamicUpdateSliceWritesInPlace) {
  auto m = Parse(R"(
HloModule m

fused {
  p0 = f32[128] parameter(0)
  p1 = f32[4] parameter(1)
  p2 = s32[] parameter(2)
  ROOT d = f32[128] dynamic-update-slice(p0, p1, p2)
}

ENTRY e {
  x = f32[128] parameter(0)
  u = f32[4] parameter(1)
  i = s32[] parameter(2)
  a = f32[128] negate(x)
  f = f32[128] fusion(a, u, i), kind=kLoop, calls=fused
  ROOT o = f32[128] sine(f)
}
)");
  ASSERT_NE(m, nullptr);
  BufferAssignment ba = Assign(*m);
  EXPECT_EQ(SliceOf(ba, *m, "a"), SliceOf(ba, *m, "f"));
  // Fusion bodies are applied: no slices.
  EXPECT_FALSE(ba.GetSlice(Find(*m, "d")).ok());
  EXPECT_FALSE(ba.IsSequential(m->GetComputationWithName("fused")));
}

TEST(BufferAssignment, InPlaceLoopUpdateNeedsNoCopy) {
  auto m = Parse(R"(
HloModule m

cond {
  p = (s32[], f32[128]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  p = (s32[], f32[128]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[128] get-tuple-element(p), index=1
  u = f32[4] broadcast(f32[] constant(1)), dimensions={}
  d = f32[128] dynamic-update-slice(x, u, i)
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT t = (s32[], f32[128]) tuple(next, d)
}

ENTRY e {
  a = f32[128] parameter(0)
  x0 = f32[128] negate(a)
  i0 = s32[] negate(s32[] constant(0))
  init = (s32[], f32[128]) tuple(i0, x0)
  w = (s32[], f32[128]) while(init), condition=cond, body=body
  r = f32[128] get-tuple-element(w), index=1
  ROOT o = f32[128] exponential(r)
}
)");
  ASSERT_NE(m, nullptr);
  BufferAssignment ba = Assign(*m);
  EXPECT_EQ(SliceOf(ba, *m, "d"), SliceOf(ba, *m, "w", {1}));
  EXPECT_EQ(SliceOf(ba, *m, "x"), SliceOf(ba, *m, "w", {1}));
  // Only the counter is copied; the update's readers of the old counter
  // are ordered before it.
  const HloInstruction* root =
      m->GetComputationWithName("body")->root_instruction();
  EXPECT_NE(root->operand(1)->opcode(), HloOpcode::kCopy);
}

TEST(BufferAssignment, SizesFollowStorageBytes) {
  auto m = Parse(R"(
HloModule m

ENTRY e {
  p = pred[10] parameter(0)
  c = c64[3] parameter(1)
  s = s4[5] parameter(2)
  z = f32[0,4] parameter(3)
  t = token[] after-all()
  ROOT r = (pred[10], c64[3], s4[5], f32[0,4], token[]) tuple(p, c, s, z, t)
}
)");
  ASSERT_NE(m, nullptr);
  BufferAssignment ba = Assign(*m);
  EXPECT_EQ(SliceOf(ba, *m, "p").size, 10);
  EXPECT_EQ(SliceOf(ba, *m, "c").size, 24);
  EXPECT_EQ(SliceOf(ba, *m, "s").size, 5);
  EXPECT_EQ(SliceOf(ba, *m, "z").size, 0);
  EXPECT_EQ(SliceOf(ba, *m, "t").size, 0);
  EXPECT_FALSE(ba.GetSlice(Find(*m, "r")).ok());  // a tuple index
  EXPECT_EQ(SliceOf(ba, *m, "r", {1}), SliceOf(ba, *m, "c"));
  // Parameters returned as they are: their allocation notes the output.
  const Allocation& a = ba.allocations()[SliceOf(ba, *m, "c").allocation];
  EXPECT_EQ(a.kind, Allocation::Kind::kParameter);
  ASSERT_EQ(a.output_indices.size(), 1u);
  EXPECT_EQ(a.output_indices[0], ShapeIndex{1});
}

TEST(BufferAssignment, TemporariesShareTheArenaOverTime) {
  auto m = Parse(R"(
HloModule m

ENTRY e {
  x = f32[256] parameter(0)
  a = f32[256] reverse(x), dimensions={0}
  b = f32[256] reverse(a), dimensions={0}
  c = f32[256] reverse(b), dimensions={0}
  d = f32[256] reverse(c), dimensions={0}
  ROOT o = f32[256] reverse(d), dimensions={0}
}
)");
  ASSERT_NE(m, nullptr);
  BufferAssignment ba = Assign(*m);
  // A chain of ops that read other indices than they write: two 1 KiB
  // temporaries live at once at most. Those that die before the output is
  // written (a, then c) live in the output's bytes; b and d share the
  // arena.
  const int output = SliceOf(ba, *m, "o").allocation;
  EXPECT_EQ(ba.allocations()[output].kind, Allocation::Kind::kOutput);
  EXPECT_EQ(SliceOf(ba, *m, "a"), SliceOf(ba, *m, "o"));
  EXPECT_EQ(SliceOf(ba, *m, "c"), SliceOf(ba, *m, "o"));
  EXPECT_EQ(SliceOf(ba, *m, "b"), SliceOf(ba, *m, "d"));
  EXPECT_EQ(SliceOf(ba, *m, "b").allocation, ba.temp_allocation());
  EXPECT_EQ(ba.temp_size(), 1024);
  EXPECT_EQ(ba.peak_live_temp_bytes(), 1024);
  const std::string text = ba.ToString();
  EXPECT_NE(text.find("temp_size_in_bytes=1024"), std::string::npos) << text;
}

TEST(BufferAssignment, OutputBytesHostOnlyWhatDiesBeforeTheyAreWritten) {
  auto m = Parse(R"(
HloModule m

ENTRY e {
  x = f32[64] parameter(0)
  big = f32[128] concatenate(x, x), dimensions={0}
  s = f32[64] slice(big), slice={[32:96]}
  o1 = f32[64] reverse(s), dimensions={0}
  o2 = f32[32] slice(big), slice={[0:32]}
  ROOT r = (f32[64], f32[32]) tuple(o1, o2)
}
)");
  ASSERT_NE(m, nullptr);
  BufferAssignment ba = Assign(*m);
  // big (512 bytes) outlives the first output's write and fits in no
  // output; s (256 bytes) dies where o1 is written, so it cannot be in
  // o1's bytes either (a reverse reads other indices than it writes) and
  // is too large for o2's.
  EXPECT_EQ(SliceOf(ba, *m, "big").allocation, ba.temp_allocation());
  EXPECT_EQ(SliceOf(ba, *m, "s").allocation, ba.temp_allocation());
}

// An elementwise op reads its operand only at the index it writes: where
// the operand dies there, the result takes its bytes. A chain runs in one
// buffer, here the output's.
TEST(BufferAssignment, ElementwiseOpsOverwriteOperandsThatDieThere) {
  auto m = Parse(R"(
HloModule m

ENTRY e {
  x = f32[256] parameter(0)
  a = f32[256] negate(x)
  b = f32[256] exponential(a)
  c = f32[256] sqrt(b)
  d = f32[256] log(c)
  ROOT o = f32[256] tanh(d)
}
)");
  ASSERT_NE(m, nullptr);
  BufferAssignment ba = Assign(*m);
  EXPECT_EQ(ba.temp_size(), 0);
  for (const char* name : {"a", "b", "c", "d"}) {
    EXPECT_EQ(SliceOf(ba, *m, name), SliceOf(ba, *m, "o")) << name;
  }
  // Never a parameter's bytes (not donated), nor across element sizes or
  // layouts, nor where the operand is read elsewhere too.
  auto n = Parse(R"(
HloModule n

ENTRY e {
  x = f32[16,16]{1,0} parameter(0)
  a = f32[16,16]{1,0} negate(x)
  t = f32[16,16]{0,1} negate(a)
  w = f64[16,16]{0,1} convert(t)
  s = f64[16,16]{0,1} add(w, w)
  ROOT r = (f64[16,16]{0,1}, f64[16,16]{0,1}) tuple(s, w)
}
)");
  ASSERT_NE(n, nullptr);
  BufferAssignment nb = Assign(*n);
  EXPECT_NE(SliceOf(nb, *n, "a"), SliceOf(nb, *n, "x"));
  EXPECT_NE(SliceOf(nb, *n, "t"), SliceOf(nb, *n, "a"));
  EXPECT_NE(SliceOf(nb, *n, "w").allocation, SliceOf(nb, *n, "t").allocation);
  EXPECT_NE(SliceOf(nb, *n, "s"), SliceOf(nb, *n, "w"));
}

TEST(BufferAssignment, ListSchedulerFreesBeforeItAllocates) {
  // Two independent chains: running one to its end before starting the
  // other keeps fewer arrays live than interleaving them.
  auto m = Parse(R"(
HloModule m

ENTRY e {
  x = f32[256] parameter(0)
  a1 = f32[256] negate(x)
  b1 = f32[256] negate(x)
  a2 = f32[256] exponential(a1)
  b2 = f32[256] exponential(b1)
  a3 = f32[] reduce(a2, f32[] constant(0)), dimensions={0}, to_apply=add
  b3 = f32[] reduce(b2, f32[] constant(0)), dimensions={0}, to_apply=add
  ROOT o = f32[] add(a3, b3)
}

add {
  l = f32[] parameter(0)
  r = f32[] parameter(1)
  ROOT s = f32[] add(l, r)
}
)");
  ASSERT_NE(m, nullptr);
  BufferAssignment ba = Assign(*m);
  EXPECT_LE(ba.peak_live_temp_bytes(), 2 * 1024 + 8);
}

}  // namespace
}  // namespace xlite::runtime
