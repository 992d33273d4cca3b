// libFuzzer entry point for the literal readers: .npy, .npz and HLO literal
// text. Beyond "no crash": an .npy that reads writes back and reads again
// to the same literal.
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "hlo/text/parser.h"
#include "runtime/literal_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > (1 << 20)) return 0;
  // The first byte picks the reader and, for raw .npy data, the type.
  const uint8_t selector = data[0];
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (selector % 3) {
    case 0: {
      std::optional<xlite::PrimitiveType> expected;
      const int type = selector / 3;
      if (type > 0 && type <= xlite::kLastPrimitiveType &&
          xlite::IsArrayType(static_cast<xlite::PrimitiveType>(type))) {
        expected = static_cast<xlite::PrimitiveType>(type);
      }
      auto literal = xlite::ParseNpy(bytes, "fuzz.npy", expected);
      if (!literal.ok()) return 0;
      auto written = xlite::SerializeNpy(*literal);
      if (!written.ok()) std::abort();
      auto again = xlite::ParseNpy(*written, "again.npy",
                                   literal->shape().element_type());
      if (!again.ok() || !(*again == *literal)) {
        std::cerr << "npy round trip failed: " << literal->ToString() << "\n";
        std::abort();
      }
      return 0;
    }
    case 1: {
      auto arrays = xlite::ParseNpz(bytes, "fuzz.npz");
      if (arrays.ok() && !xlite::SerializeNpz(*arrays).ok()) std::abort();
      return 0;
    }
    default: {
      std::vector<std::string> warnings;  // short literals warn; keep quiet
      xlite::ParseOptions options;
      options.warnings = &warnings;
      auto literal = xlite::ParseLiteral(bytes, options);
      if (!literal.ok()) return 0;
      const std::string text = literal->ToString();
      auto again = xlite::ParseLiteral(text);
      if (!again.ok() || again->ToString() != text) {
        std::cerr << "literal text round trip failed: " << text << "\n";
        std::abort();
      }
      return 0;
    }
  }
}
