#ifndef XLITE_HLO_EVALUATOR_TEST_UTIL_H_
#define XLITE_HLO_EVALUATOR_TEST_UTIL_H_

// Shared by the evaluator's tests (testonly): run a module written as HLO
// text on arguments written as literal text.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/ir/literal.h"

namespace xlite::eval_test {

/// Parses `hlo`, verifies it and evaluates it on the literal-text `args`;
/// returns the first error of those steps.
absl::StatusOr<Literal> Evaluate(const std::string& hlo,
                                 const std::vector<std::string>& args = {});

/// Evaluate's result as text, or its error message: tests compare one
/// string either way.
std::string Eval(const std::string& hlo,
                 const std::vector<std::string>& args = {});

/// Runs `hlo` on `devices` replicas; the arguments in `args[d]` go to
/// device d. Returns each device's result as text, or the error message
/// alone.
std::vector<std::string> RunOnReplicas(
    const std::string& hlo, int64_t devices,
    const std::vector<std::vector<std::string>>& args);

}  // namespace xlite::eval_test

#endif  // XLITE_HLO_EVALUATOR_TEST_UTIL_H_
