#ifndef XLITE_CPU_BACKEND_COMPILE_CACHE_H_
#define XLITE_CPU_BACKEND_COMPILE_CACHE_H_

// The compiled-module cache of the CPU backend: CpuExecutable::Compile looks
// a module up here before running the pipeline and LLVM, and stores what it
// compiled (cache_entry.h), so that compiling the same module again — in
// this process or, through the disk, in a later one — only parses the
// optimized module back, rebuilds its buffer assignment and links the kept
// object file.
//
// Key: a SHA-256 over the input module's text (as printed before any pass),
// every CompileOptions field, kCacheFormatVersion, the LLVM version, the
// host triple, CPU name and features, and the build identity of the running
// code (build_identity.h). Anything that changes the generated code changes
// one of these.
//
// In memory: a process-wide map, bounded in entries and bytes (least
// recently used out first). On disk: one file per key, DIR/cpu/KEY.xlc,
// under $XLITE_CACHE_DIR, else $XDG_CACHE_HOME/xlite, else
// $HOME/.cache/xlite; written to a temporary file and renamed, so readers
// never see half a file and concurrent writers of one key are harmless.
// A missing, truncated, corrupt or unreadable file is a miss; an unwritable
// directory only costs the cache (one note on stderr per process).

#include <cstdint>
#include <list>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "cpu_backend/cache_entry.h"
#include "cpu_backend/executable.h"

namespace xlite::cpu {

/// The cache key (64 hex digits) of compiling the module printed as
/// `module_text` with `options`, here.
std::string CompileCacheKey(absl::string_view module_text,
                            const CompileOptions& options);

class CompileCache {
 public:
  /// Bounds of the in-memory part (the process's cache's, by default).
  static constexpr int64_t kMaxMemoryEntries = 64;
  static constexpr int64_t kMaxMemoryBytes = int64_t{256} << 20;

  explicit CompileCache(int64_t max_entries = kMaxMemoryEntries,
                        int64_t max_bytes = kMaxMemoryBytes)
      : max_entries_(max_entries), max_bytes_(max_bytes) {}

  /// The process's cache.
  static CompileCache& Global();

  /// Where disk entries go now (from the environment, see above); "" when
  /// no directory is configured.
  static std::string Directory();

  /// The entry stored under `key`, from memory or else from disk; null when
  /// there is none.
  std::shared_ptr<const CacheEntry> Lookup(const std::string& key);

  /// Keeps `entry` under `key` in memory and on disk (replacing any).
  void Insert(const std::string& key, CacheEntry entry);

  /// Notes that an entry Lookup returned could not be used (the caller
  /// compiles again and Inserts the result over it).
  void NoteRejected();

  /// Forgets the in-memory entries (the disk keeps them).
  void ClearMemory();

  struct Stats {
    int64_t memory_hits = 0;
    int64_t disk_hits = 0;
    int64_t misses = 0;
    int64_t rejected = 0;
  };
  Stats stats() const;

 private:
  void KeepInMemory(const std::string& key,
                    std::shared_ptr<const CacheEntry> entry)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  struct Slot {
    std::shared_ptr<const CacheEntry> entry;
    std::list<std::string>::iterator age;  // position in recency_
  };
  const int64_t max_entries_;
  const int64_t max_bytes_;
  mutable absl::Mutex mutex_;
  absl::flat_hash_map<std::string, Slot> slots_ ABSL_GUARDED_BY(mutex_);
  std::list<std::string> recency_ ABSL_GUARDED_BY(mutex_);  // newest first
  int64_t bytes_ ABSL_GUARDED_BY(mutex_) = 0;
  Stats stats_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_COMPILE_CACHE_H_
