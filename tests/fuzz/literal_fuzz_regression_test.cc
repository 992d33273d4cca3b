// Replays the literal-reader fuzz target over the .npy/.npz/.txt oracle
// files, each truncated and with single bytes corrupted.
#include <gtest/gtest.h>

#include <string>

#include "absl/strings/match.h"
#include "tests/fuzz/fuzz_replay.h"
#include "tests/testing/paths.h"

namespace xlite {
namespace {

TEST(LiteralFuzzRegression, OracleFiles) {
  std::vector<std::string> files =
      testing::ListFiles("tests/runtime/testdata", "");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    std::optional<std::string> bytes = testing::ReadFile(f);
    ASSERT_TRUE(bytes.has_value()) << f;
    char selector = 2;                                 // text
    if (absl::EndsWith(f, ".npy")) selector = 3 * 11;  // npy, expect f32
    if (absl::EndsWith(f, ".npz")) selector = 1;
    testing::ReplayWithVariants(std::string(1, selector) + *bytes,
                                /*flip_bytes=*/true);
    if (absl::EndsWith(f, ".npy")) {  // and without a type
      testing::ReplayWithVariants(std::string(1, '\0') + *bytes, true);
    }
  }
}

// Raw inputs the literal fuzzer once failed on, replayed byte for byte.
TEST(LiteralFuzzRegression, Findings) {
  std::vector<std::string> files =
      testing::ListFiles("tests/fuzz/findings/literal", "");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    std::optional<std::string> bytes = testing::ReadFile(f);
    ASSERT_TRUE(bytes.has_value()) << f;
    testing::ReplayWithVariants(*bytes, /*flip_bytes=*/false);
  }
}

}  // namespace
}  // namespace xlite
