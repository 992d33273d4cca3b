// Translation validation of the cpu backend (tests/conformance/
// translation_harness.h): every module of ../shared/hlo-corpus/real and of
// the lit tests gives on the cpu what the interpreter gives on seeded
// random inputs (integers exactly, floats within 1e-3 absolute + 1e-3
// relative: the same summation orders), on every device of the module, or
// is refused at compile time naming the instruction.
#include <memory>

#include "cpu_backend/executable.h"
#include "cpu_backend/multi_device.h"
#include "tests/conformance/translation_harness.h"

namespace xlite {
namespace {

testing::TranslationPlatform Cpu() {
  testing::TranslationPlatform cpu;
  cpu.name = "cpu";
  cpu.refusal = "the cpu backend cannot compile %";
  cpu.compile = [](const HloModule& m)
      -> absl::StatusOr<testing::TranslationRunner> {
    absl::StatusOr<std::unique_ptr<cpu::CpuExecutable>> exe =
        cpu::CpuExecutable::Compile(m.Clone());
    if (!exe.ok()) return exe.status();
    std::shared_ptr<cpu::CpuExecutable> shared = *std::move(exe);
    return [shared](int64_t replicas, int64_t partitions,
                    const testing::PerDeviceArguments& args) {
      return cpu::RunOnDevices(*shared, replicas, partitions, args);
    };
  };
  return cpu;
}

class CpuTranslation : public ::testing::TestWithParam<std::string> {};

TEST_P(CpuTranslation, MatchesTheInterpreterOrRejectsAtCompileTime) {
  testing::CheckTranslation(GetParam(), Cpu());
}

INSTANTIATE_TEST_SUITE_P(Modules, CpuTranslation,
                         ::testing::ValuesIn(testing::TranslationCases()),
                         testing::TranslationCaseName);

const auto* const kSummary =
    ::testing::AddGlobalTestEnvironment(testing::TranslationSummary("cpu"));

}  // namespace
}  // namespace xlite
