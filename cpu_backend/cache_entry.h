#ifndef XLITE_CPU_BACKEND_CACHE_ENTRY_H_
#define XLITE_CPU_BACKEND_CACHE_ENTRY_H_

// One compiled module as the compile cache keeps it (compile_cache.h): what
// CpuExecutable needs to run it again without the pass pipeline or LLVM,
// and its byte format on disk.
//
// File layout (integers little-endian; a "string" is a u64 length and its
// bytes):
//   "XLITECPU"  magic, 8 bytes
//   u32         kCacheFormatVersion
//   string      the key (64 hex digits; a file under another name is stale)
//   string      hlo_text, u8 scheduled, string object,
//   string      assignment_digest
//   u64         number of constants, then per constant: u64 allocation
//               index and string bytes
//   u64         xxh3 64-bit checksum of every byte before it
// Anything else (short, long, other magic or version, a bad checksum) does
// not parse, and the cache treats it as absent.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace xlite::cpu {

/// Bump whenever the layout above or the meaning of a field changes.
inline constexpr uint32_t kCacheFormatVersion = 1;

struct CacheEntry {
  /// The module after the pipeline and PrepareForCpu, as printed with large
  /// constants elided (their bytes are in `constants`).
  std::string hlo_text;
  /// The text says is_scheduled=true so that it lists each computation's
  /// instructions in their order; this is the module's own flag.
  bool scheduled = false;
  /// The host object file defining kEntryName (module_emitter.h).
  std::string object;
  /// SHA-256 (hex) of the buffer assignment's ToString(): the object's
  /// allocation indices and offsets hold for a rebuilt assignment only if
  /// this matches.
  std::string assignment_digest;
  /// (allocation index, bytes) of every constant allocation, laid out as in
  /// memory.
  struct Constant {
    int64_t allocation = 0;
    std::string bytes;
  };
  std::vector<Constant> constants;

  /// Roughly the memory it takes (for the in-memory cache's bound).
  int64_t ByteSize() const;
};

/// The SHA-256 of `bytes` as 64 hex digits.
std::string Sha256Hex(absl::string_view bytes);

/// The file bytes of `entry` stored under `key`.
std::string SerializeCacheEntry(absl::string_view key, const CacheEntry& entry);

/// The entry in `bytes`, if they are a whole, intact entry of this format
/// stored under `key`.
std::optional<CacheEntry> ParseCacheEntry(absl::string_view bytes,
                                          absl::string_view key);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_CACHE_ENTRY_H_
