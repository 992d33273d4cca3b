#ifndef XLITE_TOOLS_TOOL_FLAGS_H_
#define XLITE_TOOLS_TOOL_FLAGS_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace xlite {

/// Exit codes shared by the tools (../shared/specs/cli.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitInputError = 1;
inline constexpr int kExitUsage = 2;

/// Parses argv against the Abseil flags defined in `flag_file` (the tool's
/// source file): `--name=value`, `--name value`, `-name`, `--bool`,
/// `--nobool`; dashes and underscores in names are interchangeable; a
/// list flag given more than once collects every value. Prints
/// `usage` for --help and exits 0. An unknown flag or a bad value prints the
/// error and the list of valid flags to stderr and exits 2. Returns the
/// positional arguments ("-" included).
std::vector<std::string> ParseToolFlags(int argc, char** argv,
                                        absl::string_view usage,
                                        absl::string_view flag_file);

}  // namespace xlite

#endif  // XLITE_TOOLS_TOOL_FLAGS_H_
