// Runs the text-parser fuzz target over its seed corpus and the shared real
// corpus, so every `bazel test //...` replays them without libFuzzer.
#include <gtest/gtest.h>

#include <string>

#include "tests/fuzz/fuzz_replay.h"
#include "tests/testing/paths.h"

namespace xlite {
namespace {

void RunFile(const std::string& path) {
  std::optional<std::string> text = testing::ReadFile(path);
  ASSERT_TRUE(text.has_value()) << path;
  testing::ReplayWithVariants(*text, /*flip_bytes=*/false);
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
