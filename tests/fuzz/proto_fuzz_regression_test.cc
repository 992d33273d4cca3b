// Replays the proto-reader fuzz target over protos made from the seed
// modules (and the shared real corpus when present), each also truncated
// and with single bytes corrupted, in binary and in text format.
#include <gtest/gtest.h>

#include <string>

#include "google/protobuf/text_format.h"
#include "hlo/proto/proto_convert.h"
#include "hlo/text/parser.h"
#include "tests/fuzz/fuzz_replay.h"
#include "tests/testing/paths.h"

namespace xlite {
namespace {

void RunModuleFile(const std::string& path) {
  std::optional<std::string> text = testing::ReadFile(path);
  ASSERT_TRUE(text.has_value()) << path;
  auto module = ParseHloModule(*text);
  if (!module.ok()) return;  // seeds include malformed text on purpose
  auto proto = ModuleToProto(**module);
  if (!proto.ok()) return;  // elided constants
  const std::string binary = SerializeDeterministic(*proto);
  // Corrupting bytes costs a full import per variant: small protos only.
  const bool flip = binary.size() < 8192;
  testing::ReplayWithVariants(std::string(1, '\0') + binary, flip);
  std::string pbtxt;
  google::protobuf::TextFormat::PrintToString(*proto, &pbtxt);
  testing::ReplayWithVariants(std::string(1, '\1') + pbtxt, flip);
}

TEST(ProtoFuzzRegression, SeedModules) {
  std::vector<std::string> files = testing::ListFiles("tests/fuzz/seeds", "");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) RunModuleFile(f);
}

// Raw inputs the proto fuzzer once failed on, replayed byte for byte.
TEST(ProtoFuzzRegression, Findings) {
  std::vector<std::string> files =
      testing::ListFiles("tests/fuzz/findings/proto", "");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    std::optional<std::string> bytes = testing::ReadFile(f);
    ASSERT_TRUE(bytes.has_value()) << f;
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes->data()),
                           bytes->size());
  }
}

TEST(ProtoFuzzRegression, SharedCorpus) {
  std::optional<std::string> dir = testing::SharedCorpusDir();
  if (!dir.has_value()) GTEST_SKIP() << "shared corpus not found";
  for (const std::string& f : testing::ListFiles(*dir, ".hlo")) {
    RunModuleFile(f);
  }
}

}  // namespace
}  // namespace xlite
