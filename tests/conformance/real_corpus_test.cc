// Every module of ../shared/hlo-corpus/real (39 modules XLA printed) parses,
// verifies, prints, and re-parses to an identical print and an equal module.
#include <gtest/gtest.h>

#include <string>

#include "hlo/analysis/verifier.h"
#include "hlo/proto/proto_convert.h"
#include "hlo/text/module_equal.h"
#include "hlo/text/parser.h"
#include "hlo/text/printer.h"
#include "tests/testing/paths.h"
#include "tests/testing/proto_normalize.h"

namespace xlite {
namespace {

std::vector<std::string> CorpusFiles() {
  std::optional<std::string> dir = testing::SharedCorpusDir();
  if (!dir.has_value()) return {};
  return testing::ListFiles(*dir, ".hlo");
}

class RealCorpusTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RealCorpusTest, ParsesVerifiesAndRoundTrips) {
  const std::string& path = GetParam();
  std::optional<std::string> text = testing::ReadFile(path);
  ASSERT_TRUE(text.has_value()) << path;
  ParseOptions options;
  options.filename = path;
  auto first = ParseHloModule(*text, options);
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_TRUE(VerifyModule(**first).ok()) << VerifyModule(**first).message();
  const std::string printed = PrintModule(**first);

  options.filename = path + " (printed)";
  auto second = ParseHloModule(printed, options);
  ASSERT_TRUE(second.ok()) << second.status().message() << "\n" << printed;
  ASSERT_TRUE(VerifyModule(**second).ok()) << VerifyModule(**second).message();
  // A fixpoint up to computation order, which XLA does not keep on a reparse.
  std::string difference;
  EXPECT_TRUE(PrintsEqualUpToComputationOrder(**first, **second, &difference))
      << "printing is not a fixpoint: " << difference;
  EXPECT_TRUE(ModulesEqual(**first, **second, &difference)) << difference;

  // A deep copy is equal too.
  auto clone = (*first)->Clone();
  EXPECT_TRUE(ModulesEqual(**first, *clone, &difference)) << difference;
  EXPECT_TRUE(VerifyModule(*clone).ok());
}

// Text -> HloModuleProto (serialized) -> module gives the same module, and
// exporting that module again gives the same bytes.
TEST_P(RealCorpusTest, ProtoRoundTrips) {
  const std::string& path = GetParam();
  std::optional<std::string> text = testing::ReadFile(path);
  ASSERT_TRUE(text.has_value()) << path;
  ParseOptions options;
  options.filename = path;
  auto module = ParseHloModule(*text, options);
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto proto = ModuleToProto(**module);
  if (!proto.ok()) {
    // The one thing text can hold that a proto cannot: a constant whose
    // value the dump elided (`{...}`). That must be the reason.
    ASSERT_NE(proto.status().message().find("elided"), std::string::npos)
        << proto.status().message();
    GTEST_SKIP() << proto.status().message();
  }
  const std::string bytes = SerializeDeterministic(*proto);
  auto back = ModuleFromSerializedProto(bytes, /*text=*/false, path + ".pb");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_TRUE(VerifyModule(**back).ok()) << VerifyModule(**back).message();
  testing::NormalizeAsProto(**module, /*keep_partition_counts=*/true);
  std::string difference;
  EXPECT_TRUE(PrintsEqualUpToComputationOrder(**back, **module, &difference))
      << difference;
  EXPECT_TRUE(ModulesEqual(**module, **back, &difference)) << difference;
  auto again = ModuleToProto(**back);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_TRUE(SerializeDeterministic(*again) == bytes)
      << "exporting the imported module gives different bytes";
}

INSTANTIATE_TEST_SUITE_P(Corpus, RealCorpusTest,
                         ::testing::ValuesIn(CorpusFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name =
                               info.param.substr(info.param.rfind('/') + 1);
                           name = name.substr(0, name.rfind('.'));
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           }
                           return name;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RealCorpusTest);

TEST(RealCorpus, ReportsWhereTheCorpusIs) {
  std::optional<std::string> dir = testing::SharedCorpusDir();
  if (!dir.has_value()) {
    GTEST_SKIP()
        << "../shared/hlo-corpus/real not found beside the checkout "
           "(set XLITE_HLO_CORPUS to point at it); corpus tests skipped";
  }
  EXPECT_GE(CorpusFiles().size(), 30u) << "in " << *dir;
  std::cout << "real corpus: " << *dir << " (" << CorpusFiles().size()
            << " modules)\n";
}

}  // namespace
}  // namespace xlite
