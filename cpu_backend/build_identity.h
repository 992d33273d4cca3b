#ifndef XLITE_CPU_BACKEND_BUILD_IDENTITY_H_
#define XLITE_CPU_BACKEND_BUILD_IDENTITY_H_

// What code this process is running, as one digest: the compile cache
// (compile_cache.h) keys entries by it, so a rebuilt xlite, a relinked
// binary or an upgraded libLLVM never reuses code an older build compiled.
// A hand-bumped version number would miss the many rebuilds in between.

#include <string>

namespace xlite::cpu {

/// A hex SHA-256 over every ELF object loaded in this process (the
/// executable and its shared libraries): each one's GNU build id, or, for
/// one without a build id, its path, size and modification time. Computed
/// once per process.
const std::string& ProcessBuildIdentity();

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_BUILD_IDENTITY_H_
