#ifndef XLITE_RUNTIME_KEY_VALUE_LINES_H_
#define XLITE_RUNTIME_KEY_VALUE_LINES_H_

// The text format of xlite's result caches (the GEMM autotuning cache,
// the GEMM path cache): a header line "NAME VERSION", then one entry per
// line of NAME=VALUE fields separated by blanks, a value a "quoted
// string" (\" \\ and \n escaped) or a bare word; blank lines and lines
// starting with '#' are skipped. Errors read "FILE:LINE:COL: error: ...".

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace xlite::runtime {

/// `s` as a quoted value.
std::string QuoteValue(absl::string_view s);

/// What a file of this format is called in its header errors.
struct KeyValueFormat {
  std::string header;  // "xlite-gemm-autotune-cache"
  int version = 1;
  /// "not an xlite <what> (the first line must be ...)"
  std::string what;
  /// "<noun> format version 'X'; this xlite reads N"
  std::string noun;
};

/// The entry lines of `text` (1-based line number, line) after its header
/// is checked; an empty (or blank) text has none.
absl::StatusOr<std::vector<std::pair<int, absl::string_view>>> KeyValueEntries(
    absl::string_view text, absl::string_view filename,
    const KeyValueFormat& format);

struct KeyValueField {
  std::string value;
  size_t column = 0;  // 1-based, where the value starts
};
using KeyValueFields = std::map<std::string, KeyValueField>;

/// The fields of entry line `line`: each name among `names` at most once,
/// every one of `required` present.
absl::StatusOr<KeyValueFields> ParseKeyValueLine(
    absl::string_view line, int line_number, absl::string_view filename,
    absl::Span<const absl::string_view> names,
    absl::Span<const absl::string_view> required);

/// "FILE:LINE:COLUMN: error: MESSAGE".
absl::Status KeyValueError(absl::string_view filename, int line_number,
                           size_t column, absl::string_view message);

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_KEY_VALUE_LINES_H_
