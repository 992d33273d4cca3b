// The JAX corpus (tests/corpus/programs, made by generate.py): every module
// XLA produced, before and after its CPU pipeline, parses, verifies and
// round-trips through text; its HloModuleProto loads and equals the text;
// every argument and result file reads with the type the module gives it.
#include <gtest/gtest.h>

#include <string>

#include "hlo/analysis/verifier.h"
#include "hlo/proto/proto_convert.h"
#include "hlo/text/module_equal.h"
#include "hlo/text/parser.h"
#include "hlo/text/printer.h"
#include "runtime/literal_io.h"
#include "tests/testing/paths.h"
#include "tests/testing/proto_normalize.h"

namespace xlite {
namespace {

constexpr char kPrograms[] = "tests/corpus/programs";

std::vector<std::string> Programs() {
  return testing::ListFiles(kPrograms, "");
}

std::unique_ptr<HloModule> ParseFile(const std::string& path) {
  std::optional<std::string> text = testing::ReadFile(path);
  EXPECT_TRUE(text.has_value()) << path;
  if (!text.has_value()) return nullptr;
  ParseOptions options;
  options.filename = path;
  auto module = ParseHloModule(*text, options);
  EXPECT_TRUE(module.ok()) << module.status().message();
  if (!module.ok()) return nullptr;
  absl::Status verified = VerifyModule(**module);
  EXPECT_TRUE(verified.ok()) << verified.message();
  return verified.ok() ? *std::move(module) : nullptr;
}

class CorpusTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusTest, TextParsesVerifiesAndRoundTrips) {
  for (const char* stage : {"/before.hlo", "/after.hlo"}) {
    const std::string path = GetParam() + stage;
    std::unique_ptr<HloModule> module = ParseFile(path);
    ASSERT_NE(module, nullptr) << path;
    const std::string printed = PrintModule(*module);
    auto again = ParseHloModule(printed);
    ASSERT_TRUE(again.ok()) << again.status().message();
    ASSERT_TRUE(VerifyModule(**again).ok());
    // Equal up to computation order, which XLA does not keep on a reparse.
    std::string difference;
    EXPECT_TRUE(PrintsEqualUpToComputationOrder(*module, **again, &difference))
        << path << ": " << difference;
    EXPECT_TRUE(ModulesEqual(*module, **again, &difference))
        << path << ": " << difference;
  }
}

TEST_P(CorpusTest, ProtoEqualsText) {
  for (const char* stage : {"/before", "/after"}) {
    const std::string base = GetParam() + stage;
    std::unique_ptr<HloModule> text = ParseFile(base + ".hlo");
    ASSERT_NE(text, nullptr);
    std::optional<std::string> bytes = testing::ReadFile(base + ".pb");
    ASSERT_TRUE(bytes.has_value()) << base;
    xla::HloModuleProto proto;
    ASSERT_TRUE(proto.ParseFromString(*bytes)) << base;
    auto module = ModuleFromProto(proto, base + ".pb");
    ASSERT_TRUE(module.ok()) << module.status().message();
    absl::Status verified = VerifyModule(**module);
    ASSERT_TRUE(verified.ok()) << verified.message();
    testing::NormalizeAsProto(*text, proto.has_device_assignment());
    std::string difference;
    EXPECT_TRUE(ModulesEqual(*text, **module, &difference))
        << base << ": " << difference;
    // And xlite's export of it loads back to the same module.
    auto exported = ModuleToProto(**module);
    ASSERT_TRUE(exported.ok()) << exported.status().message();
    auto back = ModuleFromProto(*exported, base + ".pb (re-exported)");
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_TRUE(ModulesEqual(**module, **back, &difference))
        << base << ": " << difference;
  }
}

TEST_P(CorpusTest, ArgumentsAndResultsRead) {
  std::unique_ptr<HloModule> module = ParseFile(GetParam() + "/before.hlo");
  ASSERT_NE(module, nullptr);
  const HloComputation* entry = module->entry_computation();
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    const Shape& shape = entry->parameter_instruction(i)->shape();
    const std::string path = absl::StrCat(GetParam(), "/in_", i, ".npy");
    auto literal = ReadLiteralFile(path, &shape);
    EXPECT_TRUE(literal.ok()) << literal.status().message();
  }
  // Results: the root's leaves, flattened in order.
  std::vector<Shape> leaves;
  std::function<void(const Shape&)> flatten = [&](const Shape& s) {
    if (s.IsTuple()) {
      for (const Shape& e : s.tuple_shapes()) flatten(e);
    } else {
      leaves.push_back(s);
    }
  };
  flatten(entry->root_instruction()->shape());
  for (size_t i = 0; i < leaves.size(); ++i) {
    const std::string path = absl::StrCat(GetParam(), "/out_", i, ".npy");
    auto literal = ReadLiteralFile(path, &leaves[i]);
    EXPECT_TRUE(literal.ok()) << literal.status().message();
  }
  EXPECT_FALSE(testing::ReadFile(
                   absl::StrCat(GetParam(), "/out_", leaves.size(), ".npy"))
                   .has_value())
      << "more result files than results";
}

INSTANTIATE_TEST_SUITE_P(Programs, CorpusTest, ::testing::ValuesIn(Programs()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param.substr(info.param.rfind('/') + 1);
                         });

TEST(Corpus, HasTheProgramsTheIssueAsksFor) {
  EXPECT_GE(Programs().size(), 40u);
}

}  // namespace
}  // namespace xlite
