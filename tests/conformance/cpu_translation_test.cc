// Translation validation across platforms: every module of
// ../shared/hlo-corpus/real and of the lit tests, on seeded random inputs,
// gives on the cpu backend what the interpreter gives (integers exactly,
// floats within 1e-3 absolute + 1e-3 relative, NaN where NaN:
// tests/testing/result_difference.h) — or the cpu
// backend refuses it at compile time with a located error naming the
// instruction. Never a crash, never a silent wrong answer.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cpu_backend/executable.h"
#include "cpu_backend/multi_device.h"
#include "hlo/analysis/verifier.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "runtime/literal_io.h"
#include "tests/testing/paths.h"
#include "tests/testing/result_difference.h"

namespace xlite {
namespace {

// Modules larger than this (elements of every instruction together) take
// the interpreter too long for a unit test; they are reported as skipped.
constexpr int64_t kMaxElements = int64_t{1} << 24;

std::vector<std::string> Cases() {
  std::vector<std::string> out;
  if (std::optional<std::string> dir = testing::SharedCorpusDir()) {
    for (const std::string& f : testing::ListFiles(*dir, ".hlo")) {
      out.push_back(f);
    }
  }
  for (const char* sub : {"tests/lit/parser", "tests/lit/passes",
                          "tests/lit/run", "tests/lit/buffer_assignment",
                          "tests/lit/proto"}) {
    for (const std::string& f : testing::ListFiles(sub, ".hlo")) {
      out.push_back(f);
    }
  }
  return out;
}

int64_t Elements(const Shape& s) {
  if (s.IsTuple()) {
    int64_t n = 0;
    for (const Shape& e : s.tuple_shapes()) n += Elements(e);
    return n;
  }
  return s.IsArray() ? s.ElementCount() : 0;
}

int& Matched() { static int n = 0; return n; }
int& Rejected() { static int n = 0; return n; }

class CpuTranslation : public ::testing::TestWithParam<std::string> {};

TEST_P(CpuTranslation, MatchesTheInterpreterOrRejectsAtCompileTime) {
  const std::string& path = GetParam();
  std::optional<std::string> text = testing::ReadFile(path);
  ASSERT_TRUE(text.has_value()) << path;
  ParseOptions options;
  options.filename = path;
  auto module = ParseHloModule(*text, options);
  if (!module.ok() || !VerifyModule(**module).ok()) {
    GTEST_SKIP() << "not a valid module (a parser or verifier test)";
  }
  const HloModule& m = **module;
  const int64_t replicas = m.config().replica_count;
  const int64_t partitions = m.config().num_partitions;
  const int64_t devices = replicas * partitions;
  int64_t elements = 0;
  for (const HloComputation* c : m.computations()) {
    for (const HloInstruction* i : c->instructions()) {
      elements += Elements(i->shape());
    }
  }
  if (elements > kMaxElements) GTEST_SKIP() << "too large for the interpreter";
  std::mt19937_64 gen(42);
  std::vector<Literal> args;
  const HloComputation& entry = *m.entry_computation();
  for (const HloInstruction* p : entry.parameter_instructions()) {
    args.push_back(RandomLiteral(p->shape(), gen));
  }
  // Every device gets the same arguments.
  std::vector<std::vector<Literal>> per_device(devices, args);
  absl::StatusOr<std::vector<Literal>> want =
      devices == 1 ? absl::StatusOr<std::vector<Literal>>(absl::UnknownError(""))
                   : EvaluateOnDevices(m, replicas, partitions, per_device);
  if (devices == 1) {
    absl::StatusOr<Literal> one = EvaluateModule(m, args);
    if (one.ok()) {
      want = std::vector<Literal>();
      want->push_back(*std::move(one));
    } else {
      want = one.status();
    }
  }
  if (!want.ok()) GTEST_SKIP() << "interpreter: " << want.status().message();
  auto exe = cpu::CpuExecutable::Compile(m.Clone());
  if (!exe.ok()) {
    // A refusal must name the instruction, at compile time.
    EXPECT_TRUE(absl::StrContains(exe.status().message(),
                                  "the cpu backend cannot compile %"))
        << exe.status().message();
    ++Rejected();
    std::cout << "rejected at compile time: " << exe.status().message()
              << "\n";
    return;
  }
  absl::StatusOr<std::vector<Literal>> got = cpu::RunOnDevices(
      **exe, replicas, partitions, per_device);
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_EQ(got->size(), want->size());
  bool all = true;
  for (size_t d = 0; d < got->size(); ++d) {
    const std::string difference =
        testing::ResultDifference((*got)[d], (*want)[d]);
    EXPECT_EQ(difference, "") << path << " device " << d;
    all &= difference.empty();
  }
  if (all) ++Matched();
}

INSTANTIATE_TEST_SUITE_P(
    Modules, CpuTranslation, ::testing::ValuesIn(Cases()),
    [](const ::testing::TestParamInfo<std::string>& info) {
      std::string name = info.param;
      if (size_t s = name.rfind("/real/"); s != std::string::npos) {
        name = "real_" + name.substr(s + 6);
      } else if (size_t t = name.find("tests/lit/"); t != std::string::npos) {
        name = "lit_" + name.substr(t + 10);
      }
      name = name.substr(0, name.rfind('.'));
      for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

class Summary : public ::testing::Environment {
 public:
  void TearDown() override {
    std::cout << "cpu equals the interpreter on " << Matched()
              << " modules; " << Rejected()
              << " rejected at compile time with a located error\n";
  }
};
const auto* const kSummary = ::testing::AddGlobalTestEnvironment(new Summary());

}  // namespace
}  // namespace xlite
