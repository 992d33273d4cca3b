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

namespace xlite::runtime {
namespace {

std::string Quote(absl::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// One line of the file, scanned left to right; errors carry the line and
// the 1-based column where the problem starts.
class LineScanner {
 public:
  LineScanner(absl::string_view line, int line_number,
              absl::string_view filename)
      : line_(line), line_number_(line_number), filename_(filename) {}

  absl::Status Error(size_t at, absl::string_view message) const {
    return absl::InvalidArgumentError(absl::StrCat(
        filename_, ":", line_number_, ":", at + 1, ": error: ", message));
  }
  size_t at() const { return at_; }

  /// Skips blanks; true at the end of the line.
  bool AtEnd() {
    while (at_ < line_.size() && absl::ascii_isspace(line_[at_])) ++at_;
    return at_ == line_.size();
  }

  /// A field name: lower-case letters and underscores.
  absl::StatusOr<std::string> Name() {
    const size_t start = at_;
    while (at_ < line_.size() &&
           (absl::ascii_islower(line_[at_]) || line_[at_] == '_')) {
      ++at_;
    }
    if (at_ == start) return Error(start, "expected a field name");
    if (at_ == line_.size() || line_[at_] != '=') {
      return Error(at_, absl::StrCat("expected '=' after '",
                                     line_.substr(start, at_ - start), "'"));
    }
    ++at_;
    return std::string(line_.substr(start, at_ - 1 - start));
  }

  /// A quoted string or a bare word (up to the next blank).
  absl::StatusOr<std::string> Value() {
    if (at_ < line_.size() && line_[at_] == '"') return Quoted();
    const size_t start = at_;
    while (at_ < line_.size() && !absl::ascii_isspace(line_[at_])) ++at_;
    if (at_ == start) return Error(start, "expected a value");
    return std::string(line_.substr(start, at_ - start));
  }

 private:
  absl::StatusOr<std::string> Quoted() {
    const size_t open = at_++;
    std::string out;
    while (at_ < line_.size() && line_[at_] != '"') {
      char c = line_[at_++];
      if (c == '\\') {
        if (at_ == line_.size()) break;
        const char e = line_[at_++];
        if (e == 'n') {
          c = '\n';
        } else if (e == '"' || e == '\\') {
          c = e;
        } else {
          return Error(at_ - 2, absl::StrCat("unknown escape '\\",
                                             std::string(1, e), "'"));
        }
      }
      out += c;
    }
    if (at_ == line_.size()) return Error(open, "unterminated string");
    ++at_;
    return out;
  }

  absl::string_view line_;
  size_t at_ = 0;
  int line_number_;
  absl::string_view filename_;
};

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

// The fields of one entry as read, each with the column it started at.
struct Field {
  std::string value;
  size_t column = 0;
};

// One entry line into `cache`.
absl::Status ParseEntry(LineScanner& scan, GemmAutotuneCache& cache) {
  static constexpr absl::string_view kNames[] = {
      "device", "cublaslt", "cudnn", "gemm", "algorithm", "us", "label"};
  std::map<std::string, Field> fields;
  while (!scan.AtEnd()) {
    const size_t start = scan.at();
    absl::StatusOr<std::string> name = scan.Name();
    if (!name.ok()) return name.status();
    if (std::find(std::begin(kNames), std::end(kNames), *name) ==
        std::end(kNames)) {
      return scan.Error(start, absl::StrCat("unknown field '", *name,
                                            "'; expected device, cublaslt, "
                                            "cudnn, gemm, algorithm, us or "
                                            "label"));
    }
    if (fields.contains(*name)) {
      return scan.Error(start, absl::StrCat("field '", *name, "' given twice"));
    }
    const size_t value_at = scan.at();
    absl::StatusOr<std::string> value = scan.Value();
    if (!value.ok()) return value.status();
    fields[*name] = Field{*std::move(value), value_at};
  }
  for (absl::string_view required :
       {"device", "cublaslt", "cudnn", "gemm", "algorithm"}) {
    if (!fields.contains(std::string(required))) {
      return scan.Error(0, absl::StrCat("entry without '", required, "'"));
    }
  }
  GemmAutotuneKey key{fields["device"].value, fields["cublaslt"].value,
                      fields["cudnn"].value, fields["gemm"].value};
  GemmAutotuneEntry entry;
  const Field& words = fields["algorithm"];
  std::optional<std::array<uint64_t, 8>> data = ParseWords(words.value);
  if (!data) {
    return scan.Error(words.column,
                      "algorithm must be 8 comma-separated hex numbers");
  }
  entry.algorithm.data = *data;
  if (auto it = fields.find("us"); it != fields.end()) {
    if (!absl::SimpleAtod(it->second.value, &entry.microseconds) ||
        !(entry.microseconds >= 0)) {
      return scan.Error(it->second.column,
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
    absl::StrAppend(&out, "device=", Quote(key.device),
                    " cublaslt=", Quote(key.cublaslt),
                    " cudnn=", Quote(key.cudnn), " gemm=", Quote(key.gemm),
                    " algorithm=", GemmAlgorithmWords(entry.algorithm));
    if (entry.microseconds >= 0) {
      absl::StrAppend(&out,
                      " us=", absl::StrFormat("%.3f", entry.microseconds));
    }
    if (!entry.algorithm.label.empty()) {
      absl::StrAppend(&out, " label=", Quote(entry.algorithm.label));
    }
    out += '\n';
  }
  return out;
}

absl::StatusOr<GemmAutotuneCache> GemmAutotuneCache::Parse(
    absl::string_view text, absl::string_view filename) {
  GemmAutotuneCache cache;
  // An empty file (made by touch or mktemp) is an empty cache.
  if (absl::StripAsciiWhitespace(text).empty()) return cache;
  const std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  const std::string header =
      absl::StrCat(kGemmAutotuneCacheHeader, " ", kGemmAutotuneCacheVersion);
  const absl::string_view first =
      absl::StripTrailingAsciiWhitespace(lines.front());
  if (first != header) {
    const std::string prefix = absl::StrCat(kGemmAutotuneCacheHeader, " ");
    return absl::InvalidArgumentError(absl::StrCat(
        filename, ":1:1: error: ",
        absl::StartsWith(first, prefix)
            ? absl::StrCat("autotuning cache format version '",
                           first.substr(prefix.size()), "'; this xlite reads ",
                           kGemmAutotuneCacheVersion)
            : absl::StrCat("not an xlite GEMM autotuning cache (the first "
                           "line must be '",
                           header, "')")));
  }
  for (size_t i = 1; i < lines.size(); ++i) {
    const absl::string_view line = lines[i];
    const absl::string_view stripped = absl::StripLeadingAsciiWhitespace(line);
    if (stripped.empty() || stripped[0] == '#') continue;
    LineScanner scan(line, static_cast<int>(i + 1), filename);
    if (absl::Status s = ParseEntry(scan, cache); !s.ok()) return s;
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
