#include "tests/malformed/malformed_case.h"

#include "hlo/analysis/verifier.h"
#include "hlo/text/parser.h"

namespace xlite::malformed {

std::string FirstErrorLine(const std::string& text) {
  ParseOptions options;
  options.filename = "m.hlo";
  auto module = ParseHloModule(text, options);
  absl::Status status = module.ok() ? VerifyModule(**module) : module.status();
  if (status.ok()) return "OK";
  std::string message(status.message());
  return message.substr(0, message.find('\n'));
}

}  // namespace xlite::malformed
