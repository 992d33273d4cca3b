#include "cpu_backend/aot/c_interface.h"

#include <functional>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "hlo/ir/literal.h"

namespace xlite::cpu {

namespace {

// Keywords of C and C++ a function name may not be.
const absl::flat_hash_set<std::string>& Keywords() {
  static const auto* const kKeywords = new absl::flat_hash_set<std::string>{
      "alignas",   "alignof",  "and",      "asm",      "auto",      "bool",
      "break",     "case",     "catch",    "char",     "class",     "const",
      "constexpr", "continue", "default",  "delete",   "do",        "double",
      "else",      "enum",     "explicit", "export",   "extern",    "false",
      "float",     "for",      "friend",   "goto",     "if",        "inline",
      "int",       "long",     "main",     "mutable",  "namespace", "new",
      "noexcept",  "not",      "nullptr",  "operator", "or",        "private",
      "protected", "public",   "register", "restrict", "return",    "short",
      "signed",    "sizeof",   "static",   "struct",   "switch",    "template",
      "this",      "throw",    "true",     "try",      "typedef",   "typeid",
      "typename",  "union",    "unsigned", "using",    "virtual",   "void",
      "volatile",  "wchar_t",  "while",    "xor"};
  return *kKeywords;
}

// "an ahead-of-time library cannot pass %NAME: why", located; `verb` is
// "pass" for parameters, "return" for the result.
absl::Status Refuse(const HloInstruction* hlo, absl::string_view verb,
                    absl::string_view what) {
  return LocatedError(hlo, absl::StrCat("an ahead-of-time library cannot ",
                                        verb, " %", hlo->name(), ": ", what));
}

// Why a C caller cannot pass `shape` as a dense row-major array ("" if it
// can).
std::string NotPassable(const Shape& shape) {
  if (shape.IsOpaque() || shape.IsBuffer()) {
    return absl::StrCat("its ", shape.ToString(false),
                        " value is not an array");
  }
  if (shape.is_dynamic()) {
    return absl::StrCat(shape.ToString(false),
                        " has dynamic dimensions; C callers pass static ones");
  }
  if (!PhysicalOrderIsLogical(shape) ||
      (shape.has_layout() && !shape.layout().tiles().empty())) {
    return absl::StrCat(
        shape.ToString(true),
        " is not stored row-major; the library takes and returns dense "
        "row-major arrays (the default layout {",
        shape.rank() == 0 ? "" : "rank-1,...,0", "})");
  }
  return "";
}

// The array leaves of `shape`, depth first, with their indices.
void ArrayLeaves(const Shape& shape, ShapeIndex& at,
                 std::vector<std::pair<ShapeIndex, const Shape*>>* out) {
  if (shape.IsTuple()) {
    for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
      at.push_back(i);
      ArrayLeaves(shape.tuple_shapes(i), at, out);
      at.pop_back();
    }
    return;
  }
  if (!shape.IsToken()) out->push_back({at, &shape});
}

// The leaves of `hlo`'s shape as C arrays, or the reason one cannot be.
absl::StatusOr<std::vector<CArray>> LeavesOf(const HloInstruction* hlo,
                                             int64_t parameter) {
  std::vector<std::pair<ShapeIndex, const Shape*>> leaves;
  ShapeIndex at;
  ArrayLeaves(hlo->shape(), at, &leaves);
  std::vector<CArray> out;
  for (const auto& [index, shape] : leaves) {
    if (std::string why = NotPassable(*shape); !why.empty()) {
      if (!index.empty()) {
        why = absl::StrCat("its leaf ", ShapeIndexToString(index), ": ", why);
      }
      return Refuse(hlo, parameter < 0 ? "return" : "pass", why);
    }
    CArray array;
    array.parameter = parameter;
    array.index = index;
    array.shape = *shape;
    array.bytes = shape->ByteSizeOfElements();
    const std::string suffix = index.empty() ? "" : ShapeIndexToString(index);
    array.description =
        parameter >= 0
            ? absl::StrCat("%", hlo->name(), suffix)
            : absl::StrCat("result", suffix.empty() ? "" : " ", suffix);
    out.push_back(std::move(array));
  }
  return out;
}

}  // namespace

absl::Status LocatedError(const HloInstruction* hlo,
                          absl::string_view message) {
  std::string where;
  if (hlo->location().line > 0) {
    where = absl::StrCat(hlo->location().line, ":", hlo->location().column,
                         ": error: ");
  }
  return absl::InvalidArgumentError(absl::StrCat(where, message));
}

bool IsCIdentifier(absl::string_view name) {
  if (name.empty() || absl::ascii_isdigit(name[0])) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(c) && c != '_') return false;
  }
  return !Keywords().contains(name);
}

std::string SanitizeCIdentifier(absl::string_view name) {
  std::string out;
  for (char c : name) out += absl::ascii_isalnum(c) ? c : '_';
  if (out.empty() || absl::ascii_isdigit(out[0]) || Keywords().contains(out)) {
    out = "_" + out;
  }
  return out;
}

absl::StatusOr<CInterface> BuildCInterface(const HloModule& module,
                                           const std::string& entry_name) {
  CInterface c;
  c.entry_name = entry_name;
  c.module_name = module.name();
  const HloComputation& entry = *module.entry_computation();
  for (int64_t p = 0; p < entry.num_parameters(); ++p) {
    absl::StatusOr<std::vector<CArray>> leaves =
        LeavesOf(entry.parameter_instruction(p), p);
    if (!leaves.ok()) return leaves.status();
    for (CArray& leaf : *leaves) c.params.push_back(std::move(leaf));
  }
  absl::StatusOr<std::vector<CArray>> results =
      LeavesOf(entry.root_instruction(), -1);
  if (!results.ok()) return results.status();
  c.results = *std::move(results);
  return c;
}

}  // namespace xlite::cpu
