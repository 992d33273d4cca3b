#include "hlo/evaluator/test_util.h"

#include <memory>
#include <utility>

#include "hlo/analysis/verifier.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"

namespace xlite::eval_test {
namespace {

// Parses and verifies `hlo`.
absl::StatusOr<std::unique_ptr<HloModule>> ParseVerified(
    const std::string& hlo) {
  auto module = ParseHloModule(hlo);
  if (!module.ok()) return module.status();
  absl::Status verified = VerifyModule(**module);
  if (!verified.ok()) return verified;
  return module;
}

// Parses each literal text of `args`.
absl::StatusOr<std::vector<Literal>> ParseLiterals(
    const std::vector<std::string>& args) {
  std::vector<Literal> literals;
  for (const std::string& a : args) {
    auto l = ParseLiteral(a);
    if (!l.ok()) return l.status();
    literals.push_back(*std::move(l));
  }
  return literals;
}

}  // namespace

absl::StatusOr<Literal> Evaluate(const std::string& hlo,
                                 const std::vector<std::string>& args) {
  auto module = ParseVerified(hlo);
  if (!module.ok()) return module.status();
  auto literals = ParseLiterals(args);
  if (!literals.ok()) return literals.status();
  return EvaluateModule(**module, *literals);
}

std::string Eval(const std::string& hlo, const std::vector<std::string>& args) {
  absl::StatusOr<Literal> result = Evaluate(hlo, args);
  if (!result.ok()) return std::string(result.status().message());
  return result->ToString();
}

std::vector<std::string> RunOnReplicas(
    const std::string& hlo, int64_t devices,
    const std::vector<std::vector<std::string>>& args) {
  auto module = ParseVerified(hlo);
  if (!module.ok()) return {std::string(module.status().message())};
  std::vector<std::vector<Literal>> literals(devices);
  for (int64_t d = 0; d < devices; ++d) {
    auto parsed = ParseLiterals(args[d]);
    if (!parsed.ok()) return {std::string(parsed.status().message())};
    literals[d] = *std::move(parsed);
  }
  auto results = EvaluateOnDevices(**module, devices, 1, literals);
  if (!results.ok()) return {std::string(results.status().message())};
  std::vector<std::string> out;
  for (const Literal& r : *results) out.push_back(r.ToString());
  return out;
}

}  // namespace xlite::eval_test
