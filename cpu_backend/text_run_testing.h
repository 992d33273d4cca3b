#ifndef XLITE_CPU_BACKEND_TEXT_RUN_TESTING_H_
#define XLITE_CPU_BACKEND_TEXT_RUN_TESTING_H_

// Test helpers: an HLO module's text compiled by the CPU backend (default
// options) and run, failures reported as gtest failures.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/ir/literal.h"
#include "hlo/ir/module.h"

namespace xlite::cpu::testing {

/// The parsed module, or null (and a test failure) when it does not parse.
std::unique_ptr<HloModule> ParseForTest(const std::string& text);

/// The module's result on `args`.
absl::StatusOr<Literal> RunCompiled(const std::string& text,
                                    std::vector<Literal> args);

/// The module's result on `args` (HLO literal text) as one literal's text;
/// "" (and a test failure) when anything fails.
std::string RunOnText(const std::string& text,
                      const std::vector<std::string>& args);

}  // namespace xlite::cpu::testing

#endif  // XLITE_CPU_BACKEND_TEXT_RUN_TESTING_H_
