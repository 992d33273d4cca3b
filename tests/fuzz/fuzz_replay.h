#ifndef XLITE_TESTS_FUZZ_FUZZ_REPLAY_H_
#define XLITE_TESTS_FUZZ_FUZZ_REPLAY_H_

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace xlite {
namespace testing {

/// Feeds `input` to the linked fuzz target, then every 37th prefix (up to
/// 4 KiB) and, when `flip_bytes`, copies with one byte changed at a
/// spread of positions: truncated or corrupted input must never crash.
inline void ReplayWithVariants(const std::string& input, bool flip_bytes) {
  auto run = [](const std::string& s) {
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(s.data()),
                           s.size());
  };
  run(input);
  for (size_t cut = 1; cut < input.size() && cut < 4096; cut += 37) {
    run(input.substr(0, cut));
  }
  if (!flip_bytes) return;
  const size_t step = input.size() / 97 + 1;
  for (size_t pos = 1; pos < input.size(); pos += step) {
    for (uint8_t value : {0x00, 0x01, 0x7f, 0xff}) {
      std::string copy = input;
      copy[pos] = static_cast<char>(value);
      run(copy);
    }
  }
}

}  // namespace testing
}  // namespace xlite

#endif  // XLITE_TESTS_FUZZ_FUZZ_REPLAY_H_
