// Runs the fuzz target over its seed corpus and the shared real corpus, so
// every `bazel test //...` replays them without libFuzzer.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "tests/testing/paths.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace xlite {
namespace {

void RunFile(const std::string& path) {
  std::optional<std::string> text = testing::ReadFile(path);
  ASSERT_TRUE(text.has_value()) << path;
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(text->data()),
                         text->size());
  // Every prefix too: truncated input must never crash.
  for (size_t cut = 1; cut < text->size() && cut < 4096; cut += 37) {
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(text->data()), cut);
  }
}

TEST(FuzzRegression, SeedCorpus) {
  std::vector<std::string> files = testing::ListFiles("tests/fuzz/seeds", "");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) RunFile(f);
}

TEST(FuzzRegression, SharedCorpus) {
  std::optional<std::string> dir = testing::SharedCorpusDir();
  if (!dir.has_value()) GTEST_SKIP() << "shared corpus not found";
  for (const std::string& f : testing::ListFiles(*dir, ".hlo")) RunFile(f);
}

}  // namespace
}  // namespace xlite
