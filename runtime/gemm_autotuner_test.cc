// The autotuner against a fake device: the fastest candidate whose result
// matches wins; a fast wrong one does not; when every candidate fails the
// error lists each with its reason; the cache answers before any timing,
// and a GEMM met twice is timed once.
#include "runtime/gemm_autotuner.h"

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/text/parser.h"
#include "runtime/fake_gemm_tuning_device.h"
#include "runtime/gemm_autotune_key.h"

namespace xlite::runtime {
namespace {

std::shared_ptr<const GemmDescription> Gemm(int64_t n) {
  const std::string config =
      "{\"gemm_backend_config\":{\"alpha_real\":1,\"beta\":0,"
      "\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":[1],"
      "\"rhs_contracting_dimensions\":[0]}}}";
  const std::string ns = std::to_string(n);
  absl::StatusOr<GemmDescription> gemm =
      DescribeGemm("__cublas$lt$matmul", config,
                   {*ParseShape("f32[4," + ns + "]{1,0}"),
                    *ParseShape("f32[" + ns + ",2]{1,0}")},
                   *ParseShape("(f32[4,2]{1,0}, s8[1024]{0})"));
  EXPECT_TRUE(gemm.ok()) << gemm.status();
  return std::make_shared<const GemmDescription>(*gemm);
}

Thunk GemmThunk(const std::string& name, int64_t n) {
  Thunk t;
  t.kind = Thunk::Kind::kGemm;
  t.instruction = name;
  t.gemm = Gemm(n);
  return t;
}

TEST(GemmAutotuner, PicksTheFastestCandidateThatWorks) {
  FakeGemmTuningDevice device(
      {{"id=0", 30.0},
       {"id=1", absl::InternalError("cublasLtMatmul failed")},
       {"id=2", 10.0},
       {"id=3", 20.0}});
  absl::StatusOr<std::unique_ptr<GemmTrial>> trial =
      device.StartTrial(*Gemm(8));
  ASSERT_TRUE(trial.ok());
  absl::StatusOr<GemmTuning> tuning =
      SelectGemmAlgorithm(**trial, "dot.1", *Gemm(8));
  ASSERT_TRUE(tuning.ok()) << tuning.status().message();
  EXPECT_EQ(tuning->index, 2);
  EXPECT_EQ(tuning->algorithm.label, "id=2");
  EXPECT_EQ(tuning->algorithm.data[0], 102);
  EXPECT_DOUBLE_EQ(tuning->microseconds, 10);
  EXPECT_EQ(device.measured, 4);
}

TEST(GemmAutotuner, AFastWrongCandidateLoses) {
  FakeGemmTuningDevice device(
      {{"id=0", 30.0}, {"id=1", 1.0, /*wrong=*/true}, {"id=2", 20.0}});
  absl::StatusOr<std::unique_ptr<GemmTrial>> trial =
      device.StartTrial(*Gemm(8));
  ASSERT_TRUE(trial.ok());
  absl::StatusOr<GemmTuning> tuning =
      SelectGemmAlgorithm(**trial, "dot.1", *Gemm(8));
  ASSERT_TRUE(tuning.ok()) << tuning.status().message();
  EXPECT_EQ(tuning->algorithm.label, "id=2");
}

TEST(GemmAutotuner, WhenEveryCandidateFailsTheErrorListsEachAndWhy) {
  FakeGemmTuningDevice device(
      {{"id=6 tile=20", absl::ResourceExhaustedError(
                            "needs 33554432 bytes of workspace, the call "
                            "has 1024")},
       {"id=21 tile=18",
        absl::InternalError("cublasLtMatmul failed (cublasStatus_t 15)")},
       {"", absl::InternalError("cublasLtMatmul failed (cublasStatus_t 13)")}});
  absl::StatusOr<std::unique_ptr<GemmTrial>> trial =
      device.StartTrial(*Gemm(8));
  ASSERT_TRUE(trial.ok());
  absl::StatusOr<GemmTuning> tuning =
      SelectGemmAlgorithm(**trial, "custom-call.3", *Gemm(8));
  ASSERT_FALSE(tuning.ok());
  EXPECT_EQ(tuning.status().message(),
            "%custom-call.3: no GEMM algorithm works for lt$matmul "
            "f32[4,8]{1,0} x f32[8,2]{1,0} -> (f32[4,2]{1,0}, s8[1024]{0}) "
            "alpha=1 beta=0 epilogue=DEFAULT: all 3 candidates failed:\n"
            "  candidate 0 (id=6 tile=20): needs 33554432 bytes of "
            "workspace, the call has 1024\n"
            "  candidate 1 (id=21 tile=18): cublasLtMatmul failed "
            "(cublasStatus_t 15)\n"
            "  candidate 2 (66,0,0,0,0,0,0,0): cublasLtMatmul failed "
            "(cublasStatus_t 13)");
}

TEST(GemmAutotuner, NoCandidatesOrNoListAreErrorsToo) {
  FakeGemmTuningDevice device({});
  absl::StatusOr<std::unique_ptr<GemmTrial>> trial =
      device.StartTrial(*Gemm(8));
  ASSERT_TRUE(trial.ok());
  absl::StatusOr<GemmTuning> tuning =
      SelectGemmAlgorithm(**trial, "dot.2", *Gemm(8));
  ASSERT_FALSE(tuning.ok());
  EXPECT_NE(tuning.status().message().find(
                "%dot.2: no GEMM algorithm works for lt$matmul"),
            std::string::npos);
  EXPECT_NE(
      tuning.status().message().find(": the library proposes no candidate"),
      std::string::npos)
      << tuning.status().message();

  class Unlisted : public GemmTrial {
    absl::StatusOr<std::vector<GemmAlgorithm>> Candidates() override {
      return absl::InternalError(
          "cublasLtMatmulAlgoGetHeuristic failed (cublasStatus_t 7)");
    }
    absl::StatusOr<GemmMeasurement> Measure(const GemmAlgorithm&) override {
      return absl::InternalError("unreachable");
    }
  } unlisted;
  tuning = SelectGemmAlgorithm(unlisted, "dot.2", *Gemm(8));
  ASSERT_FALSE(tuning.ok());
  EXPECT_NE(tuning.status().message().find(
                ": listing the candidates failed: "
                "cublasLtMatmulAlgoGetHeuristic failed (cublasStatus_t 7)"),
            std::string::npos)
      << tuning.status().message();
}

// Three GEMMs, two of them the same problem, one inside a while body.
ThunkSequence Program() {
  Thunk loop;
  loop.kind = Thunk::Kind::kWhile;
  loop.children = {{}, {GemmThunk("inner", 8)}};
  return {GemmThunk("first", 8), loop, GemmThunk("other", 16)};
}

TEST(GemmAutotuner, TunesEachGemmOnceAndTheCacheAnswersBeforeTiming) {
  FakeGemmTuningDevice device({{"id=0", 30.0}, {"id=1", 10.0}});
  GemmAutotuneCache cache;
  ThunkSequence thunks = Program();
  absl::StatusOr<GemmAutotuneStats> stats =
      AutotuneGemmThunks(thunks, device, cache);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->gemms, 3);
  EXPECT_EQ(stats->timed, 2);  // "inner" is "first" again
  EXPECT_EQ(stats->cache_hits, 1);
  EXPECT_EQ(device.trials, 2);
  EXPECT_EQ(device.measured, 4);
  EXPECT_EQ(cache.size(), 2);
  for (const Thunk* t : {&thunks[0], &thunks[1].children[1][0], &thunks[2]}) {
    ASSERT_TRUE(t->gemm_algorithm.has_value()) << t->instruction;
    EXPECT_EQ(t->gemm_algorithm->label, "id=1");
    EXPECT_EQ(t->gemm_algorithm->tuned_for,
              "Fake GPU (sm_90); cuBLASLt 130100");
  }
  const GemmAutotuneEntry* entry = cache.Find(
      {"Fake GPU (sm_90)", "130100", "91900", CanonicalGemm(*Gemm(16))});
  ASSERT_NE(entry, nullptr);
  EXPECT_DOUBLE_EQ(entry->microseconds, 10);

  // Again, from a cache read back from its file's text: nothing is timed.
  absl::StatusOr<GemmAutotuneCache> reread =
      GemmAutotuneCache::Parse(cache.ToText(), "cache.txt");
  ASSERT_TRUE(reread.ok());
  ThunkSequence again = Program();
  stats = AutotuneGemmThunks(again, device, *reread);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->cache_hits, 3);
  EXPECT_EQ(stats->timed, 0);
  EXPECT_EQ(device.trials, 2);
  EXPECT_EQ(device.measured, 4);
  EXPECT_EQ(ThunkSequenceToString(again), ThunkSequenceToString(thunks));

  // Another platform (a new cuDNN) misses.
  device.platform_.cudnn = "92000";
  ThunkSequence elsewhere = Program();
  stats = AutotuneGemmThunks(elsewhere, device, *reread);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->timed, 2);
  EXPECT_EQ(device.trials, 4);
}

TEST(GemmAutotuner, AGemmNothingRunsFailsTheWholeSequence) {
  FakeGemmTuningDevice device(
      {{"id=0", absl::InternalError("cublasStatus_t 15")}});
  GemmAutotuneCache cache;
  ThunkSequence thunks = Program();
  absl::StatusOr<GemmAutotuneStats> stats =
      AutotuneGemmThunks(thunks, device, cache);
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(
      stats.status().message().find("%first: no GEMM algorithm works for"),
      std::string::npos)
      << stats.status().message();
  EXPECT_EQ(cache.size(), 0);
}

}  // namespace
}  // namespace xlite::runtime
