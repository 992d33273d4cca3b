#include "passes/pass_options.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xlite {
namespace {

bool ParseBoolText(absl::string_view text, bool* value) {
  if (text == "true" || text == "1") {
    *value = true;
    return true;
  }
  if (text == "false" || text == "0") {
    *value = false;
    return true;
  }
  return false;
}

absl::string_view TypeName(PassOptionSpec::Type type) {
  switch (type) {
    case PassOptionSpec::Type::kBool:
      return "a bool (true/false)";
    case PassOptionSpec::Type::kInt:
      return "an integer";
    case PassOptionSpec::Type::kDouble:
      return "a number";
    case PassOptionSpec::Type::kString:
      return "a string";
  }
  return "a value";
}

}  // namespace

absl::StatusOr<PassOptions> PassOptions::Create(
    absl::string_view pass_name, const std::vector<PassOptionSpec>& specs,
    const std::map<std::string, std::string>& given) {
  PassOptions options;
  for (const PassOptionSpec& spec : specs) {
    options.values_[spec.name] = spec.default_value;
  }
  for (const auto& [key, value] : given) {
    const PassOptionSpec* spec = nullptr;
    for (const PassOptionSpec& s : specs) {
      if (s.name == key) spec = &s;
    }
    if (spec == nullptr) {
      std::vector<std::string> valid;
      for (const PassOptionSpec& s : specs) valid.push_back(s.name);
      return absl::InvalidArgumentError(absl::StrCat(
          "pass ", pass_name, " has no option '", key, "'; ",
          valid.empty()
              ? std::string("it takes no options")
              : absl::StrCat("valid options: ", absl::StrJoin(valid, ", "))));
    }
    bool ok = true;
    bool b;
    int64_t i;
    double d;
    switch (spec->type) {
      case PassOptionSpec::Type::kBool:
        ok = ParseBoolText(value, &b);
        break;
      case PassOptionSpec::Type::kInt:
        ok = absl::SimpleAtoi(value, &i);
        break;
      case PassOptionSpec::Type::kDouble:
        ok = absl::SimpleAtod(value, &d);
        break;
      case PassOptionSpec::Type::kString:
        break;
    }
    if (!ok) {
      return absl::InvalidArgumentError(
          absl::StrCat("option ", key, " of pass ", pass_name, " must be ",
                       TypeName(spec->type), ", got '", value, "'"));
    }
    options.values_[key] = value;
  }
  return options;
}

bool PassOptions::GetBool(absl::string_view name) const {
  auto it = values_.find(name);
  bool value = false;
  if (it != values_.end()) ParseBoolText(it->second, &value);
  return value;
}

int64_t PassOptions::GetInt(absl::string_view name) const {
  auto it = values_.find(name);
  int64_t value = 0;
  if (it != values_.end()) (void)absl::SimpleAtoi(it->second, &value);
  return value;
}

double PassOptions::GetDouble(absl::string_view name) const {
  auto it = values_.find(name);
  double value = 0;
  if (it != values_.end()) (void)absl::SimpleAtod(it->second, &value);
  return value;
}

const std::string& PassOptions::GetString(absl::string_view name) const {
  static const std::string* const kEmpty = new std::string();
  auto it = values_.find(name);
  return it == values_.end() ? *kEmpty : it->second;
}

}  // namespace xlite
