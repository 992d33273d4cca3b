#include "gpu_backend/gemm_path_cache.h"

#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hlo/text/printer.h"
#include "runtime/key_value_lines.h"

namespace xlite::gpu {
namespace {

using runtime::KeyValueError;
using runtime::KeyValueField;
using runtime::KeyValueFields;

constexpr absl::string_view kLibrary = "cublaslt";

// FNV-1a, 64 bits: the same on every build and machine.
uint64_t StableHash(absl::string_view text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

bool IsFingerprint(absl::string_view s) {
  if (s.size() != 16) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

absl::Status ParseEntry(absl::string_view line, int number,
                        absl::string_view filename, GemmPathCache& cache) {
  static constexpr absl::string_view kNames[] = {"gpu", "region", "path", "us"};
  absl::StatusOr<KeyValueFields> parsed = runtime::ParseKeyValueLine(
      line, number, filename, kNames, {"gpu", "region", "path"});
  if (!parsed.ok()) return parsed.status();
  KeyValueFields& fields = *parsed;
  const KeyValueField& region = fields["region"];
  if (!IsFingerprint(region.value)) {
    return KeyValueError(filename, number, region.column,
                         "region must be 16 lower-case hex digits");
  }
  GemmPathEntry entry;
  const KeyValueField& path = fields["path"];
  if (path.value != kLibrary) {
    entry.tiling = ParseTiledGemmConfig(path.value);
    if (!entry.tiling.has_value()) {
      return KeyValueError(
          filename, number, path.column,
          absl::StrCat("path must be \"cublaslt\" or a tiling such as "
                       "\"128x128x32 mma warps 2x2 stages 2\", not \"",
                       path.value, "\""));
    }
  }
  if (auto it = fields.find("us"); it != fields.end()) {
    if (!absl::SimpleAtod(it->second.value, &entry.microseconds) ||
        !(entry.microseconds >= 0)) {
      return KeyValueError(filename, number, it->second.column,
                           "us must be a time in microseconds (>= 0)");
    }
  }
  cache.Insert(fields["gpu"].value, region.value, std::move(entry));
  return absl::OkStatus();
}

}  // namespace

std::string GemmRegionFingerprint(const HloModule& region) {
  return absl::StrFormat("%016x", StableHash(PrintModule(region)));
}

std::string GemmPathEntry::PathName() const {
  return tiling.has_value() ? tiling->ToString() : std::string(kLibrary);
}

const GemmPathEntry* GemmPathCache::Find(const std::string& gpu,
                                         const std::string& region) const {
  auto it = entries_.find({gpu, region});
  return it == entries_.end() ? nullptr : &it->second;
}

void GemmPathCache::Insert(const std::string& gpu, const std::string& region,
                           GemmPathEntry entry) {
  entries_[{gpu, region}] = std::move(entry);
}

std::string GemmPathCache::ToText() const {
  std::string out = absl::StrCat(
      kGemmPathCacheHeader, " ", kGemmPathCacheVersion,
      "\n# --gemm-backend=auto measured (xlite --gemm-path-cache): per GPU "
      "spec and dot region, the path that ran fastest.\n");
  for (const auto& [key, entry] : entries_) {
    absl::StrAppend(&out, "gpu=", runtime::QuoteValue(key.first),
                    " region=", key.second,
                    " path=", runtime::QuoteValue(entry.PathName()));
    if (entry.microseconds >= 0) {
      absl::StrAppend(&out,
                      " us=", absl::StrFormat("%.3f", entry.microseconds));
    }
    out += '\n';
  }
  return out;
}

absl::StatusOr<GemmPathCache> GemmPathCache::Parse(absl::string_view text,
                                                   absl::string_view filename) {
  const runtime::KeyValueFormat format{kGemmPathCacheHeader,
                                       kGemmPathCacheVersion, "GEMM path cache",
                                       "GEMM path cache"};
  absl::StatusOr<std::vector<std::pair<int, absl::string_view>>> entries =
      runtime::KeyValueEntries(text, filename, format);
  if (!entries.ok()) return entries.status();
  GemmPathCache cache;
  for (const auto& [number, line] : *entries) {
    if (absl::Status s = ParseEntry(line, number, filename, cache); !s.ok()) {
      return s;
    }
  }
  return cache;
}

absl::StatusOr<GemmPathCache> GemmPathCache::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat(path, ": error: cannot read the GEMM path cache"));
  }
  return Parse(buffer.str(), path);
}

}  // namespace xlite::gpu
