#include "hlo/proto/proto_attributes.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "hlo/ir/literal.h"

namespace xlite {
namespace {

// "{a=1,b=2}" -> {("a","1"), ("b","2")} (one level, no nesting).
bool SplitFlatDict(absl::string_view text,
                   std::vector<std::pair<std::string, std::string>>* out) {
  text = absl::StripAsciiWhitespace(text);
  if (!absl::ConsumePrefix(&text, "{") || !absl::ConsumeSuffix(&text, "}")) {
    return false;
  }
  if (absl::StripAsciiWhitespace(text).empty()) return true;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    size_t eq = item.find('=');
    if (eq == absl::string_view::npos) return false;
    out->push_back(
        {std::string(absl::StripAsciiWhitespace(item.substr(0, eq))),
         std::string(absl::StripAsciiWhitespace(item.substr(eq + 1)))});
  }
  return true;
}

// ---- origin= <-> OriginalValueProto -------------------------------------
//
// The text is XLA's: `{[synthetic_call]}`, or a tuple tree in braces whose
// leaves are `{"instruction" {shape,index}}` or `{}` (no original array),
// e.g. `{({"p" {0}}, {})}`. XLA writes one OriginalValueElementProto per
// node of the tree, pre-order, interior nodes without an original array.

// A cursor over the kept text (the parser keeps origin= verbatim).
class OriginReader {
 public:
  explicit OriginReader(absl::string_view text) : text_(text) {}

  bool AtEnd() {
    SkipSpace();
    return text_.empty();
  }
  bool Consume(char c) {
    SkipSpace();
    if (text_.empty() || text_[0] != c) return false;
    text_.remove_prefix(1);
    return true;
  }
  bool ConsumeWord(absl::string_view word) {
    SkipSpace();
    return absl::ConsumePrefix(&text_, word);
  }
  char Peek() {
    SkipSpace();
    return text_.empty() ? '\0' : text_[0];
  }
  // A double-quoted string with C escapes.
  bool ReadQuoted(std::string* out) {
    if (!Consume('"')) return false;
    size_t end = 0;
    while (end < text_.size() && text_[end] != '"') {
      end += text_[end] == '\\' ? 2 : 1;
    }
    if (end >= text_.size()) return false;
    const bool ok = absl::CUnescape(text_.substr(0, end), out);
    text_.remove_prefix(end + 1);
    return ok;
  }
  // `{i,j,...}`.
  bool ReadIndex(std::vector<int64_t>* out) {
    if (!Consume('{')) return false;
    while (!Consume('}')) {
      if (!out->empty() && !Consume(',')) return false;
      SkipSpace();
      size_t end = 0;
      while (end < text_.size() &&
             (absl::ascii_isdigit(text_[end]) || text_[end] == '-')) {
        ++end;
      }
      int64_t v;
      if (!absl::SimpleAtoi(text_.substr(0, end), &v)) return false;
      out->push_back(v);
      text_.remove_prefix(end);
    }
    return true;
  }

 private:
  void SkipSpace() {
    while (!text_.empty() && absl::ascii_isspace(text_[0])) {
      text_.remove_prefix(1);
    }
  }
  absl::string_view text_;
};

constexpr int kMaxOriginDepth = 64;

// One node of the tree at `index`, and its subtree, pre-order.
bool ReadOriginNode(OriginReader& r, std::vector<int64_t>& index,
                    xla::OriginalValueProto* proto) {
  if (index.size() > kMaxOriginDepth) return false;
  xla::OriginalValueElementProto* element = proto->add_elements();
  for (int64_t i : index) element->add_shape_index(i);
  if (r.Consume('(')) {
    index.push_back(0);
    bool first = true;
    while (!r.Consume(')')) {
      if (!first && !r.Consume(',')) return false;
      if (!first) ++index.back();
      first = false;
      if (!ReadOriginNode(r, index, proto)) return false;
    }
    index.pop_back();
    return true;
  }
  if (!r.Consume('{')) return false;
  if (r.Consume('}')) return true;  // A leaf with no original array.
  xla::OriginalArrayProto* array = element->mutable_original_array();
  std::string name;
  if (!r.ReadQuoted(&name)) return false;
  array->set_instruction_name(name);
  if (r.Peek() == '{') {
    std::vector<int64_t> shape_index;
    if (!r.ReadIndex(&shape_index)) return false;
    for (int64_t i : shape_index) array->add_shape_index(i);
  }
  return r.Consume('}');
}

bool OriginFromText(absl::string_view text, xla::OriginalValueProto* proto) {
  OriginReader r(text);
  if (!r.Consume('{')) return false;
  if (r.Consume('[')) {
    proto->set_is_synthetic_call(true);
    return r.ConsumeWord("synthetic_call") && r.Consume(']') &&
           r.Consume('}') && r.AtEnd();
  }
  if (r.Consume('}')) return r.AtEnd();  // An empty value.
  std::vector<int64_t> index;
  return ReadOriginNode(r, index, proto) && r.Consume('}') && r.AtEnd();
}

// The text of the subtree at `index`; `nodes` maps every node's index to its
// original array (null for interior nodes and empty leaves).
std::string OriginNodeText(
    const std::map<std::vector<int64_t>, const xla::OriginalArrayProto*>& nodes,
    std::vector<int64_t>& index) {
  // Children are the nodes one level down with this prefix; the map is
  // ordered, so they follow `index` directly.
  int64_t children = 0;
  for (auto it = nodes.upper_bound(index);
       it != nodes.end() && it->first.size() > index.size() &&
       std::equal(index.begin(), index.end(), it->first.begin());
       ++it) {
    children = std::max(children, it->first[index.size()] + 1);
  }
  auto self = nodes.find(index);
  if (children == 0) {
    if (self == nodes.end() || self->second == nullptr) return "{}";
    const xla::OriginalArrayProto& a = *self->second;
    std::string text =
        absl::StrCat("{\"", absl::CEscape(a.instruction_name()), "\"");
    if (a.shape_index_size() > 0) {
      absl::StrAppend(&text, " {", absl::StrJoin(a.shape_index(), ","), "}");
    }
    return absl::StrCat(text, "}");
  }
  std::vector<std::string> parts;
  for (int64_t i = 0; i < children; ++i) {
    index.push_back(i);
    parts.push_back(OriginNodeText(nodes, index));
    index.pop_back();
  }
  return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
}

std::string OriginToText(const xla::OriginalValueProto& proto) {
  if (proto.is_synthetic_call()) return "{[synthetic_call]}";
  if (proto.elements_size() == 0) return "{}";
  std::map<std::vector<int64_t>, const xla::OriginalArrayProto*> nodes;
  for (const xla::OriginalValueElementProto& e : proto.elements()) {
    // XLA writes every node, so a child index is below the element count;
    // indices past that (or too deep) are malformed and skipped, which also
    // bounds the text's size.
    if (e.shape_index_size() > kMaxOriginDepth) continue;
    std::vector<int64_t> index(e.shape_index().begin(), e.shape_index().end());
    if (absl::c_any_of(index, [&](int64_t i) {
          return i < 0 || i >= proto.elements_size();
        })) {
      continue;
    }
    nodes[index] = e.has_original_array() ? &e.original_array() : nullptr;
  }
  std::vector<int64_t> root;
  return absl::StrCat("{", OriginNodeText(nodes, root), "}");
}

std::string Number(double v) {
  return FloatBitsToString(PrimitiveType::kF64, [&] {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    return b;
  }());
}

}  // namespace

absl::Status ExportKeptAttribute(const KeptAttribute& kept,
                                 xla::HloInstructionProto* proto) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("cannot write ", kept.name,
                                                   "=", kept.value,
                                                   " as a proto field: ", why));
  };
  if (kept.name == "statistics" || kept.name == "statistics_viz") {
    std::vector<std::pair<std::string, std::string>> items;
    if (!SplitFlatDict(kept.value, &items)) return bad("expected {k=v,...}");
    xla::StatisticsViz* s = proto->mutable_statistics_viz();
    for (size_t i = 0; i < items.size(); ++i) {
      double v;
      if (!absl::SimpleAtod(items[i].second, &v))
        return bad("non-numeric value");
      if (i == 0 && items[i].first == "visualizing_index") {
        s->set_stat_index_to_visualize(static_cast<int64_t>(v));
        continue;
      }
      xla::Statistic* stat = s->add_statistics();
      stat->set_stat_name(items[i].first);
      stat->set_stat_val(v);
    }
    return absl::OkStatus();
  }
  if (kept.name == "result_accuracy") {
    absl::string_view text = absl::StripAsciiWhitespace(kept.value);
    xla::ResultAccuracy* r = proto->mutable_result_accuracy();
    std::string compact = absl::StrReplaceAll(text, {{" ", ""}});
    if (compact == "{mode=highest}") {
      r->set_mode(xla::ResultAccuracy::HIGHEST);
      return absl::OkStatus();
    }
    if (compact == "{mode=default}") {
      r->set_mode(xla::ResultAccuracy::DEFAULT);
      return absl::OkStatus();
    }
    absl::string_view inner = compact;
    if (absl::ConsumePrefix(&inner, "{tolerance=") &&
        absl::ConsumeSuffix(&inner, "}")) {
      std::vector<std::pair<std::string, std::string>> items;
      if (!SplitFlatDict(inner, &items)) return bad("bad tolerance");
      auto* t = r->mutable_tolerance();
      for (const auto& [k, v] : items) {
        double d;
        if (!absl::SimpleAtod(v, &d)) return bad("non-numeric tolerance");
        if (k == "atol")
          t->set_atol(d);
        else if (k == "rtol")
          t->set_rtol(d);
        else if (k == "ulps")
          t->set_ulps(static_cast<int64_t>(d));
        else
          return bad(absl::StrCat("unknown tolerance field ", k));
      }
      return absl::OkStatus();
    }
    return bad("expected {mode=...} or {tolerance={...}}");
  }
  if (kept.name == "origin" || kept.name == "original_value") {
    if (!OriginFromText(kept.value, proto->mutable_original_value())) {
      return bad(
          "expected {[synthetic_call]} or a tuple tree of {\"name\" "
          "{index}} leaves");
    }
    return absl::OkStatus();
  }
  return bad("this attribute has no proto form in xlite yet");
}

void ImportKeptAttributes(const xla::HloInstructionProto& proto,
                          HloInstruction* instruction) {
  // XLA writes an empty StatisticsViz on every instruction; like its
  // printer, only statistics that exist count.
  if (proto.statistics_viz().statistics_size() > 0) {
    const xla::StatisticsViz& s = proto.statistics_viz();
    std::vector<std::string> items = {
        absl::StrCat("visualizing_index=", s.stat_index_to_visualize())};
    for (const xla::Statistic& stat : s.statistics()) {
      items.push_back(
          absl::StrCat(stat.stat_name(), "=", Number(stat.stat_val())));
    }
    instruction->add_kept_attribute(
        "statistics", absl::StrCat("{", absl::StrJoin(items, ","), "}"));
  }
  if (proto.has_result_accuracy()) {
    const xla::ResultAccuracy& r = proto.result_accuracy();
    std::string text;
    if (r.has_tolerance()) {
      text = absl::StrCat("{tolerance={atol=", Number(r.tolerance().atol()),
                          ",rtol=", Number(r.tolerance().rtol()),
                          ",ulps=", r.tolerance().ulps(), "}}");
    } else if (r.mode() == xla::ResultAccuracy::HIGHEST) {
      text = "{mode=highest}";
    }
    if (!text.empty()) instruction->add_kept_attribute("result_accuracy", text);
  }
  if (proto.has_original_value()) {
    instruction->add_kept_attribute("origin",
                                    OriginToText(proto.original_value()));
  }
}

}  // namespace xlite
