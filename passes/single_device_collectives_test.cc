// What one device computes and refuses (OneDeviceRefusal), on the cases
// the lit tests (tests/lit/passes/single_device_collectives*.hlo) do not
// reach: each reason, and that the pass keeps what it refuses.
#include "passes/single_device_collectives.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "hlo/text/parser.h"

namespace xlite {
namespace {

std::unique_ptr<HloModule> Parse(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? *std::move(m) : nullptr;
}

// The refusal of the entry's root after the pass ran (empty: rewritten).
std::string RootRefusal(absl::string_view text) {
  std::unique_ptr<HloModule> m = Parse(text);
  if (m == nullptr) return "parse error";
  absl::StatusOr<bool> changed = RewriteSingleDeviceCollectives(*m);
  EXPECT_TRUE(changed.ok()) << changed.status().message();
  const HloInstruction* root = m->entry_computation()->root_instruction();
  if (root->opcode() == HloOpcode::kCopy ||
      root->opcode() == HloOpcode::kTuple ||
      root->opcode() == HloOpcode::kConstant) {
    return "";
  }
  return OneDeviceRefusal(*m, *root);
}

TEST(SingleDeviceCollectives, GroupOfDeviceZeroIsCopied) {
  EXPECT_EQ(RootRefusal(R"(
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  ROOT g = f32[4] all-gather(p), replica_groups={{0}}, dimensions={0}
})"),
            "");
}

TEST(SingleDeviceCollectives, OtherDeviceIsRefused) {
  EXPECT_EQ(RootRefusal(R"(
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  ROOT c = f32[4] collective-permute(p), source_target_pairs={{0,2}}
})"),
            "names device 2, but the module runs on one device");
}

TEST(SingleDeviceCollectives, ShapeChangeIsRefused) {
  EXPECT_TRUE(absl::StrContains(RootRefusal(R"(
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  ROOT g = f32[8] all-gather(p), replica_groups={}, dimensions={0}
})"),
                                "changes the shape, which needs more than one "
                                "device"));
}

TEST(SingleDeviceCollectives, TupleAllToAllNeedsOneDevicePerOperand) {
  EXPECT_EQ(RootRefusal(R"(
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  ROOT a = (f32[4], f32[4]) all-to-all(p, p), replica_groups={}
})"),
            "sends its 2 operands to as many devices, but the module runs on "
            "one device");
}

TEST(SingleDeviceCollectives, ModuleOfMoreDevicesKeepsItsCollectives) {
  EXPECT_EQ(RootRefusal(R"(
HloModule m, num_partitions=2
ENTRY e {
  ROOT id = u32[] partition-id()
})"),
            "the module runs on 1 replicas x 2 partitions, and this backend "
            "runs one device");
}

TEST(SingleDeviceCollectives, DeviceIdsAreZero) {
  std::unique_ptr<HloModule> m = Parse(R"(
HloModule m
ENTRY e {
  ROOT id = u32[] replica-id()
})");
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(RewriteSingleDeviceCollectives(*m).value());
  const HloInstruction* root = m->entry_computation()->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kConstant);
  EXPECT_EQ(root->shape().element_type(), PrimitiveType::kU32);
  EXPECT_EQ(root->attrs().literal->GetAsDouble(0), 0);
}

}  // namespace
}  // namespace xlite
