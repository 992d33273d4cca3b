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
/// (`--passes=name{key=value}`).
struct PassOptionSpec {
  enum class Type { kBool, kInt, kDouble, kString };
  std::string name;
  Type type = Type::kBool;
  std::string default_value;
  std::string help;
};

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

 private:
  std::map<std::string, std::string, std::less<>> values_;
};

}  // namespace xlite

#endif  // XLITE_PASSES_PASS_OPTIONS_H_
