#include "runtime/gemm_autotune_session.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace xlite::runtime {
namespace {

bool HasGemm(const ThunkSequence& thunks) {
  for (const Thunk& t : thunks) {
    if (t.kind == Thunk::Kind::kGemm) return true;
    for (const ThunkSequence& child : t.children) {
      if (HasGemm(child)) return true;
    }
  }
  return false;
}

}  // namespace

absl::StatusOr<GemmAutotuneReport> RunGemmAutotuning(
    ThunkSequence& thunks, const GemmAutotuneOptions& options,
    const GemmTuningDeviceFactory& make_device) {
  GemmAutotuneReport report;
  const std::string& path = options.cache_path;
  if (!options.enabled) {
    if (!path.empty()) {
      report.note = absl::StrCat("--autotune=false: ", path,
                                 " is neither read nor written");
    }
    return report;
  }
  GemmAutotuneCache cache;
  if (!path.empty()) {
    absl::StatusOr<GemmAutotuneCache> loaded = GemmAutotuneCache::Load(path);
    if (!loaded.ok()) return loaded.status();
    cache = *std::move(loaded);
  }
  if (!HasGemm(thunks)) return report;
  absl::StatusOr<std::unique_ptr<GemmTuningDevice>> device = make_device();
  if (!device.ok()) {
    if (!path.empty()) {
      report.note =
          absl::StrCat("GEMM autotuning skipped (", device.status().message(),
                       "): ", path, " is not applied");
    }
    return report;
  }
  absl::StatusOr<GemmAutotuneStats> stats =
      AutotuneGemmThunks(thunks, **device, cache);
  if (!stats.ok()) {
    if (options.source.empty()) return stats.status();
    return absl::Status(
        stats.status().code(),
        absl::StrCat(options.source, ": error: ", stats.status().message()));
  }
  report.tuned = true;
  report.stats = *stats;
  report.note =
      absl::StrCat("GEMM autotuning on ", (*device)->platform().device, ": ",
                   stats->gemms, " GEMMs, ", stats->cache_hits,
                   " from the cache, ", stats->timed, " timed");
  if (!path.empty() && stats->timed > 0) {
    if (absl::Status s = cache.Save(path); !s.ok()) return s;
    absl::StrAppend(&report.note, " (", path, " updated)");
  }
  return report;
}

}  // namespace xlite::runtime
