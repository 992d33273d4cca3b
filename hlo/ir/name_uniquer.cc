#include "hlo/ir/name_uniquer.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hlo/ir/primitive_type.h"

namespace xlite {
namespace {

bool IsNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' ||
         c == '.' || c == '-';
}

}  // namespace

int64_t NameUniquer::Suffixes::Take(int64_t wanted) {
  if (taken.insert(wanted).second) return wanted;
  while (!taken.insert(next).second) ++next;
  return next++;
}

std::string NameUniquer::Sanitize(absl::string_view name) {
  if (name.empty()) return "";
  std::string out(name);
  if (!absl::ascii_isalpha(static_cast<unsigned char>(out[0])) &&
      out[0] != '_') {
    out[0] = '_';
  }
  for (size_t i = 1; i < out.size(); ++i) {
    if (!IsNameChar(out[i])) out[i] = '_';
  }
  if (out == "invalid" ||
      (out != "tuple" && ParsePrimitiveTypeName(out).has_value())) {
    out += '_';
  }
  if (absl::StartsWith(out, "__") && !absl::StartsWith(out, "__xla_")) {
    out[0] = 'a';
  }
  return out;
}

std::string NameUniquer::GetUniqueName(absl::string_view prefix) {
  std::string root = Sanitize(prefix.empty() ? "name" : prefix);
  // A numeric suffix counts only after a '.' inside the name.
  bool has_suffix = false;
  int64_t suffix = 0;
  const size_t dot = root.rfind('.');
  if (dot != std::string::npos && dot > 0 && dot + 1 < root.size()) {
    if (absl::SimpleAtoi(absl::string_view(root).substr(dot + 1), &suffix)) {
      has_suffix = true;
      root.resize(dot);
    } else {
      suffix = 0;
    }
  }
  suffix = roots_[root].Take(suffix);
  if (suffix == 0) return has_suffix ? absl::StrCat(root, ".0") : root;
  return absl::StrCat(root, ".", suffix);
}

}  // namespace xlite
