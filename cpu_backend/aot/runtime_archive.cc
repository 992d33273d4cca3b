#include "cpu_backend/aot/runtime_archive.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xlite::cpu {

namespace {

namespace fs = std::filesystem;

// The archive's path inside the workspace (and so in runfiles).
constexpr char kWorkspacePath[] = "xlite/cpu_backend/runtime_lib";

// Where the archive may be for a program at `program`.
void CandidatesFor(const fs::path& program, std::vector<fs::path>* out) {
  if (program.empty()) return;
  const fs::path dir = program.parent_path();
  out->push_back(fs::path(program.string() + ".runfiles") / kWorkspacePath /
                 kAotRuntimeArchiveName);
  out->push_back(dir / kAotRuntimeArchiveName);
  // bazel-bin/tools/hlo-compile -> bazel-bin/cpu_backend/runtime_lib/.
  out->push_back(dir.parent_path() / "cpu_backend" / "runtime_lib" /
                 kAotRuntimeArchiveName);
}

}  // namespace

absl::StatusOr<std::string> FindAotRuntimeArchive(absl::string_view argv0) {
  if (const char* env = std::getenv("XLITE_AOT_RUNTIME");
      env != nullptr && *env) {
    if (fs::is_regular_file(env)) return std::string(env);
    return absl::NotFoundError(
        absl::StrCat("XLITE_AOT_RUNTIME=", env, " is not a file"));
  }
  std::vector<fs::path> candidates;
  std::error_code error;
  CandidatesFor(fs::read_symlink("/proc/self/exe", error), &candidates);
  if (!argv0.empty()) {
    CandidatesFor(
        fs::absolute(fs::path(std::string(argv0)), error).lexically_normal(),
        &candidates);
  }
  for (const char* env : {"RUNFILES_DIR", "TEST_SRCDIR"}) {
    if (const char* dir = std::getenv(env); dir != nullptr && *dir) {
      candidates.push_back(fs::path(dir) / kWorkspacePath /
                           kAotRuntimeArchiveName);
    }
  }
  std::vector<std::string> tried;
  for (const fs::path& candidate : candidates) {
    if (fs::is_regular_file(candidate, error)) return candidate.string();
    if (std::find(tried.begin(), tried.end(), candidate.string()) ==
        tried.end()) {
      tried.push_back(candidate.string());
    }
  }
  return absl::NotFoundError(
      absl::StrCat("cannot find the runtime archive ", kAotRuntimeArchiveName,
                   " (build //cpu_backend/runtime_lib:aot_runtime, or set "
                   "XLITE_AOT_RUNTIME); looked at ",
                   absl::StrJoin(tried, ", ")));
}

}  // namespace xlite::cpu
