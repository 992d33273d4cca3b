#include "runtime/gemm_autotune_cache.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "runtime/key_value_lines.h"

namespace xlite::runtime {
namespace {

// cublasLtMatmulAlgo_t's words from "15,0,2a,...": exactly 8 hex numbers.
std::optional<std::array<uint64_t, 8>> ParseWords(absl::string_view text) {
  const std::vector<absl::string_view> parts = absl::StrSplit(text, ',');
  if (parts.size() != 8) return std::nullopt;
  std::array<uint64_t, 8> words{};
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].empty() || parts[i].size() > 16) return std::nullopt;
    for (char c : parts[i]) {
      if (!absl::ascii_isxdigit(c)) return std::nullopt;
    }
    if (!absl::SimpleHexAtoi(parts[i], &words[i])) return std::nullopt;
  }
  return words;
}

// One entry line into `cache`.
absl::Status ParseEntry(absl::string_view line, int line_number,
                        absl::string_view filename, GemmAutotuneCache& cache) {
  static constexpr absl::string_view kNames[] = {
      "device", "cublaslt", "cudnn", "gemm", "algorithm", "us", "label"};
  absl::StatusOr<KeyValueFields> parsed = ParseKeyValueLine(
      line, line_number, filename, kNames,
      {"device", "cublaslt", "cudnn", "gemm", "algorithm"});
  if (!parsed.ok()) return parsed.status();
  KeyValueFields& fields = *parsed;
  GemmAutotuneKey key{fields["device"].value, fields["cublaslt"].value,
                      fields["cudnn"].value, fields["gemm"].value};
  GemmAutotuneEntry entry;
  const KeyValueField& words = fields["algorithm"];
  std::optional<std::array<uint64_t, 8>> data = ParseWords(words.value);
  if (!data) {
    return KeyValueError(filename, line_number, words.column,
                         "algorithm must be 8 comma-separated hex numbers");
  }
  entry.algorithm.data = *data;
  if (auto it = fields.find("us"); it != fields.end()) {
    if (!absl::SimpleAtod(it->second.value, &entry.microseconds) ||
        !(entry.microseconds >= 0)) {
      return KeyValueError(filename, line_number, it->second.column,
                           "us must be a time in microseconds (>= 0)");
    }
  }
  if (auto it = fields.find("label"); it != fields.end()) {
    entry.algorithm.label = it->second.value;
  }
  cache.Insert(key, std::move(entry));
  return absl::OkStatus();
}

}  // namespace

const GemmAutotuneEntry* GemmAutotuneCache::Find(
    const GemmAutotuneKey& key) const {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : &it->second;
}

void GemmAutotuneCache::Insert(const GemmAutotuneKey& key,
                               GemmAutotuneEntry entry) {
  entry.algorithm.tuned_for = GemmAlgorithmScope(key.device, key.cublaslt);
  entries_[key] = std::move(entry);
}

std::string GemmAutotuneCache::ToText() const {
  std::string out = absl::StrCat(
      kGemmAutotuneCacheHeader, " ", kGemmAutotuneCacheVersion,
      "\n# GEMM autotuning results (xlite --autotune-cache): per device, "
      "cuBLASLt and cuDNN version and GEMM, the cuBLASLt algorithm chosen.\n");
  for (const auto& [key, entry] : entries_) {
    absl::StrAppend(&out, "device=", QuoteValue(key.device),
                    " cublaslt=", QuoteValue(key.cublaslt),
                    " cudnn=", QuoteValue(key.cudnn), " gemm=", QuoteValue(key.gemm),
                    " algorithm=", GemmAlgorithmWords(entry.algorithm));
    if (entry.microseconds >= 0) {
      absl::StrAppend(&out,
                      " us=", absl::StrFormat("%.3f", entry.microseconds));
    }
    if (!entry.algorithm.label.empty()) {
      absl::StrAppend(&out, " label=", QuoteValue(entry.algorithm.label));
    }
    out += '\n';
  }
  return out;
}

absl::StatusOr<GemmAutotuneCache> GemmAutotuneCache::Parse(
    absl::string_view text, absl::string_view filename) {
  GemmAutotuneCache cache;
  const KeyValueFormat format{kGemmAutotuneCacheHeader,
                              kGemmAutotuneCacheVersion,
                              "GEMM autotuning cache", "autotuning cache"};
  absl::StatusOr<std::vector<std::pair<int, absl::string_view>>> entries =
      KeyValueEntries(text, filename, format);
  if (!entries.ok()) return entries.status();
  for (const auto& [number, line] : *entries) {
    if (absl::Status s = ParseEntry(line, number, filename, cache); !s.ok()) {
      return s;
    }
  }
  return cache;
}

absl::StatusOr<GemmAutotuneCache> GemmAutotuneCache::Load(
    const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return GemmAutotuneCache();
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat(path, ": error: cannot read the autotuning cache"));
  }
  return Parse(buffer.str(), path);
}

absl::Status GemmAutotuneCache::Save(const std::string& path) const {
  // A unique temporary beside the file: the rename is then atomic, and
  // two processes saving at once each write whole files.
  static std::atomic<int64_t> counter{0};
  const std::string temp =
      absl::StrCat(path, ".tmp.", ::getpid(), ".", counter++);
  const std::string text = ToText();
  std::error_code error;
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) {
      std::filesystem::remove(temp, error);
      return absl::PermissionDeniedError(
          absl::StrCat(path, ": error: cannot write the autotuning cache"));
    }
  }
  std::filesystem::rename(temp, path, error);
  if (error) {
    const std::string why = error.message();
    std::filesystem::remove(temp, error);
    return absl::PermissionDeniedError(absl::StrCat(
        path, ": error: cannot write the autotuning cache (", why, ")"));
  }
  return absl::OkStatus();
}

}  // namespace xlite::runtime
