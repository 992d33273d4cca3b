#ifndef XLITE_GPU_BACKEND_GEMM_PATH_CACHE_H_
#define XLITE_GPU_BACKEND_GEMM_PATH_CACHE_H_

// --gemm-backend=auto's choices measured on a device, kept for compilers
// that have none (--gemm-path-cache=FILE), as XLA keeps autotuning
// results for deviceless compilation. Per (GPU spec name, region
// fingerprint) the path that ran fastest: "cublaslt" or a tiling as
// TiledGemmConfig::ToString prints it. A text file:
//
//   xlite-gemm-path-cache 1
//   # comment lines and blank lines are ignored
//   gpu=h100 region=5d41402abc4b2a76 path="64x64x32 mma warps 2x2" us=4.5
//
// Fields are NAME=VALUE separated by spaces in any order, a value quoted
// ("...", with \" and \\ escaped) or a bare word; gpu, region and path are
// required, us (the winner's measured time) is optional. A later line for
// the same key wins. A malformed file is refused with
// "FILE:LINE:COL: error: ...", never half read.

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/ir/module.h"
#include "hlo/ir/tiled_gemm_config.h"

namespace xlite::gpu {

inline constexpr char kGemmPathCacheHeader[] = "xlite-gemm-path-cache";
inline constexpr int kGemmPathCacheVersion = 1;

/// The fingerprint of a dot's region module (ExtractTiledGemmRegion): 16
/// hex digits of a stable 64-bit hash of its text, which names nothing
/// from the program it came from, so equal regions of different programs
/// (or layers of one) share an entry.
std::string GemmRegionFingerprint(const HloModule& region);

struct GemmPathEntry {
  /// The tiled kernel with this tiling; nullopt: the library (cuBLASLt).
  std::optional<TiledGemmConfig> tiling;
  double microseconds = -1;  // negative: not recorded
  /// "cublaslt" or the tiling's text.
  std::string PathName() const;
};

class GemmPathCache {
 public:
  const GemmPathEntry* Find(const std::string& gpu,
                            const std::string& region) const;
  void Insert(const std::string& gpu, const std::string& region,
              GemmPathEntry entry);
  size_t size() const { return entries_.size(); }

  std::string ToText() const;
  static absl::StatusOr<GemmPathCache> Parse(absl::string_view text,
                                             absl::string_view filename);
  /// Reads `path` (which must exist).
  static absl::StatusOr<GemmPathCache> Load(const std::string& path);

 private:
  std::map<std::pair<std::string, std::string>, GemmPathEntry> entries_;
};

}  // namespace xlite::gpu

#endif  // XLITE_GPU_BACKEND_GEMM_PATH_CACHE_H_
