#ifndef XLITE_RUNTIME_GEMM_AUTOTUNE_CACHE_H_
#define XLITE_RUNTIME_GEMM_AUTOTUNE_CACHE_H_

// The GEMM autotuning results kept between runs (--autotune-cache=FILE):
// per (device, cuBLASLt version, cuDNN version, canonical GEMM) the
// algorithm chosen, so a second compilation on the same machine times
// nothing. A text file people can read, diff and edit:
//
//   xlite-gemm-autotune-cache 1
//   # comment lines and blank lines are ignored
//   device="NVIDIA H100 80GB HBM3 (sm_90)" cublaslt="130100" cudnn="91900"
//       gemm="__cublas$lt$matmul f32[16,32]{1,0} x ..." algorithm=15,0,...
//       us=12.5 label="id=21 tile=20 stages=8 ..."
//
// (one entry per line; wrapped here). Fields are NAME=VALUE separated by
// spaces, in any order; a value is a "quoted string" (\" \\ and \n
// escaped) or a bare word. device, cublaslt, cudnn, gemm and algorithm
// (cublasLtMatmulAlgo_t's 8 words in hex) are required; us (the measured
// time in microseconds) and label are optional. When two lines have the
// same key the later one wins, so caches can be concatenated. A malformed
// file is refused with "FILE:LINE:COL: error: ...", never half read.
// Written sorted by key, through a temporary file and a rename, so a
// reader never sees a partly written cache.

#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/gemm_algorithm.h"
#include "runtime/gemm_autotune_key.h"

namespace xlite::runtime {

/// The first line of every cache file.
inline constexpr char kGemmAutotuneCacheHeader[] = "xlite-gemm-autotune-cache";
/// The format version this build reads and writes.
inline constexpr int kGemmAutotuneCacheVersion = 1;

struct GemmAutotuneEntry {
  /// Its `tuned_for` is always the key's device and cuBLASLt version.
  GemmAlgorithm algorithm;
  /// The measured time; negative when unknown.
  double microseconds = -1;
};

class GemmAutotuneCache {
 public:
  /// The entry for `key`; null when there is none.
  const GemmAutotuneEntry* Find(const GemmAutotuneKey& key) const;
  /// Adds or replaces the entry for `key` (`tuned_for` set from the key).
  void Insert(const GemmAutotuneKey& key, GemmAutotuneEntry entry);
  size_t size() const { return entries_.size(); }

  /// The file's text: the header, a comment, the entries sorted by key.
  std::string ToText() const;
  /// Parses a cache file's text; `filename` is for messages.
  static absl::StatusOr<GemmAutotuneCache> Parse(absl::string_view text,
                                                 absl::string_view filename);

  /// Reads `path`; a file that does not exist yet is an empty cache.
  static absl::StatusOr<GemmAutotuneCache> Load(const std::string& path);
  /// Writes `path` atomically (a temporary beside it, then a rename).
  absl::Status Save(const std::string& path) const;

 private:
  std::map<GemmAutotuneKey, GemmAutotuneEntry> entries_;
};

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_GEMM_AUTOTUNE_CACHE_H_
