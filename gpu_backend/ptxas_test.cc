// Every kernel of every corpus module the GPU backend compiles, and of the
// GPU lit modules (tests/lit/run/gpu_*.hlo: complex math, scatter, ...),
// assembled by ptxas for sm_90a (h100) and for sm_100a (b200, from sm_90
// PTX).
// Skips cleanly when ptxas is not installed.
#include <gtest/gtest.h>

#include <iostream>

#include "absl/strings/match.h"
#include "gpu_backend/executable.h"
#include "gpu_backend/ptx_compiler.h"
#include "hlo/text/parser.h"
#include "tests/testing/paths.h"

namespace xlite::gpu {
namespace {

class PtxasTest : public ::testing::TestWithParam<std::string> {};

TEST_P(PtxasTest, AssemblesForHopperAndBlackwell) {
  if (!FindPtxas().ok()) GTEST_SKIP() << FindPtxas().status().message();
  const std::string path = absl::EndsWith(GetParam(), ".hlo")
                               ? GetParam()
                               : GetParam() + "/after.hlo";
  std::optional<std::string> text = testing::ReadFile(path);
  ASSERT_TRUE(text.has_value()) << path;
  for (const char* spec_name : {"h100", "b200"}) {
    auto module = ParseHloModule(*text);
    ASSERT_TRUE(module.ok()) << module.status().message();
    auto options = DefaultGpuCompileOptions(GpuCodeTarget::kNvptx);
    ASSERT_TRUE(options.ok());
    auto spec = LoadGpuTargetSpec(spec_name);
    ASSERT_TRUE(spec.ok());
    options->spec = *spec;
    options->assemble = true;
    auto exe = GpuExecutable::Compile(*std::move(module), *options);
    if (!exe.ok() &&
        exe.status().code() == absl::StatusCode::kUnimplemented) {
      GTEST_SKIP() << "refused: " << exe.status().message();
    }
    ASSERT_TRUE(exe.ok()) << spec_name << ": " << exe.status().message();
    EXPECT_FALSE((*exe)->thunks().empty() && !(*exe)->ptx().empty());
    EXPECT_FALSE((*exe)->cubin().empty() && !(*exe)->thunks().empty())
        << spec_name;
  }
}

std::vector<std::string> Programs() {
  return testing::ListFiles("tests/corpus/programs", "");
}

std::vector<std::string> GpuLitModules() {
  std::vector<std::string> out;
  for (const std::string& f : testing::ListFiles("tests/lit/run", ".hlo")) {
    if (absl::StrContains(f.substr(f.rfind('/') + 1), "gpu_")) {
      out.push_back(f);
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, PtxasTest, ::testing::ValuesIn(Programs()),
    [](const ::testing::TestParamInfo<std::string>& i) {
      return i.param.substr(i.param.rfind('/') + 1);
    });

INSTANTIATE_TEST_SUITE_P(
    Lit, PtxasTest, ::testing::ValuesIn(GpuLitModules()),
    [](const ::testing::TestParamInfo<std::string>& i) {
      const size_t slash = i.param.rfind('/') + 1;
      return i.param.substr(slash, i.param.size() - slash - 4);
    });

}  // namespace
}  // namespace xlite::gpu
