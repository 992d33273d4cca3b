#include "cpu_backend/text_run_testing.h"

#include <gtest/gtest.h>

#include "cpu_backend/executable.h"
#include "hlo/text/parser.h"

namespace xlite::cpu::testing {

std::unique_ptr<HloModule> ParseForTest(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? *std::move(module) : nullptr;
}

absl::StatusOr<Literal> RunCompiled(const std::string& text,
                                    std::vector<Literal> args) {
  std::unique_ptr<HloModule> module = ParseForTest(text);
  if (module == nullptr) return absl::InvalidArgumentError("no module");
  absl::StatusOr<std::unique_ptr<CpuExecutable>> exe =
      CpuExecutable::Compile(std::move(module), CompileOptions());
  if (!exe.ok()) return exe.status();
  return (*exe)->Run(args);
}

std::string RunOnText(const std::string& text,
                      const std::vector<std::string>& args) {
  std::vector<Literal> literals;
  for (const std::string& arg : args) {
    absl::StatusOr<Literal> literal = ParseLiteral(arg);
    EXPECT_TRUE(literal.ok()) << literal.status();
    if (!literal.ok()) return "";
    literals.push_back(*std::move(literal));
  }
  absl::StatusOr<Literal> got = RunCompiled(text, std::move(literals));
  EXPECT_TRUE(got.ok()) << got.status();
  return got.ok() ? got->ToString() : "";
}

}  // namespace xlite::cpu::testing
