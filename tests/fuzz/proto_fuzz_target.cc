// libFuzzer entry point for the HloModuleProto reader (binary and text
// format), the verifier, the printer and the proto writer. Beyond "no
// crash": a proto that loads and verifies must print to text that parses
// and verifies, and must export to a proto that loads to the same print.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "hlo/parser.h"
#include "hlo/printer.h"
#include "hlo/proto_convert.h"
#include "hlo/verifier.h"

namespace {

[[noreturn]] void Fail(const std::string& what, const std::string& detail) {
  std::cerr << what << "\n" << detail << "\n";
  std::abort();
}

// The printed module with its computations (blocks separated by an empty
// line) sorted: XLA's computation order follows the module's order of
// computations, which a proto round trip does not keep.
std::string ModuloComputationOrder(const std::string& printed) {
  std::vector<std::string> blocks;
  size_t start = 0;
  while (start < printed.size()) {
    size_t end = printed.find("\n\n", start);
    if (end == std::string::npos) end = printed.size();
    blocks.push_back(printed.substr(start, end - start));
    start = end + 2;
  }
  if (blocks.size() > 1) std::sort(blocks.begin() + 1, blocks.end());
  std::string out;
  for (const std::string& block : blocks) out += block + "\n\n";
  return out;
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
  const std::string printed_back =
      ModuloComputationOrder(xlite::PrintModule(**back));
  const std::string printed_sorted = ModuloComputationOrder(printed);
  if (printed_back != printed_sorted) {
    const std::string& printed = printed_sorted;
    size_t at = 0;
    while (at < printed.size() && at < printed_back.size() &&
           printed[at] == printed_back[at]) {
      ++at;
    }
    const size_t line = printed.rfind('\n', at) + 1;
    Fail("exported proto prints differently",
         "first:  " + printed.substr(line, printed.find('\n', at) - line) +
             "\nagain:  " +
             printed_back.substr(line, printed_back.find('\n', at) - line));
  }
  return 0;
}
