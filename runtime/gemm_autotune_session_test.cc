// --autotune and --autotune-cache over a module's thunks, with a fake
// device: the cache is read first (a malformed one fails at once), hits
// skip timing, new results are written back; without a device, or with
// --autotune=false, nothing changes and the note says why.
#include "runtime/gemm_autotune_session.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "hlo/text/parser.h"
#include "runtime/fake_gemm_tuning_device.h"

namespace xlite::runtime {
namespace {

Thunk GemmThunk(const std::string& name, int64_t k) {
  const std::string ks = std::to_string(k);
  absl::StatusOr<GemmDescription> gemm = DescribeGemm(
      "__cublas$lt$matmul",
      "{\"gemm_backend_config\":{\"alpha_real\":1,\"dot_dimension_numbers\":"
      "{\"lhs_contracting_dimensions\":[1],\"rhs_contracting_dimensions\":"
      "[0]}}}",
      {*ParseShape("f32[4," + ks + "]{1,0}"),
       *ParseShape("f32[" + ks + ",2]{1,0}")},
      *ParseShape("f32[4,2]{1,0}"));
  EXPECT_TRUE(gemm.ok()) << gemm.status();
  Thunk t;
  t.kind = Thunk::Kind::kGemm;
  t.instruction = name;
  t.gemm = std::make_shared<const GemmDescription>(*gemm);
  return t;
}

ThunkSequence Program() {
  return {GemmThunk("a", 8), GemmThunk("b", 8), GemmThunk("c", 16)};
}

bool AnyTuned(const ThunkSequence& thunks) {
  for (const Thunk& t : thunks) {
    if (t.gemm_algorithm) return true;
  }
  return false;
}

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class GemmAutotuneSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/gemm_autotune_session_test";
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }

  // A factory over `device_`, counting the calls.
  GemmTuningDeviceFactory Factory() {
    return [this]() -> absl::StatusOr<std::unique_ptr<GemmTuningDevice>> {
      ++devices_made_;
      auto device = std::make_unique<FakeGemmTuningDevice>(candidates_);
      device->trials = 0;
      last_ = device.get();
      return std::unique_ptr<GemmTuningDevice>(std::move(device));
    };
  }
  static GemmTuningDeviceFactory NoDevice() {
    return []() -> absl::StatusOr<std::unique_ptr<GemmTuningDevice>> {
      return absl::FailedPreconditionError(
          "no CUDA device: libcuda.so.1 (the NVIDIA driver) is not installed");
    };
  }

  std::string dir_;
  std::vector<FakeCandidate> candidates_ = {{"id=0", 30.0}, {"id=1", 10.0}};
  int devices_made_ = 0;
  FakeGemmTuningDevice* last_ = nullptr;
};

TEST_F(GemmAutotuneSessionTest, TunesWritesTheCacheAndThenOnlyReadsIt) {
  const std::string path = dir_ + "/cache.txt";
  ThunkSequence thunks = Program();
  absl::StatusOr<GemmAutotuneReport> report =
      RunGemmAutotuning(thunks, {true, path}, Factory());
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_TRUE(report->tuned);
  EXPECT_EQ(report->stats.timed, 2);
  EXPECT_EQ(report->note,
            "GEMM autotuning on Fake GPU (sm_90): 3 GEMMs, 1 from the cache, "
            "2 timed (" +
                path + " updated)");
  for (const Thunk& t : thunks) {
    ASSERT_TRUE(t.gemm_algorithm) << t.instruction;
    EXPECT_EQ(t.gemm_algorithm->label, "id=1");
  }
  const std::string written = Read(path);
  EXPECT_NE(written.find("gemm=\"__cublas$lt$matmul f32[4,16]{1,0}"),
            std::string::npos)
      << written;

  // A second compilation: every GEMM from the file, nothing timed, the
  // file left as it was.
  ThunkSequence again = Program();
  report = RunGemmAutotuning(again, {true, path}, Factory());
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->stats.cache_hits, 3);
  EXPECT_EQ(report->stats.timed, 0);
  EXPECT_EQ(last_->measured, 0);
  EXPECT_EQ(report->note,
            "GEMM autotuning on Fake GPU (sm_90): 3 GEMMs, 3 from the cache, "
            "0 timed");
  EXPECT_EQ(Read(path), written);
  EXPECT_EQ(ThunkSequenceToString(again), ThunkSequenceToString(thunks));
}

TEST_F(GemmAutotuneSessionTest, AMalformedCacheFailsBeforeAnyDevice) {
  const std::string path = dir_ + "/bad.txt";
  std::ofstream(path) << "xlite-gemm-autotune-cache 1\ndevice=\"x\n";
  ThunkSequence thunks = Program();
  absl::StatusOr<GemmAutotuneReport> report =
      RunGemmAutotuning(thunks, {true, path}, Factory());
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().message(),
            path + ":2:8: error: unterminated string");
  EXPECT_EQ(devices_made_, 0);
  // Even with no device to tune on.
  EXPECT_FALSE(RunGemmAutotuning(thunks, {true, path}, NoDevice()).ok());
}

TEST_F(GemmAutotuneSessionTest, WithoutADeviceNothingChanges) {
  const std::string path = dir_ + "/cache.txt";
  ThunkSequence thunks = Program();
  absl::StatusOr<GemmAutotuneReport> report =
      RunGemmAutotuning(thunks, {true, path}, NoDevice());
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_FALSE(report->tuned);
  EXPECT_EQ(report->note,
            "GEMM autotuning skipped (no CUDA device: libcuda.so.1 (the "
            "NVIDIA driver) is not installed): " +
                path + " is not applied");
  EXPECT_FALSE(AnyTuned(thunks));
  EXPECT_FALSE(std::filesystem::exists(path));
  // Without a cache file asked for, nothing worth saying.
  report = RunGemmAutotuning(thunks, {true, ""}, NoDevice());
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->note, "");
}

TEST_F(GemmAutotuneSessionTest, AutotuneFalseReadsNothingAndTimesNothing) {
  const std::string path = dir_ + "/bad.txt";
  std::ofstream(path) << "not a cache\n";
  ThunkSequence thunks = Program();
  absl::StatusOr<GemmAutotuneReport> report =
      RunGemmAutotuning(thunks, {false, path}, Factory());
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(devices_made_, 0);
  EXPECT_FALSE(AnyTuned(thunks));
  EXPECT_EQ(report->note,
            "--autotune=false: " + path + " is neither read nor written");
}

TEST_F(GemmAutotuneSessionTest, NoGemmNoDevice) {
  ThunkSequence thunks(1);  // one kernel
  thunks[0].kernel = "k";
  absl::StatusOr<GemmAutotuneReport> report =
      RunGemmAutotuning(thunks, {true, dir_ + "/c.txt"}, Factory());
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(devices_made_, 0);
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/c.txt"));
}

TEST_F(GemmAutotuneSessionTest, FailuresAreErrors) {
  // An unwritable cache.
  ThunkSequence thunks = Program();
  absl::StatusOr<GemmAutotuneReport> report =
      RunGemmAutotuning(thunks, {true, dir_ + "/missing/dir/c.txt"}, Factory());
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("cannot write"), std::string::npos);
  // A GEMM nothing runs.
  candidates_ = {{"id=0", absl::InternalError("cublasStatus_t 15")}};
  thunks = Program();
  report = RunGemmAutotuning(thunks, {true, "", "m.hlo"}, Factory());
  ASSERT_FALSE(report.ok());
  EXPECT_TRUE(absl::StartsWith(
      report.status().message(),
      "m.hlo: error: %a: no GEMM algorithm works for lt$matmul"))
      << report.status().message();
}

}  // namespace
}  // namespace xlite::runtime
