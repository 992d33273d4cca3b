#include "passes/pass_options.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

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

// A non-negative decimal integer, digits only (no sign, no spaces).
bool ParseDigits(absl::string_view text, int* value) {
  if (text.empty() || text.size() > 9) return false;
  for (char c : text) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return absl::SimpleAtoi(text, value);
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
    case PassOptionSpec::Type::kVersion:
      return "a version X.Y.Z";
    case PassOptionSpec::Type::kComputeCapability:
      return "a compute capability M.m (optionally with a or f: 10.0a)";
  }
  return "a value";
}

}  // namespace

absl::StatusOr<DottedVersion> ParseDottedVersion(absl::string_view text) {
  std::vector<absl::string_view> parts = absl::StrSplit(text, '.');
  DottedVersion v;
  int* fields[] = {&v.major, &v.minor, &v.patch};
  bool ok = !parts.empty() && parts.size() <= 3;
  for (size_t i = 0; ok && i < parts.size(); ++i) {
    ok = ParseDigits(parts[i], fields[i]);
  }
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad version '", text, "'; expected X.Y.Z"));
  }
  return v;
}

absl::StatusOr<ComputeCapability> ParseComputeCapability(
    absl::string_view text) {
  // XLA's CudaComputeCapability::FromString: "major.minor", the minor
  // optionally followed by a or f in either case ("10.0a", "12.1F").
  ComputeCapability cc;
  absl::string_view rest = text;
  if (!rest.empty()) {
    const char last = absl::ascii_tolower(static_cast<unsigned char>(rest.back()));
    if (last == 'a' || last == 'f') {
      cc.suffix = last;
      rest.remove_suffix(1);
    }
  }
  std::vector<absl::string_view> parts = absl::StrSplit(rest, '.');
  if (parts.size() != 2 || !ParseDigits(parts[0], &cc.major) ||
      !ParseDigits(parts[1], &cc.minor)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad compute capability '", text,
        "'; expected M.m as XLA writes it, e.g. 9.0, 10.0a or 12.0f"));
  }
  return cc;
}

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
      case PassOptionSpec::Type::kVersion:
        ok = ParseDottedVersion(value).ok();
        break;
      case PassOptionSpec::Type::kComputeCapability:
        ok = ParseComputeCapability(value).ok();
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

DottedVersion PassOptions::GetVersion(absl::string_view name) const {
  absl::StatusOr<DottedVersion> v = ParseDottedVersion(GetString(name));
  return v.ok() ? *v : DottedVersion();
}

ComputeCapability PassOptions::GetComputeCapability(
    absl::string_view name) const {
  absl::StatusOr<ComputeCapability> cc =
      ParseComputeCapability(GetString(name));
  return cc.ok() ? *cc : ComputeCapability();
}

const std::string& PassOptions::GetString(absl::string_view name) const {
  static const std::string* const kEmpty = new std::string();
  auto it = values_.find(name);
  return it == values_.end() ? *kEmpty : it->second;
}

}  // namespace xlite
