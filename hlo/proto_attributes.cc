#include "hlo/proto_attributes.h"

#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "hlo/literal.h"

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
}

}  // namespace xlite
