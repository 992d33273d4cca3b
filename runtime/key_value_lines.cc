#include "runtime/key_value_lines.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace xlite::runtime {
namespace {

std::string QuoteValueImpl(absl::string_view s) {
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

}  // namespace

std::string QuoteValue(absl::string_view s) { return QuoteValueImpl(s); }

absl::Status KeyValueError(absl::string_view filename, int line_number,
                           size_t column, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(
      filename, ":", line_number, ":", column, ": error: ", message));
}

absl::StatusOr<std::vector<std::pair<int, absl::string_view>>> KeyValueEntries(
    absl::string_view text, absl::string_view filename,
    const KeyValueFormat& format) {
  std::vector<std::pair<int, absl::string_view>> entries;
  // An empty file (made by touch or mktemp) has no entries.
  if (absl::StripAsciiWhitespace(text).empty()) return entries;
  const std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  const std::string header = absl::StrCat(format.header, " ", format.version);
  const absl::string_view first =
      absl::StripTrailingAsciiWhitespace(lines.front());
  if (first != header) {
    const std::string prefix = absl::StrCat(format.header, " ");
    return KeyValueError(
        filename, 1, 1,
        absl::StartsWith(first, prefix)
            ? absl::StrCat(format.noun, " format version '",
                           first.substr(prefix.size()), "'; this xlite reads ",
                           format.version)
            : absl::StrCat("not an xlite ", format.what,
                           " (the first line must be '", header, "')"));
  }
  for (size_t i = 1; i < lines.size(); ++i) {
    const absl::string_view stripped =
        absl::StripLeadingAsciiWhitespace(lines[i]);
    if (stripped.empty() || stripped[0] == '#') continue;
    entries.emplace_back(static_cast<int>(i + 1), lines[i]);
  }
  return entries;
}

absl::StatusOr<KeyValueFields> ParseKeyValueLine(
    absl::string_view line, int line_number, absl::string_view filename,
    absl::Span<const absl::string_view> names,
    absl::Span<const absl::string_view> required) {
  LineScanner scan(line, line_number, filename);
  KeyValueFields fields;
  while (!scan.AtEnd()) {
    const size_t start = scan.at();
    absl::StatusOr<std::string> name = scan.Name();
    if (!name.ok()) return name.status();
    if (std::find(names.begin(), names.end(), *name) == names.end()) {
      std::string expected = absl::StrJoin(names.first(names.size() - 1), ", ");
      absl::StrAppend(&expected, " or ", names.back());
      return scan.Error(start, absl::StrCat("unknown field '", *name,
                                            "'; expected ", expected));
    }
    if (fields.contains(*name)) {
      return scan.Error(start, absl::StrCat("field '", *name, "' given twice"));
    }
    const size_t value_at = scan.at();
    absl::StatusOr<std::string> value = scan.Value();
    if (!value.ok()) return value.status();
    fields[*name] = KeyValueField{*std::move(value), value_at + 1};
  }
  for (absl::string_view r : required) {
    if (!fields.contains(std::string(r))) {
      return scan.Error(0, absl::StrCat("entry without '", r, "'"));
    }
  }
  return fields;
}

}  // namespace xlite::runtime
