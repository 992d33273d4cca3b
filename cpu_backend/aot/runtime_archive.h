#ifndef XLITE_CPU_BACKEND_AOT_RUNTIME_ARCHIVE_H_
#define XLITE_CPU_BACKEND_AOT_RUNTIME_ARCHIVE_H_

// Where hlo-compile finds the runtime archive it links into every library
// (libxlite_aot_runtime.a, //cpu_backend/runtime_lib:aot_runtime): a data
// dependency of the tool, so in its runfiles under Bazel.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xlite::cpu {

/// The archive's file name.
inline constexpr char kAotRuntimeArchiveName[] = "libxlite_aot_runtime.a";

/// The archive's path: $XLITE_AOT_RUNTIME when set; else, for the running
/// program (/proc/self/exe, then `argv0`), its runfiles
/// (PROGRAM.runfiles/xlite/cpu_backend/runtime_lib/), the folder beside it
/// and the Bazel output tree around it (PROGRAM/../../cpu_backend/
/// runtime_lib/); else $RUNFILES_DIR or $TEST_SRCDIR. NotFound lists where
/// it looked.
absl::StatusOr<std::string> FindAotRuntimeArchive(absl::string_view argv0);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_AOT_RUNTIME_ARCHIVE_H_
