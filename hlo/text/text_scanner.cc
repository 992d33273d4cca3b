#include "hlo/text/text_scanner.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hlo/ir/attributes.h"

namespace xlite {
namespace {

bool IsIdentifierStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}

bool IsIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
         c == '-';
}

bool IsNameChar(char c) { return IsIdentifierChar(c) || c == '$'; }

}  // namespace

TextScanner::TextScanner(absl::string_view text, std::string filename,
                         int line_offset)
    : text_(text), filename_(std::move(filename)), line_offset_(line_offset) {}

void TextScanner::SkipSpaceAndComments() {
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
        c == '\v') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '*') {
      size_t end = text_.find("*/", pos_ + 2);
      if (end == absl::string_view::npos) {
        ErrorAt(pos_, "unterminated /* comment");
        pos_ = text_.size();
        return;
      }
      pos_ = end + 2;
    } else {
      return;
    }
  }
}

char TextScanner::Peek() {
  SkipSpaceAndComments();
  return pos_ < text_.size() ? text_[pos_] : '\0';
}

char TextScanner::PeekAt(size_t n) {
  Peek();
  return pos_ + n < text_.size() ? text_[pos_ + n] : '\0';
}

bool TextScanner::Consume(char c) {
  if (Peek() == c && pos_ < text_.size()) {
    ++pos_;
    return true;
  }
  return false;
}

bool TextScanner::ConsumeString(absl::string_view s) {
  Peek();
  if (text_.substr(pos_, s.size()) == s) {
    pos_ += s.size();
    return true;
  }
  return false;
}

bool TextScanner::Expect(char c, const What& what) {
  if (Consume(c)) return true;
  const char next = Peek();
  std::string seen = next == '\0'
                         ? "end of input"
                         : absl::StrCat("'", std::string(1, next), "'");
  return Error(absl::StrCat("expected '", std::string(1, c), "' ", what.str(),
                            ", but found ", seen));
}

std::string TextScanner::ReadIdentifier() {
  if (!IsIdentifierStart(Peek())) return "";
  return ReadWhile(IsIdentifierChar);
}

std::string TextScanner::PeekIdentifier() {
  const size_t saved = pos_;
  std::string id = ReadIdentifier();
  pos_ = saved;
  return id;
}

bool TextScanner::LooksLikeIdentifierFollowedBy(char then) {
  const size_t saved = pos_;
  std::string id = ReadIdentifier();
  bool ok = !id.empty();
  if (ok && then != 0) {
    ok = pos_ < text_.size() && text_[pos_] == then;
  }
  pos_ = saved;
  return ok;
}

std::string TextScanner::ReadName() {
  Peek();
  if (pos_ < text_.size() && text_[pos_] == '%') {
    size_t end = pos_ + 1;
    while (end < text_.size() && IsNameChar(text_[end])) ++end;
    if (end == pos_ + 1) return "";
    std::string name(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end;
    return name;
  }
  if (pos_ < text_.size() && IsIdentifierStart(text_[pos_])) {
    return ReadWhile(IsNameChar);
  }
  return "";
}

bool TextScanner::ReadInt64(int64_t* value, const What& what) {
  const size_t start = Position();
  size_t end = pos_;
  if (end < text_.size() && (text_[end] == '-' || text_[end] == '+')) ++end;
  const size_t digits = end;
  while (end < text_.size() &&
         std::isdigit(static_cast<unsigned char>(text_[end]))) {
    ++end;
  }
  const absl::string_view token = text_.substr(pos_, end - pos_);
  pos_ = end;
  if (end == digits || !absl::SimpleAtoi(token, value)) {
    pos_ = start;
    return ErrorAt(start, absl::StrCat("expected an integer ", what.str()));
  }
  return true;
}

bool TextScanner::ReadBool(bool* value, const What& what) {
  const size_t start = Position();
  std::string id = ReadIdentifier();
  if (id == "true") {
    *value = true;
    return true;
  }
  if (id == "false") {
    *value = false;
    return true;
  }
  pos_ = start;
  return ErrorAt(start, absl::StrCat("expected true or false ", what.str()));
}

bool TextScanner::ReadQuotedString(std::string* value, const What& what) {
  const size_t start = Position();
  if (pos_ >= text_.size() || text_[pos_] != '"') {
    return ErrorAt(start,
                   absl::StrCat("expected a quoted string ", what.str()));
  }
  size_t i = pos_ + 1;
  std::string raw;
  while (i < text_.size() && text_[i] != '"') {
    if (text_[i] == '\\' && i + 1 < text_.size()) {
      raw.push_back(text_[i]);
      ++i;
    }
    raw.push_back(text_[i]);
    ++i;
  }
  if (i >= text_.size()) {
    return ErrorAt(start, absl::StrCat("unterminated string ", what.str()));
  }
  std::string error;
  if (!absl::CUnescape(raw, value, &error)) {
    return ErrorAt(start, absl::StrCat("invalid escape in string ", what.str(),
                                       ": ", error));
  }
  pos_ = i + 1;
  return true;
}

std::string TextScanner::ReadNumberToken() {
  Peek();
  const size_t start = pos_;
  size_t i = pos_;
  if (i < text_.size() && (text_[i] == '-' || text_[i] == '+')) ++i;
  // inf / nan / nan(0x...)
  if (text_.substr(i, 3) == "inf") {
    pos_ = i + 3;
    return std::string(text_.substr(start, pos_ - start));
  }
  if (text_.substr(i, 3) == "nan") {
    i += 3;
    if (i < text_.size() && text_[i] == '(') {
      size_t close = text_.find(')', i);
      if (close != absl::string_view::npos && close - i < 24) i = close + 1;
    }
    pos_ = i;
    return std::string(text_.substr(start, pos_ - start));
  }
  bool digits = false;
  while (i < text_.size() &&
         std::isdigit(static_cast<unsigned char>(text_[i]))) {
    ++i;
    digits = true;
  }
  if (i < text_.size() && text_[i] == '.') {
    ++i;
    while (i < text_.size() &&
           std::isdigit(static_cast<unsigned char>(text_[i]))) {
      ++i;
      digits = true;
    }
  }
  if (digits && i < text_.size() && (text_[i] == 'e' || text_[i] == 'E')) {
    size_t j = i + 1;
    if (j < text_.size() && (text_[j] == '-' || text_[j] == '+')) ++j;
    if (j < text_.size() &&
        std::isdigit(static_cast<unsigned char>(text_[j]))) {
      while (j < text_.size() &&
             std::isdigit(static_cast<unsigned char>(text_[j])))
        ++j;
      i = j;
    }
  }
  if (!digits) return "";
  pos_ = i;
  return std::string(text_.substr(start, pos_ - start));
}

bool TextScanner::ReadBalancedBraces(std::string* out, const What& what) {
  const size_t start = Position();
  if (pos_ >= text_.size() || text_[pos_] != '{') {
    return ErrorAt(start, absl::StrCat("expected '{' ", what.str()));
  }
  const size_t end = BalancedBracesEnd(text_.substr(pos_));
  if (end != absl::string_view::npos) {
    *out = std::string(text_.substr(pos_, end));
    pos_ += end;
    return true;
  }
  return ErrorAt(start, absl::StrCat("unbalanced '{' ", what.str()));
}

std::pair<int, int> TextScanner::LineColumn(size_t position) const {
  const size_t end = std::min(position, text_.size());
  // Positions are mostly requested in increasing order: continue from the
  // last answer instead of rescanning from the start.
  if (end < cache_position_) {
    cache_position_ = 0;
    cache_line_ = 1;
    cache_line_start_ = 0;
  }
  for (size_t i = cache_position_; i < end; ++i) {
    if (text_[i] == '\n') {
      ++cache_line_;
      cache_line_start_ = i + 1;
    }
  }
  cache_position_ = end;
  return {cache_line_ + line_offset_,
          static_cast<int>(end - cache_line_start_) + 1};
}

std::string TextScanner::FormatDiagnostic(size_t position,
                                          absl::string_view severity,
                                          absl::string_view message) const {
  auto [line, column] = LineColumn(position);
  std::string out = absl::StrCat(filename_, ":", line, ":", column, ": ",
                                 severity, ": ", message);
  // The source line and a caret under the column.
  const size_t clamped = std::min(position, text_.size());
  size_t begin = text_.rfind('\n', clamped == 0 ? 0 : clamped - 1);
  begin = (begin == absl::string_view::npos || clamped == 0) ? 0 : begin + 1;
  if (clamped > 0 && text_[clamped - 1] == '\n') begin = clamped;
  size_t finish = text_.find('\n', begin);
  if (finish == absl::string_view::npos) finish = text_.size();
  absl::string_view source = text_.substr(begin, finish - begin);
  const bool printable = std::all_of(source.begin(), source.end(), [](char c) {
    return c == '\t' || static_cast<unsigned char>(c) >= 0x20;
  });
  if (source.size() <= 200 && !source.empty() && printable) {
    std::string caret(static_cast<size_t>(column - 1), ' ');
    for (size_t i = 0; i < caret.size() && i < source.size(); ++i) {
      if (source[i] == '\t') caret[i] = '\t';
    }
    absl::StrAppend(&out, "\n", source, "\n", caret, "^");
  }
  return out;
}

bool TextScanner::ErrorAt(size_t position, absl::string_view message) {
  if (error_.empty()) error_ = FormatError(position, message);
  return false;
}

absl::Status TextScanner::status() const {
  if (error_.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(error_);
}

absl::Status AddSourceExcerpt(const absl::Status& status,
                              absl::string_view text, int line_offset) {
  if (status.ok()) return status;
  const std::string message(status.message());
  if (message.find('\n') != std::string::npos) return status;
  // "FILE:LINE:COL: error: ..." -> LINE and COL.
  const size_t marker = message.find(": error: ");
  if (marker == std::string::npos) return status;
  const std::string head = message.substr(0, marker);
  const size_t c2 = head.rfind(':');
  if (c2 == std::string::npos) return status;
  const size_t c1 = head.rfind(':', c2 - 1);
  if (c1 == std::string::npos) return status;
  int line, column;
  if (!absl::SimpleAtoi(head.substr(c1 + 1, c2 - c1 - 1), &line) ||
      !absl::SimpleAtoi(head.substr(c2 + 1), &column)) {
    return status;
  }
  line -= line_offset;
  if (line < 1 || column < 1) return status;
  size_t start = 0;
  for (int i = 1; i < line; ++i) {
    start = text.find('\n', start);
    if (start == absl::string_view::npos) return status;
    ++start;
  }
  TextScanner scanner(text, head.substr(0, c1), line_offset);
  const std::string located =
      scanner.FormatError(start + static_cast<size_t>(column - 1), "x");
  const size_t newline = located.find('\n');
  if (newline == std::string::npos) return status;
  return absl::Status(status.code(),
                      absl::StrCat(message, located.substr(newline)));
}

}  // namespace xlite
