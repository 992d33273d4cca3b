#include "runtime/gemm_autotuner.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/ir/gemm_config.h"
#include "runtime/gemm_autotune_key.h"
#include "runtime/gemm_result_check.h"

namespace xlite::runtime {
namespace {

std::string CandidateName(int64_t index, const GemmAlgorithm& candidate) {
  return absl::StrCat(
      "candidate ", index, " (",
      candidate.label.empty() ? GemmAlgorithmWords(candidate) : candidate.label,
      ")");
}

absl::Status Failed(absl::string_view instruction, const GemmDescription& gemm,
                    absl::string_view why) {
  return absl::InternalError(
      absl::StrCat("%", instruction, ": no GEMM algorithm works for ",
                   GemmDescriptionToString(gemm), ": ", why));
}

absl::Status TuneAll(ThunkSequence& thunks, GemmTuningDevice& device,
                     GemmAutotuneCache& cache, GemmAutotuneStats& stats) {
  const GemmTuningPlatform& platform = device.platform();
  for (Thunk& t : thunks) {
    for (ThunkSequence& child : t.children) {
      if (absl::Status s = TuneAll(child, device, cache, stats); !s.ok()) {
        return s;
      }
    }
    if (t.kind != Thunk::Kind::kGemm || t.gemm == nullptr) continue;
    ++stats.gemms;
    const GemmAutotuneKey key{platform.device, platform.cublaslt,
                              platform.cudnn, CanonicalGemm(*t.gemm)};
    if (const GemmAutotuneEntry* hit = cache.Find(key); hit != nullptr) {
      ++stats.cache_hits;
      t.gemm_algorithm = hit->algorithm;
      continue;
    }
    absl::StatusOr<std::unique_ptr<GemmTrial>> trial =
        device.StartTrial(*t.gemm);
    if (!trial.ok()) {
      return Failed(t.instruction, *t.gemm, trial.status().message());
    }
    absl::StatusOr<GemmTuning> tuning =
        SelectGemmAlgorithm(**trial, t.instruction, *t.gemm);
    if (!tuning.ok()) return tuning.status();
    ++stats.timed;
    cache.Insert(key,
                 GemmAutotuneEntry{tuning->algorithm, tuning->microseconds});
    t.gemm_algorithm = cache.Find(key)->algorithm;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<GemmTuning> SelectGemmAlgorithm(GemmTrial& trial,
                                               absl::string_view instruction,
                                               const GemmDescription& gemm) {
  absl::StatusOr<std::vector<GemmAlgorithm>> candidates = trial.Candidates();
  if (!candidates.ok()) {
    return Failed(instruction, gemm,
                  absl::StrCat("listing the candidates failed: ",
                               candidates.status().message()));
  }
  if (candidates->empty()) {
    return Failed(instruction, gemm, "the library proposes no candidate");
  }
  const Shape& d = GemmOutputShape(gemm.result);
  std::optional<GemmTuning> best;
  std::optional<int64_t> reference_index;
  std::string reference;
  std::vector<std::string> failures;
  for (size_t i = 0; i < candidates->size(); ++i) {
    const GemmAlgorithm& candidate = (*candidates)[i];
    absl::StatusOr<GemmMeasurement> run = trial.Measure(candidate);
    absl::Status why = run.status();
    if (run.ok() && !reference_index) {
      reference_index = i;
      reference = run->result;
    } else if (run.ok()) {
      why = CompareGemmResults(d, reference, run->result);
      if (!why.ok()) {
        why = absl::InternalError(
            absl::StrCat("its result differs from candidate ", *reference_index,
                         "'s: ", why.message()));
      }
    }
    if (!why.ok()) {
      failures.push_back(
          absl::StrCat("  ", CandidateName(i, candidate), ": ", why.message()));
      continue;
    }
    if (!best || run->microseconds < best->microseconds) {
      best = GemmTuning{candidate, run->microseconds, static_cast<int64_t>(i)};
    }
  }
  if (best) return *std::move(best);
  return Failed(
      instruction, gemm,
      absl::StrCat("all ", candidates->size(), " candidates failed:\n",
                   absl::StrJoin(failures, "\n")));
}

absl::StatusOr<GemmAutotuneStats> AutotuneGemmThunks(ThunkSequence& thunks,
                                                     GemmTuningDevice& device,
                                                     GemmAutotuneCache& cache) {
  GemmAutotuneStats stats;
  if (absl::Status s = TuneAll(thunks, device, cache, stats); !s.ok()) {
    return s;
  }
  return stats;
}

}  // namespace xlite::runtime
