// The GPU profile report: rates and shares of the spec's peaks from known
// times, the sorting, the table, JSON and roofline chart; and a module with
// a dot and an element-wise fusion profiled on the emulator end to end.
// No assertion is about how long anything took on the emulator.
#include "gpu_backend/profile_report.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gpu_backend/executable.h"
#include "hlo/text/parser.h"

namespace xlite::gpu {
namespace {

using runtime::Thunk;
using runtime::ThunkProfile;

GpuTargetSpec H100() {
  absl::StatusOr<GpuTargetSpec> spec = LoadGpuTargetSpec("h100");
  EXPECT_TRUE(spec.ok());
  return *spec;
}

// The JSON's top-level object, parsed (a structural check).
google::protobuf::Struct ParseJson(const std::string& json) {
  google::protobuf::Struct parsed;
  auto status = google::protobuf::util::JsonStringToMessage(json, &parsed);
  EXPECT_TRUE(status.ok()) << status.ToString() << "\n" << json;
  return parsed;
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

// The table's line for `name`, or "".
std::string LineOf(const std::string& table, const std::string& name) {
  for (absl::string_view line : absl::StrSplit(table, '\n')) {
    if (absl::StartsWith(line, "  " + name + " ")) return std::string(line);
  }
  return "";
}

TEST(GpuProfileReport, SharesOfTheSpecsPeaksFromKnownTimes) {
  Thunk kernel;
  kernel.kind = Thunk::Kind::kKernel;
  kernel.kernel = "fusion_1";
  kernel.instruction = "fusion.1";
  kernel.cost = {3350000, 1000, "f32", "fusion:kLoop:add"};
  Thunk gemm;
  gemm.kind = Thunk::Kind::kGemm;
  gemm.instruction = "gemm.2";
  gemm.cost = {1000, 494500000, "bf16", "gemm"};
  ThunkProfile profile(ThunkProfile::Clock::kCudaEvents);
  profile.Record(gemm, 1e-6);    // 494.5 TFLOP/s: half the bf16 peak
  profile.Record(kernel, 2e-6);  // 1675 GB/s: half of HBM
  profile.RecordRun(4e-6);
  const GpuProfileSource source{"m", "gpu", &profile, H100()};

  const std::vector<GpuProfileRow> rows = GpuProfileRows(source);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].entry->name, "fusion_1");  // the longer first
  EXPECT_NEAR(rows[0].rates.percent_of_bandwidth, 50, 1e-9);
  EXPECT_FALSE(rows[0].rates.compute_bound);
  EXPECT_NEAR(rows[0].percent_of_run, 50, 1e-9);
  EXPECT_EQ(rows[1].entry->name, "gemm.2");
  EXPECT_NEAR(rows[1].rates.percent_of_compute, 50, 1e-9);
  EXPECT_TRUE(rows[1].rates.compute_bound);
  EXPECT_DOUBLE_EQ(rows[1].peak.flops_per_second, 989e12);

  const std::string table = FormatGpuProfileTable(source);
  EXPECT_TRUE(absl::StartsWith(
      table,
      "peak of h100 (sm_90a, data sheet): HBM 3350 GB/s; dense TFLOP/s f64 "
      "67, f32 67, tf32 495, bf16 989, f16 989, f8 1979, f4 0\n"
      "profile of m on gpu (h100): 1 run, 4.00 us in all, 3.00 us (75.0%) in "
      "2 kernels and library calls;"))
      << table;
  EXPECT_TRUE(absl::StrContains(table, "times: CUDA events")) << table;
  EXPECT_TRUE(absl::EndsWith(LineOf(table, "fusion_1"), "50.0 mem")) << table;
  EXPECT_TRUE(absl::EndsWith(LineOf(table, "gemm.2"), "50.0 fp")) << table;
  EXPECT_TRUE(absl::StrContains(LineOf(table, "gemm.2"), " 494.5 ")) << table;
  EXPECT_LT(table.find("  fusion_1 "), table.find("  gemm.2 "));
  EXPECT_TRUE(absl::StrContains(table, "\n  (total) ")) << table;

  google::protobuf::Struct json = ParseJson(FormatGpuProfileJson(source));
  EXPECT_EQ(json.fields().at("clock").string_value(), "CUDA events");
  const auto& kernels = json.fields().at("kernels").list_value().values();
  ASSERT_EQ(kernels.size(), 2);
  const auto& first = kernels[0].struct_value().fields();
  EXPECT_EQ(first.at("name").string_value(), "fusion_1");
  EXPECT_EQ(first.at("kind").string_value(), "kernel");
  EXPECT_EQ(first.at("bound").string_value(), "memory");
  EXPECT_NEAR(first.at("percent_of_peak").number_value(), 50, 1e-6);
  const auto& second = kernels[1].struct_value().fields();
  EXPECT_EQ(second.at("kind").string_value(), "gemm");
  EXPECT_EQ(second.at("flops").number_value(), 494500000);
  EXPECT_NEAR(second.at("tflops_per_second").number_value(), 494.5, 1e-6);
  EXPECT_EQ(
      json.fields().at("peak").struct_value().fields().at("gpu").string_value(),
      "h100");

  const std::string svg = FormatGpuRooflineSvg(source);
  EXPECT_EQ(Count(svg, "<circle class=\"kernel\""), 2);
  EXPECT_EQ(Count(svg, "class=\"ceiling\""), 2);  // f32 and bf16
  EXPECT_TRUE(absl::StrContains(svg, ">gemm.2<"));
}

TEST(GpuProfileReport, UnknownPeaksGiveNoShares) {
  Thunk kernel;
  kernel.kind = Thunk::Kind::kKernel;
  kernel.kernel = "k";
  kernel.cost = {64, 16, "f32", "add"};
  ThunkProfile profile(ThunkProfile::Clock::kEmulatorHostWall);
  profile.Record(kernel, 1e-6);
  profile.RecordRun(1e-6);
  GpuTargetSpec spec;
  spec.name = "mystery";
  const std::string table =
      FormatGpuProfileTable({"m", "gpu-emulator", &profile, spec});
  EXPECT_TRUE(absl::StartsWith(table, "peak of mystery: unknown")) << table;
  EXPECT_TRUE(absl::EndsWith(LineOf(table, "k"), " -")) << table;
  EXPECT_TRUE(absl::StrContains(table, "emulator host wall time")) << table;
}

TEST(GpuProfileReport, TheChartGoesBesideTheJson) {
  EXPECT_EQ(RooflineSvgPath("out/prof.json"), "out/prof.svg");
  EXPECT_EQ(RooflineSvgPath("prof"), "prof.svg");
  EXPECT_EQ(RooflineSvgPath("p.JSON.txt"), "p.JSON.txt.svg");
}

// A dot (a GEMM thunk after the pipeline's rewriter) and an element-wise
// fusion after it.
constexpr char kModule[] = R"(
HloModule prof
ENTRY e {
  a = f32[8,16] parameter(0)
  b = f32[16,32] parameter(1)
  d = f32[8,32] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  c = f32[8,32] parameter(2)
  m = f32[8,32] multiply(d, c)
  ROOT r = f32[8,32] add(m, c)
})";

TEST(GpuProfileReport, ProfilesADotAndAFusionOnTheEmulator) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<GpuCompileOptions> options =
      DefaultGpuCompileOptions(GpuCodeTarget::kEmulator);
  ASSERT_TRUE(options.ok());
  options->gemm_backend = GemmBackend::kCublasLt;  // a GEMM thunk
  absl::StatusOr<std::unique_ptr<GpuExecutable>> exe =
      GpuExecutable::Compile(*std::move(module), *options);
  ASSERT_TRUE(exe.ok()) << exe.status();
  std::vector<Literal> args;
  for (const HloInstruction* p :
       (*exe)->module().entry_computation()->parameter_instructions()) {
    args.emplace_back(p->shape());
  }
  ThunkProfile profile(ThunkProfile::Clock::kEmulatorHostWall);
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE((*exe)->Run(args, &profile).ok());
  }
  const GpuProfileSource source{"prof", "gpu-emulator", &profile,
                                options->spec};
  const std::vector<GpuProfileRow> rows = GpuProfileRows(source);
  ASSERT_EQ(rows.size(), 2u)
      << runtime::ThunkSequenceToString((*exe)->thunks());
  int gemms = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].calls, 2);
    if (i > 0) {
      EXPECT_GE(rows[i - 1].total_us, rows[i].total_us);
    }
    if (rows[i].entry->kind != Thunk::Kind::kGemm) continue;
    ++gemms;
    EXPECT_EQ(rows[i].entry->cost.flops, 2 * 8 * 32 * 16);  // 2*M*N*K
    EXPECT_EQ(rows[i].flops, 2 * 2 * 8 * 32 * 16);          // two runs
    EXPECT_EQ(rows[i].entry->cost.flop_type, "tf32");
  }
  EXPECT_EQ(gemms, 1);

  // One line per kernel and GEMM, in the rows' order; the GEMM's:
  // name, kind, op, type, calls, total, mean, % run, bytes, FLOPs, ...
  const std::string table = FormatGpuProfileTable(source);
  size_t previous = 0;
  for (const GpuProfileRow& row : rows) {
    EXPECT_EQ(Count(table, "\n  " + row.entry->name + " "), 1) << table;
    const size_t at = table.find("\n  " + row.entry->name + " ");
    EXPECT_GT(at, previous) << table;
    previous = at;
    if (row.entry->kind != Thunk::Kind::kGemm) continue;
    const std::vector<std::string> cells =
        absl::StrSplit(LineOf(table, row.entry->name), ' ', absl::SkipEmpty());
    ASSERT_EQ(cells.size(), 14u) << table;
    EXPECT_EQ(cells[1], "gemm");
    EXPECT_EQ(cells[3], "tf32");
    EXPECT_EQ(cells[4], "2");
    EXPECT_EQ(cells[8], "7168");  // a, b and d, twice
    EXPECT_EQ(cells[9], "16384");
  }

  const std::string dir = std::getenv("TEST_TMPDIR") != nullptr
                              ? std::getenv("TEST_TMPDIR")
                              : "/tmp";
  const std::string json_path = dir + "/prof.json";
  ASSERT_TRUE(WriteGpuProfileFiles(source, json_path).ok());
  std::stringstream json, svg;
  json << std::ifstream(json_path).rdbuf();
  svg << std::ifstream(dir + "/prof.svg").rdbuf();
  google::protobuf::Struct parsed = ParseJson(json.str());
  EXPECT_EQ(parsed.fields().at("platform").string_value(), "gpu-emulator");
  EXPECT_EQ(parsed.fields().at("runs").number_value(), 2);
  EXPECT_EQ(parsed.fields().at("kernels").list_value().values_size(), 2);
  EXPECT_EQ(Count(svg.str(), "<circle class=\"kernel\""), 2) << svg.str();
}

}  // namespace
}  // namespace xlite::gpu
