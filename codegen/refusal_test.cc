// codegen::Unsupported is backend-neutral and located; NameBackend puts the
// compiling backend in front of "cannot compile" and leaves other errors
// alone.
#include <gtest/gtest.h>

#include "codegen/elemental.h"
#include "hlo/ir/instruction.h"

namespace xlite::codegen {
namespace {

std::unique_ptr<HloInstruction> Negate(int line) {
  std::unique_ptr<HloInstruction> hlo = HloInstruction::Create(
      HloOpcode::kNegate, Shape(PrimitiveType::kF32, {2}), {});
  hlo->set_name("n");
  if (line > 0) hlo->set_location({line, 3});
  return hlo;
}

TEST(Refusal, UnsupportedNamesNoBackend) {
  EXPECT_EQ(Unsupported(Negate(7).get(), "why").message(),
            "7:3: error: cannot compile %n (negate): why");
  EXPECT_TRUE(IsUnnamedRefusal(Unsupported(Negate(0).get(), "why")));
}

TEST(Refusal, NameBackendNamesTheBackendOnce) {
  const absl::Status named = NameBackend(Unsupported(Negate(7).get(), "why"),
                                         "gpu");
  EXPECT_EQ(named.message(),
            "7:3: error: the gpu backend cannot compile %n (negate): why");
  EXPECT_EQ(named.code(), absl::StatusCode::kUnimplemented);
  EXPECT_FALSE(IsUnnamedRefusal(named));
  EXPECT_EQ(NameBackend(named, "cpu"), named);
  EXPECT_EQ(NameBackend(Unsupported(Negate(0).get(), "why"), "cpu").message(),
            "the cpu backend cannot compile %n (negate): why");
}

TEST(Refusal, OtherErrorsAreUnchanged) {
  const absl::Status other = absl::InternalError("1:2: error: cannot parse");
  EXPECT_EQ(NameBackend(other, "cpu"), other);
  EXPECT_EQ(NameBackend(absl::OkStatus(), "cpu"), absl::OkStatus());
}

}  // namespace
}  // namespace xlite::codegen
