// libFuzzer entry point for the text parser, verifier and printer.
// Property checked beyond "no crash": whatever parses and verifies must print
// to text that parses and verifies again and prints identically, up to the
// order of computations (XLA's order, which the printer follows, is not kept
// across a reparse).
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#include <vector>

#include "hlo/analysis/verifier.h"
#include "hlo/text/module_equal.h"
#include "hlo/text/parser.h"
#include "hlo/text/printer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1 << 20)) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  // Warnings (short literals XLA accepts) are expected; keep them quiet.
  std::vector<std::string> warnings;
  xlite::ParseOptions options;
  options.warnings = &warnings;
  auto module = xlite::ParseHloModule(text, options);
  if (!module.ok()) return 0;
  if (!xlite::VerifyModule(**module).ok()) return 0;
  const std::string printed = xlite::PrintModule(**module);
  auto again = xlite::ParseHloModule(printed, options);
  std::string difference;
  if (!again.ok() || !xlite::VerifyModule(**again).ok() ||
      !xlite::PrintsEqualUpToComputationOrder(**module, **again,
                                              &difference)) {
    std::cerr << "round trip failed for:\n"
              << text << "\nprinted:\n"
              << printed << "\n"
              << (again.ok()
                      ? std::string(xlite::VerifyModule(**again).message())
                      : std::string(again.status().message()))
              << "\n"
              << difference << "\n";
    std::abort();
  }
  return 0;
}
