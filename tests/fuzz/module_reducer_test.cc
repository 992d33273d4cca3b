// The reducer keeps what the predicate needs and drops the rest.
#include "tests/fuzz/module_reducer.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"

namespace xlite::fuzz {
namespace {

constexpr char kModule[] = R"(HloModule m

%add {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

%unused {
  ROOT %p = f32[] parameter(0)
}

ENTRY %main {
  %x = f32[4] parameter(0)
  %y = f32[4] parameter(1)
  %e = f32[4] exponential(%x)
  %n = f32[4] negate(%y)
  %m = f32[4] multiply(%e, %n)
  %s = f32[4] sine(%m)
  %zero = f32[] constant(0)
  %r = f32[] reduce(%s, %zero), dimensions={0}, to_apply=%add
  ROOT %t = (f32[4], f32[]) tuple(%m, %r)
}
)";

TEST(ModuleReducer, KeepsWhatThePredicateNeeds) {
  const std::string reduced =
      ReduceModule(kModule, [](const std::string& text) {
        return absl::StrContains(text, " sine(");
      });
  EXPECT_TRUE(absl::StrContains(reduced, "ROOT %s = f32[4] sine(%m)"))
      << reduced;
  EXPECT_FALSE(absl::StrContains(reduced, "exponential")) << reduced;
  EXPECT_FALSE(absl::StrContains(reduced, "%unused")) << reduced;
  EXPECT_FALSE(absl::StrContains(reduced, "reduce(")) << reduced;
}

TEST(ModuleReducer, RemovesDeadCodeAndRenumbersParameters) {
  const std::string text = R"(HloModule m

ENTRY %main {
  %x = f32[4] parameter(0)
  %y = f32[4] parameter(1)
  %e = f32[4] exponential(%x)
  ROOT %n = f32[4] negate(%y)
}
)";
  EXPECT_EQ(RemoveDeadCode(text), R"(HloModule m

ENTRY %main {
  %y = f32[4] parameter(0)
  ROOT %n = f32[4] negate(%y)
}
)");
}

}  // namespace
}  // namespace xlite::fuzz
