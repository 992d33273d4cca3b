// Which narrow GEMM rounding each result went through: per element of a
// root tuple, through called computations, and none for results no
// narrow dot reaches.
#include "tests/fuzz/dot_rounding.h"

#include <gtest/gtest.h>

#include <vector>

#include "hlo/text/parser.h"

namespace xlite::fuzz {
namespace {

using T = PrimitiveType;

TEST(DotRounding, PerElementOfTheRootTuple) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(R"(
HloModule m
%body {
  %a = f16[2,3] parameter(0)
  %b = f16[3,2] parameter(1)
  ROOT %d = f16[2,2] dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
ENTRY %e {
  %x = bf16[2,3] parameter(0)
  %y = bf16[3,2] parameter(1)
  %p = f16[2,3] parameter(2)
  %q = f16[3,2] parameter(3)
  %f = f32[2,2] parameter(4)
  %dot = bf16[2,2] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %wide = f32[2,2] convert(%dot)
  %same = f32[2,2] add(%f, %f)
  %called = f16[2,2] call(%p, %q), to_apply=%body
  %exact = f32[2,2] dot(%f, %f), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT %t = (f32[2,2], f32[2,2], f16[2,2], f32[2,2]) tuple(%wide, %same, %called, %exact)
})");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(DotRoundingPerResult(**m),
            (std::vector<T>{T::kBF16, T::kInvalid, T::kF16, T::kInvalid}));
}

TEST(DotRounding, ArrayRootTakesTheCoarsest) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(R"(
HloModule m
ENTRY %e {
  %x = bf16[2,2] parameter(0)
  %h = f16[2,2] parameter(1)
  %d1 = bf16[2,2] dot(%x, %x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %d2 = f16[2,2] dot(%h, %h), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %c1 = f32[2,2] convert(%d1)
  %c2 = f32[2,2] convert(%d2)
  ROOT %sum = f32[2,2] add(%c2, %c1)
})");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(DotRoundingPerResult(**m), (std::vector<T>{T::kBF16}));
}

}  // namespace
}  // namespace xlite::fuzz
