#include "tests/benchmarks/module_generator.h"

#include <gtest/gtest.h>

#include "hlo/analysis/verifier.h"
#include "hlo/text/parser.h"

namespace xlite {
namespace {

TEST(ModuleGenerator, ProducesAValidModuleOfTheRequestedSize) {
  auto module = ParseHloModule(GenerateLargeModule(1000));
  ASSERT_TRUE(module.ok()) << module.status().message();
  EXPECT_TRUE(VerifyModule(**module).ok());
  EXPECT_GE((*module)->instruction_count(), 1000);
}

}  // namespace
}  // namespace xlite
