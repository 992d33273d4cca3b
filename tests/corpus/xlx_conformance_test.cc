// The serialized GPU executable on the corpus: each module the GPU backend
// compiles is written as a .xlx (PTX + emulator IR), read back, and run on
// the emulator from the file alone; its results equal the direct run's
// bit for bit.
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "gpu_backend/emulator/emulator_image_device.h"
#include "gpu_backend/executable.h"
#include "gpu_backend/image_writer.h"
#include "hlo/text/parser.h"
#include "runtime/gpu_image_runner.h"
#include "runtime/literal_io.h"
#include "tests/testing/paths.h"

namespace xlite {
namespace {

constexpr char kPrograms[] = "tests/corpus/programs";

class XlxConformance : public ::testing::TestWithParam<std::string> {};

TEST_P(XlxConformance, FileRunEqualsDirectRun) {
  const std::string dir = GetParam();
  const std::string meta = testing::ReadFile(dir + "/meta.json").value_or("");
  const size_t at = meta.find("\"num_partitions\": ");
  if (at != std::string::npos && std::atoll(meta.c_str() + at + 18) > 1) {
    GTEST_SKIP() << "multi-device program";
  }
  std::optional<std::string> text = testing::ReadFile(dir + "/after.hlo");
  ASSERT_TRUE(text.has_value());
  auto module = ParseHloModule(*text);
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto compile = gpu::DefaultGpuCompileOptions(gpu::GpuCodeTarget::kEmulator);
  ASSERT_TRUE(compile.ok());
  auto direct = gpu::GpuExecutable::Compile((*module)->Clone(), *compile);
  if (!direct.ok() && direct.status().code() == absl::StatusCode::kUnimplemented) {
    GTEST_SKIP() << "refused: " << direct.status().message();
  }
  ASSERT_TRUE(direct.ok()) << direct.status().message();
  gpu::GpuImageOptions options;
  options.spec = compile->spec;
  options.cubins = false;  // ptxas is covered by ptxas_test
  auto image = gpu::CompileGpuImage(**module, options);
  ASSERT_TRUE(image.ok()) << image.status().message();
  EXPECT_FALSE(image->ptx.empty());
  const std::string bytes = runtime::SerializeGpuImage(*image);
  auto loaded = runtime::DeserializeGpuImage(bytes, dir + ".xlx");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  // Truncated copies are refused, not run.
  EXPECT_FALSE(
      runtime::DeserializeGpuImage(bytes.substr(0, bytes.size() / 2), "t").ok());

  std::vector<Literal> args;
  for (size_t i = 0; i < loaded->parameter_shapes.size(); ++i) {
    auto literal = ReadLiteralFile(absl::StrCat(dir, "/in_", i, ".npy"),
                                   &loaded->parameter_shapes[i]);
    ASSERT_TRUE(literal.ok()) << literal.status().message();
    args.push_back(*std::move(literal));
  }
  auto want = (*direct)->Run(args);
  ASSERT_TRUE(want.ok()) << want.status().message();
  auto device = gpu::emulator::EmulatorImageDevice::Create(*loaded);
  ASSERT_TRUE(device.ok()) << device.status().message();
  auto got = runtime::RunGpuImage(*loaded, **device, args);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_TRUE(*got == *want) << dir;
}

std::vector<std::string> Cases() { return testing::ListFiles(kPrograms, ""); }

INSTANTIATE_TEST_SUITE_P(
    Corpus, XlxConformance, ::testing::ValuesIn(Cases()),
    [](const ::testing::TestParamInfo<std::string>& i) {
      return i.param.substr(i.param.rfind('/') + 1);
    });

}  // namespace
}  // namespace xlite
