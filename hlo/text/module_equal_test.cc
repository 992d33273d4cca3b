// Module comparisons that round-trip properties rely on: structural
// equality, and printing equal up to the order of computations.
#include "hlo/text/module_equal.h"

#include <gtest/gtest.h>

#include <string>

#include "hlo/text/parser.h"
#include "hlo/text/printer.h"

namespace xlite {
namespace {

std::unique_ptr<HloModule> Parse(const std::string& text) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status().message();
  return module.ok() ? std::move(*module) : nullptr;
}

// %b's call comes first in the text, %a's first in the post order that
// prints the entry: printing and reparsing swaps the callees.
constexpr char kSwapsOnReparse[] = R"(
HloModule m

B {
  p = f32[] parameter(0)
  ROOT n = f32[] negate(p)
}

A {
  p = f32[] parameter(0)
  ROOT e = f32[] exponential(p)
}

ENTRY main {
  x = f32[] parameter(0)
  b = f32[] call(x), to_apply=B
  a = f32[] call(x), to_apply=A
  ROOT t = (f32[], f32[]) tuple(a, b)
}
)";

TEST(ModuleEqual, ReparseIsEqualUpToComputationOrder) {
  std::unique_ptr<HloModule> first = Parse(kSwapsOnReparse);
  ASSERT_NE(first, nullptr);
  std::unique_ptr<HloModule> second = Parse(PrintModule(*first));
  ASSERT_NE(second, nullptr);
  std::string difference;
  EXPECT_TRUE(PrintsEqualUpToComputationOrder(*first, *second, &difference))
      << difference;
  EXPECT_TRUE(ModulesEqual(*first, *second, &difference)) << difference;
  EXPECT_EQ(PrintModuleComputationsByName(*first),
            PrintModuleComputationsByName(*second));
}

TEST(ModuleEqual, ComputationsSortByNameAfterTheHeader) {
  std::unique_ptr<HloModule> module = Parse(kSwapsOnReparse);
  ASSERT_NE(module, nullptr);
  const std::string text = PrintModuleComputationsByName(*module);
  const size_t a = text.find("\n%A (");
  const size_t b = text.find("\n%B (");
  const size_t entry = text.find("\nENTRY %main (");
  ASSERT_NE(a, std::string::npos) << text;
  ASSERT_NE(b, std::string::npos) << text;
  ASSERT_NE(entry, std::string::npos) << text;
  EXPECT_LT(a, b);
  EXPECT_LT(b, entry);
  EXPECT_EQ(text.rfind("HloModule m, ", 0), 0u) << text;
}

TEST(ModuleEqual, AnyOtherDifferenceStillCounts) {
  std::unique_ptr<HloModule> first = Parse(kSwapsOnReparse);
  std::string changed = kSwapsOnReparse;
  changed.replace(changed.find("exponential"), 11, "log");
  std::unique_ptr<HloModule> second = Parse(changed);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  std::string difference;
  EXPECT_FALSE(PrintsEqualUpToComputationOrder(*first, *second, &difference));
  EXPECT_NE(difference.find("exponential"), std::string::npos) << difference;
  EXPECT_NE(difference.find("log"), std::string::npos) << difference;
}

}  // namespace
}  // namespace xlite
