#ifndef XLITE_PASSES_PASS_OPTIONS_H_
#define XLITE_PASSES_PASS_OPTIONS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xlite {

/// One typed option a pass accepts on the command line
/// (`--passes=name{key=value}`). Every value is checked against its type
/// before a pass is built, so a typo is a usage error, never a silent default.
struct PassOptionSpec {
  enum class Type {
    kBool,
    kInt,
    kDouble,
    kString,
    /// A dotted version "X", "X.Y" or "X.Y.Z" (missing parts are 0).
    kVersion,
    /// A CUDA compute capability as XLA spells it: "M.m" with an optional
    /// feature suffix a or f (either case): "9.0", "10.0a", "12.1f".
    kComputeCapability,
  };
  std::string name;
  Type type = Type::kBool;
  std::string default_value;
  std::string help;
};

/// A kVersion value.
struct DottedVersion {
  int major = 0;
  int minor = 0;
  int patch = 0;
};

/// A kComputeCapability value; `suffix` is '\0', 'a' or 'f'.
struct ComputeCapability {
  int major = 0;
  int minor = 0;
  char suffix = '\0';
};

/// Parsers behind the two types (also for flags that take the same text).
absl::StatusOr<DottedVersion> ParseDottedVersion(absl::string_view text);
absl::StatusOr<ComputeCapability> ParseComputeCapability(
    absl::string_view text);

/// Option values for one pass instance, validated against its specs:
/// every key is known and every value parses as its type.
class PassOptions {
 public:
  /// Validates `given` (key -> text) against `specs`, filling defaults.
  static absl::StatusOr<PassOptions> Create(
      absl::string_view pass_name, const std::vector<PassOptionSpec>& specs,
      const std::map<std::string, std::string>& given);

  bool GetBool(absl::string_view name) const;
  int64_t GetInt(absl::string_view name) const;
  double GetDouble(absl::string_view name) const;
  const std::string& GetString(absl::string_view name) const;
  DottedVersion GetVersion(absl::string_view name) const;
  ComputeCapability GetComputeCapability(absl::string_view name) const;

 private:
  std::map<std::string, std::string, std::less<>> values_;
};

}  // namespace xlite

#endif  // XLITE_PASSES_PASS_OPTIONS_H_
