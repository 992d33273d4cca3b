#include "tests/conformance/translation_harness.h"

#include <cctype>
#include <iostream>
#include <map>
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "hlo/analysis/verifier.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "runtime/literal_io.h"
#include "tests/testing/paths.h"

namespace xlite::testing {
namespace {

// Modules larger than this (elements of every instruction together) take
// the interpreter too long for a unit test; they are reported as skipped.
constexpr int64_t kMaxElements = int64_t{1} << 24;

struct Counts {
  int compiled = 0;
  int matched = 0;
  std::map<std::string, int> refused;  // by reason
  std::map<std::string, int> skipped;  // by reason
};

Counts& TheCounts() {
  static Counts counts;
  return counts;
}

int64_t Elements(const Shape& s) {
  if (s.IsTuple()) {
    int64_t n = 0;
    for (const Shape& e : s.tuple_shapes()) n += Elements(e);
    return n;
  }
  return s.IsArray() ? s.ElementCount() : 0;
}

int64_t ModuleElements(const HloModule& m) {
  int64_t elements = 0;
  for (const HloComputation* c : m.computations()) {
    for (const HloInstruction* i : c->instructions()) {
      elements += Elements(i->shape());
    }
  }
  return elements;
}

// The refusal's reason: "(opcode): why" from "... %name (opcode): why".
std::string RefusalReason(absl::string_view message) {
  const size_t at = message.find("): ");
  if (at == absl::string_view::npos) return std::string(message);
  const size_t open = message.rfind('(', at);
  return std::string(message.substr(open == absl::string_view::npos ? at + 3
                                                                    : open));
}

// Counts and prints a compile-time refusal, which must be located.
void CountRefusal(const std::string& path, const TranslationPlatform& platform,
                  const absl::Status& status, Counts& counts) {
  const std::string message(status.message());
  EXPECT_TRUE(absl::StrContains(message, platform.refusal))
      << path << ": " << message;
  ++counts.refused[RefusalReason(message)];
  std::cout << "refused at compile time: " << message << "\n";
}

absl::StatusOr<std::vector<Literal>> Interpret(const HloModule& m,
                                               const PerDeviceArguments& args,
                                               DenormalMode denormals) {
  EvaluatorOptions options;
  options.denormals = denormals;
  const int64_t replicas = m.config().replica_count;
  const int64_t partitions = m.config().num_partitions;
  if (replicas * partitions != 1) {
    return EvaluateOnDevices(m, replicas, partitions, args, options);
  }
  absl::StatusOr<Literal> one = EvaluateModule(m, args[0], options);
  if (!one.ok()) return one.status();
  std::vector<Literal> out;
  out.push_back(*std::move(one));
  return out;
}

class Summary : public ::testing::Environment {
 public:
  explicit Summary(std::string platform) : platform_(std::move(platform)) {}
  void TearDown() override {
    const Counts& c = TheCounts();
    int refused = 0;
    for (const auto& [why, n] : c.refused) refused += n;
    std::cout << platform_ << ": " << c.compiled << " modules compiled, "
              << c.matched << " equal the interpreter (the others compiled "
              << "are not compared: skipped below); " << refused
              << " refused at compile time with a located error\n";
    for (const auto& [why, n] : c.refused) {
      std::cout << "  refused " << n << ": " << why << "\n";
    }
    for (const auto& [why, n] : c.skipped) {
      std::cout << "  skipped " << n << ": " << why << "\n";
    }
  }

 private:
  std::string platform_;
};

}  // namespace

std::vector<std::string> TranslationCases() {
  std::vector<std::string> out;
  if (std::optional<std::string> dir = SharedCorpusDir()) {
    for (const std::string& f : ListFiles(*dir, ".hlo")) out.push_back(f);
  }
  for (const char* sub : {"tests/lit/parser", "tests/lit/passes",
                          "tests/lit/run", "tests/lit/buffer_assignment",
                          "tests/lit/proto", "tests/lit/gpu"}) {
    for (const std::string& f : ListFiles(sub, ".hlo")) out.push_back(f);
  }
  return out;
}

std::string TranslationCaseName(
    const ::testing::TestParamInfo<std::string>& info) {
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
}

void CheckTranslation(const std::string& path,
                      const TranslationPlatform& platform) {
  Counts& counts = TheCounts();
  auto skip = [&](const std::string& why) {
    ++counts.skipped[why];
    GTEST_SKIP() << why;
  };
  std::optional<std::string> text = ReadFile(path);
  ASSERT_TRUE(text.has_value()) << path;
  ParseOptions options;
  options.filename = path;
  auto module = ParseHloModule(*text, options);
  if (!module.ok() || !VerifyModule(**module).ok()) {
    return skip("not a valid module (a parser or verifier test)");
  }
  const HloModule& m = **module;
  // Modules the interpreter cannot check are still compiled: the platform
  // must take them or refuse them naming the instruction.
  auto compile_only = [&](const std::string& why) {
    absl::StatusOr<TranslationRunner> run = platform.compile(m);
    if (!run.ok()) {
      // A module without its data (elided constants) may be refused
      // naming the constant instead.
      const std::string message(run.status().message());
      if (absl::StrContains(message, "has an elided value")) {
        return skip(why + "; refused: its constants have no data");
      }
      return CountRefusal(path, platform, run.status(), counts);
    }
    ++counts.compiled;
    skip(why + "; compiled, not compared");
  };
  if (ModuleElements(m) > kMaxElements) {
    return compile_only("too large for the interpreter");
  }
  std::mt19937_64 gen(42);
  std::vector<Literal> args;
  for (const HloInstruction* p :
       m.entry_computation()->parameter_instructions()) {
    args.push_back(RandomLiteral(p->shape(), gen));
  }
  const int64_t replicas = m.config().replica_count;
  const int64_t partitions = m.config().num_partitions;
  const PerDeviceArguments per_device(replicas * partitions, args);
  absl::StatusOr<std::vector<Literal>> want =
      Interpret(m, per_device, platform.denormals);
  if (!want.ok()) return compile_only("the interpreter cannot run it");
  absl::StatusOr<TranslationRunner> run = platform.compile(m);
  if (!run.ok()) return CountRefusal(path, platform, run.status(), counts);
  ++counts.compiled;
  absl::StatusOr<std::vector<Literal>> got =
      (*run)(replicas, partitions, per_device);
  ASSERT_TRUE(got.ok()) << path << ": " << got.status().message();
  ASSERT_EQ(got->size(), want->size());
  bool all = true;
  for (size_t d = 0; d < got->size(); ++d) {
    const std::string difference =
        ResultDifference((*got)[d], (*want)[d], platform.tolerance);
    EXPECT_EQ(difference, "") << path << " device " << d << " ("
                              << platform.name << " vs interpreter)";
    all &= difference.empty();
  }
  if (all) ++counts.matched;
}

::testing::Environment* TranslationSummary(const std::string& platform) {
  return new Summary(platform);
}

}  // namespace xlite::testing
