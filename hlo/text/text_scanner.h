#ifndef XLITE_HLO_TEXT_TEXT_SCANNER_H_
#define XLITE_HLO_TEXT_TEXT_SCANNER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace xlite {

/// What is being read, for error messages ("in a tile", "after ENTRY").
/// Formatted only when an error is reported, so passing it costs nothing.
class What {
 public:
  What(const char* text) : first_(text) {}         // NOLINT: implicit by design
  What(absl::string_view text) : first_(text) {}   // NOLINT
  What(const std::string& text) : first_(text) {}  // NOLINT
  What(absl::string_view first, absl::string_view second)
      : first_(first), second_(second) {}
  std::string str() const { return std::string(first_) + std::string(second_); }

 private:
  absl::string_view first_;
  absl::string_view second_;
};

/// Character-level reader for HLO text. Skips whitespace, `// ...` and
/// `/* ... */` comments between tokens, and reports errors as
/// `FILE:LINE:COL: error: message` followed by the source line and a caret.
/// The parser reads context-dependent tokens (window sizes, dim labels,
/// padding) directly, so there is no separate token stream.
class TextScanner {
 public:
  TextScanner(absl::string_view text, std::string filename,
              int line_offset = 0);

  /// Skips whitespace and comments; returns the next character or '\0' at
  /// the end.
  char Peek();
  /// The character `n` positions after the next one (no skipping).
  char PeekAt(size_t n);
  bool AtEnd() { return Peek() == '\0'; }
  /// Consumes `c` if it is next.
  bool Consume(char c);
  /// Consumes `s` if the text continues with it (after skipping space).
  bool ConsumeString(absl::string_view s);
  /// Requires `c`; records an error naming `what` otherwise.
  bool Expect(char c, const What& what);

  /// [A-Za-z_][A-Za-z0-9_.-]* (the HLO identifier charset); empty if none.
  std::string ReadIdentifier();
  /// A name: optional '%', then [A-Za-z0-9_.\-$]+.
  std::string ReadName();
  /// True if an identifier starts here, and (if `then` != 0) the character
  /// right after it is `then`.
  bool LooksLikeIdentifierFollowedBy(char then);
  /// The identifier starting here without consuming it.
  std::string PeekIdentifier();

  bool ReadInt64(int64_t* value, const What& what);
  bool ReadBool(bool* value, const What& what);
  /// A double-quoted string with C escapes, unescaped.
  bool ReadQuotedString(std::string* value, const What& what);
  /// A number as written: [+-]?digits[.digits][e[+-]digits], "inf", "nan",
  /// "nan(0x...)". Returns the raw token.
  std::string ReadNumberToken();
  /// Balanced `{...}` (quote-aware), returned verbatim including braces.
  bool ReadBalancedBraces(std::string* out, const What& what);
  /// Characters while `pred` holds (no skipping inside).
  template <typename Pred>
  std::string ReadWhile(Pred pred) {
    Peek();
    size_t start = pos_;
    while (pos_ < text_.size() && pred(text_[pos_])) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  /// Current position (after skipping space) for later error reporting.
  size_t Position() {
    Peek();
    return pos_;
  }
  size_t RawPosition() const { return pos_; }
  void Reset(size_t position) { pos_ = position; }
  /// Characters left after the current position.
  size_t Remaining() const { return text_.size() - pos_; }
  absl::string_view text() const { return text_; }
  absl::string_view Slice(size_t from, size_t to) const {
    return text_.substr(from, to - from);
  }

  /// 1-based line and column of a position.
  std::pair<int, int> LineColumn(size_t position) const;

  /// Records an error at `position` (first error wins) and returns false.
  bool ErrorAt(size_t position, absl::string_view message);
  bool Error(absl::string_view message) { return ErrorAt(Position(), message); }
  bool has_error() const { return !error_.empty(); }
  /// The first error as a located message, or OK.
  absl::Status status() const;
  /// A located error message for `position` without recording it.
  std::string FormatError(size_t position, absl::string_view message) const {
    return FormatDiagnostic(position, "error", message);
  }
  /// `FILE:LINE:COL: <severity>: message` with the source line and a caret.
  std::string FormatDiagnostic(size_t position, absl::string_view severity,
                               absl::string_view message) const;

 private:
  void SkipSpaceAndComments();

  absl::string_view text_;
  std::string filename_;
  int line_offset_;
  size_t pos_ = 0;
  std::string error_;
  // LineColumn's cursor (see there).
  mutable size_t cache_position_ = 0;
  mutable int cache_line_ = 1;
  mutable size_t cache_line_start_ = 0;
};

/// For an error located `FILE:LINE:COL: error: ...` (e.g. from the verifier)
/// that carries no source excerpt, appends the line of `text` and a caret.
/// `line_offset` is the number of lines before `text` in FILE.
absl::Status AddSourceExcerpt(const absl::Status& status,
                              absl::string_view text, int line_offset = 0);

}  // namespace xlite

#endif  // XLITE_HLO_TEXT_TEXT_SCANNER_H_
