#ifndef XLITE_TESTS_CONFORMANCE_TRANSLATION_HARNESS_H_
#define XLITE_TESTS_CONFORMANCE_TRANSLATION_HARNESS_H_

// Translation validation across platforms, shared by the backends' tests
// (cpu_translation_test, gpu_translation_test): every module of
// ../shared/hlo-corpus/real and of the lit tests, on seeded random inputs,
// gives on the platform what the interpreter gives (under the platform's
// tolerance, tests/testing/result_difference.h) — or the platform refuses
// it at compile time with a located error naming the instruction. Never a
// crash, another compile error, a run error or a silent wrong answer.
//
// A test is a few lines: a TranslationPlatform, a TEST_P calling
// CheckTranslation, INSTANTIATE_TEST_SUITE_P over TranslationCases() named
// by TranslationCaseName, and the TranslationSummary environment, which
// prints the counts (compiled, matched, refused and skipped by reason).

#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/status/statusor.h"
#include "hlo/ir/denormal_mode.h"
#include "hlo/ir/literal.h"
#include "hlo/ir/module.h"
#include "tests/testing/result_difference.h"

namespace xlite::testing {

/// Arguments per device (every device gets the same ones).
using PerDeviceArguments = std::vector<std::vector<Literal>>;

/// A compiled module: runs it on `replicas` x `partitions` devices, one
/// result per device.
using TranslationRunner = std::function<absl::StatusOr<std::vector<Literal>>(
    int64_t replicas, int64_t partitions, const PerDeviceArguments& args)>;

/// A platform checked against the interpreter.
struct TranslationPlatform {
  /// hlo-run's --platform name ("cpu", "gpu-emulator").
  std::string name;
  /// The prefix of its located compile-time refusals ("the cpu backend
  /// cannot compile %").
  std::string refusal;
  /// Compiles a clone of the module.
  std::function<absl::StatusOr<TranslationRunner>(const HloModule&)> compile;
  ResultTolerance tolerance;
  /// The interpreter's denormal mode for this platform: flushed for the
  /// CPU (XLA:CPU's), IEEE for the GPU's (XLA:GPU keeps f32 subnormals).
  DenormalMode denormals = DenormalMode::kFlushToZero;
};

/// The module files: the shared real corpus and the lit tests' modules.
std::vector<std::string> TranslationCases();

/// A test name for a case ("real_<file>", "lit_<dir>_<file>").
std::string TranslationCaseName(
    const ::testing::TestParamInfo<std::string>& info);

/// Checks one module on `platform` (gtest expectations; skips modules the
/// interpreter cannot run or that are too large for it).
void CheckTranslation(const std::string& path,
                      const TranslationPlatform& platform);

/// The environment printing the counts at the end of the test program.
::testing::Environment* TranslationSummary(const std::string& platform);

}  // namespace xlite::testing

#endif  // XLITE_TESTS_CONFORMANCE_TRANSLATION_HARNESS_H_
