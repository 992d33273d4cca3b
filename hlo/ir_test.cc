// The mutation API passes rely on: use/def lists, replacement, removal,
// control dependencies, cloning.
#include <gtest/gtest.h>

#include "hlo/analysis/verifier.h"
#include "hlo/text/module_equal.h"
#include "hlo/text/parser.h"
#include "hlo/text/printer.h"

namespace xlite {
namespace {

std::unique_ptr<HloModule> Parse(const std::string& text) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status().message();
  return module.ok() ? std::move(*module) : nullptr;
}

constexpr char kModule[] = R"(
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  a = f32[4] negate(p)
  b = f32[4] exponential(p)
  c = f32[4] add(a, b)
  ROOT r = f32[4] multiply(c, c)
}
)";

TEST(Ir, UsersAreTrackedBothWays) {
  auto module = Parse(kModule);
  HloComputation* e = module->entry_computation();
  HloInstruction* p = e->GetInstructionWithName("p");
  HloInstruction* c = e->GetInstructionWithName("c");
  EXPECT_EQ(p->user_count(), 2);
  // multiply(c, c) counts c's user once.
  EXPECT_EQ(c->user_count(), 1);
  EXPECT_TRUE(e->root_instruction()->IsUserOf(c));
}

TEST(Ir, ReplaceAllUsesWithAndRemove) {
  auto module = Parse(kModule);
  HloComputation* e = module->entry_computation();
  HloInstruction* a = e->GetInstructionWithName("a");
  HloInstruction* b = e->GetInstructionWithName("b");
  ASSERT_TRUE(a->ReplaceAllUsesWith(b).ok());
  EXPECT_EQ(a->user_count(), 0);
  EXPECT_EQ(e->GetInstructionWithName("c")->operand(0), b);
  ASSERT_TRUE(e->RemoveInstruction(a).ok());
  EXPECT_EQ(e->instruction_count(), 4);
  EXPECT_TRUE(VerifyModule(*module).ok());
  EXPECT_EQ(e->GetInstructionWithName("p")->user_count(), 1);
}

TEST(Ir, RemoveRefusesUsedInstructions) {
  auto module = Parse(kModule);
  HloComputation* e = module->entry_computation();
  EXPECT_FALSE(e->RemoveInstruction(e->GetInstructionWithName("c")).ok());
  EXPECT_FALSE(e->RemoveInstruction(e->root_instruction()).ok());
  EXPECT_FALSE(e->RemoveInstruction(e->GetInstructionWithName("p")).ok());
}

TEST(Ir, ReplaceChecksShapes) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  q = f32[5] parameter(1)
  ROOT n = f32[4] negate(p)
}
)");
  HloComputation* e = module->entry_computation();
  EXPECT_FALSE(e->GetInstructionWithName("p")
                   ->ReplaceAllUsesWith(e->GetInstructionWithName("q"))
                   .ok());
}

TEST(Ir, RootReplacement) {
  auto module = Parse(kModule);
  HloComputation* e = module->entry_computation();
  HloInstruction* c = e->GetInstructionWithName("c");
  ASSERT_TRUE(e->root_instruction()->ReplaceAllUsesWith(c).ok());
  EXPECT_EQ(e->root_instruction(), c);
  ASSERT_TRUE(
      e->RemoveInstructionAndUnusedOperands(e->GetInstructionWithName("r"))
          .ok());
  EXPECT_EQ(e->instruction_count(), 4);
  EXPECT_TRUE(VerifyModule(*module).ok());
}

TEST(Ir, RemovingManyInstructionsStaysConsistent) {
  std::string text = "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n";
  for (int i = 0; i < 100; ++i) {
    text += "  d" + std::to_string(i) + " = f32[] negate(p)\n";
  }
  text += "  ROOT r = f32[] negate(p)\n}\n";
  auto module = Parse(text);
  HloComputation* e = module->entry_computation();
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(
        e->RemoveInstruction(e->GetInstructionWithName("d" + std::to_string(i)))
            .ok());
  }
  EXPECT_EQ(e->instruction_count(), 2);
  EXPECT_EQ(e->instructions().size(), 2u);
  EXPECT_TRUE(VerifyModule(*module).ok());
}

TEST(Ir, ControlDependencies) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p = f32[] parameter(0)
  a = f32[] negate(p)
  ROOT b = f32[] exponential(p), control-predecessors={a}
}
)");
  HloComputation* e = module->entry_computation();
  HloInstruction* a = e->GetInstructionWithName("a");
  HloInstruction* b = e->GetInstructionWithName("b");
  ASSERT_EQ(b->control_predecessors().size(), 1u);
  EXPECT_EQ(a->control_successors()[0], b);
  EXPECT_NE(PrintModule(*module).find("control-predecessors={%a}"),
            std::string::npos);
  ASSERT_TRUE(a->RemoveControlDependencyTo(b).ok());
  EXPECT_TRUE(b->control_predecessors().empty());
}

TEST(Ir, CloneIsDeepAndEqual) {
  auto module = Parse(R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add
}
)");
  auto clone = module->Clone();
  std::string difference;
  EXPECT_TRUE(ModulesEqual(*module, *clone, &difference)) << difference;
  // Mutating the clone leaves the original alone.
  clone->entry_computation()->root_instruction()->set_name("changed");
  EXPECT_FALSE(ModulesEqual(*module, *clone));
  EXPECT_NE(clone->entry_computation()->root_instruction()->to_apply(),
            module->entry_computation()->root_instruction()->to_apply());
}

TEST(Ir, CloneKeepsASequenceWithAUseBeforeItsDefinition) {
  // A pass may append an instruction and point an earlier one at it; the
  // clone has the same instructions in the same sequence.
  auto module = Parse(kModule);
  HloComputation* entry = module->entry_computation();
  HloInstruction* a = entry->GetInstructionWithName("a");
  HloInstruction* c = entry->GetInstructionWithName("c");
  HloInstruction* late = entry->AddInstruction(
      a->CloneWithNewOperands(a->shape(), {entry->parameter_instruction(0)}));
  late->set_name("late");
  ASSERT_TRUE(c->ReplaceOperandWith(0, late).ok());
  auto clone = module->Clone();
  std::vector<std::string> names, cloned;
  for (const HloInstruction* h : entry->instructions()) names.push_back(h->name());
  for (const HloInstruction* h : clone->entry_computation()->instructions()) {
    cloned.push_back(h->name());
  }
  EXPECT_EQ(names, cloned);
  EXPECT_EQ(clone->entry_computation()
                ->GetInstructionWithName("c")
                ->operand(0)
                ->name(),
            "late");
}

TEST(Ir, ShapeInferenceFillsOmittedShapes) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p = f32[2,3] parameter(0)
  q = f32[2,3] parameter(1)
  s = add(p, q)
  t = transpose(s), dimensions={1,0}
  ROOT c = compare(t, t), direction=GT
}
)");
  EXPECT_EQ(module->entry_computation()->root_instruction()->shape().ToString(),
            "pred[3,2]{1,0}");
}

}  // namespace
}  // namespace xlite
