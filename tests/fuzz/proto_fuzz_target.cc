// libFuzzer entry point for the HloModuleProto reader (binary and text
// format), the verifier, the printer and the proto writer. Beyond "no
// crash": a proto that loads and verifies must print to text that parses
// and verifies, and must export to a proto that loads to the same print
// (up to the order of computations, which XLA does not keep).
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#include "hlo/analysis/verifier.h"
#include "hlo/proto/proto_convert.h"
#include "hlo/text/module_equal.h"
#include "hlo/text/parser.h"
#include "hlo/text/printer.h"

namespace {

[[noreturn]] void Fail(const std::string& what, const std::string& detail) {
  std::cerr << what << "\n" << detail << "\n";
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > (1 << 20)) return 0;
  // The first byte picks binary or text format.
  const bool text = data[0] & 1;
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto module = xlite::ModuleFromSerializedProto(bytes, text, "fuzz.pb");
  if (!module.ok()) return 0;
  if (!xlite::VerifyModule(**module).ok()) return 0;
  const std::string printed = xlite::PrintModule(**module);
  auto reparsed = xlite::ParseHloModule(printed);
  if (!reparsed.ok()) {
    Fail("printed module does not parse",
         std::string(reparsed.status().message()) + "\n" + printed);
  }
  if (!xlite::VerifyModule(**reparsed).ok()) {
    Fail("printed module does not verify",
         std::string(xlite::VerifyModule(**reparsed).message()) + "\n" +
             printed);
  }
  auto proto = xlite::ModuleToProto(**module);
  if (!proto.ok()) Fail("export failed", std::string(proto.status().message()));
  auto back = xlite::ModuleFromSerializedProto(
      xlite::SerializeDeterministic(*proto), false, "fuzz-again.pb");
  if (!back.ok()) {
    Fail("exported proto does not load", std::string(back.status().message()));
  }
  std::string difference;
  if (!xlite::PrintsEqualUpToComputationOrder(**module, **back, &difference)) {
    Fail("exported proto prints differently", difference);
  }
  return 0;
}
