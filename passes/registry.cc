#include "passes/registry.h"

#include <algorithm>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace xlite {

PassRegistry::PassRegistry(std::vector<PassInfo> passes)
    : passes_(std::move(passes)) {}

std::vector<std::string> PassRegistry::Names() const {
  std::vector<std::string> names;
  for (const PassInfo& info : passes_) names.push_back(info.name);
  std::sort(names.begin(), names.end());
  return names;
}

const PassInfo* PassRegistry::Find(absl::string_view name) const {
  for (const PassInfo& info : passes_) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

absl::StatusOr<Pipeline> PassRegistry::BuildPipeline(
    absl::string_view spec, absl::string_view platform,
    const std::map<std::string, std::string>& defaults) const {
  // Split at top-level commas: "a,b{k=v,k2=v2},c".
  std::vector<std::string> items;
  std::string current;
  int depth = 0;
  for (char c : spec) {
    if (c == '{') ++depth;
    if (c == '}') --depth;
    if (depth < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("unbalanced '}' in --passes=", spec));
    }
    if (c == ',' && depth == 0) {
      items.push_back(current);
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (depth != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("unbalanced '{' in --passes=", spec));
  }
  items.push_back(current);
  Pipeline pipeline;
  if (spec.empty()) {
    items.clear();
    for (const std::string& name : PlatformPipeline(platform))
      items.push_back(name);
    // The platform pipelines simplify until nothing changes.
    if (!items.empty()) pipeline.set_fixed_point(10);
  }
  for (const std::string& raw : items) {
    std::string item(absl::StripAsciiWhitespace(raw));
    if (item.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("empty pass name in --passes=", spec));
    }
    std::string name = item;
    std::map<std::string, std::string> given;
    if (size_t brace = item.find('{'); brace != std::string::npos) {
      if (item.back() != '}') {
        return absl::InvalidArgumentError(
            absl::StrCat("pass options must end with '}': ", item));
      }
      name = item.substr(0, brace);
      std::string body = item.substr(brace + 1, item.size() - brace - 2);
      for (absl::string_view kv :
           absl::StrSplit(body, ',', absl::SkipEmpty())) {
        size_t eq = kv.find('=');
        if (eq == absl::string_view::npos) {
          return absl::InvalidArgumentError(absl::StrCat(
              "pass option '", kv, "' of ", name, " must be key=value"));
        }
        given[std::string(absl::StripAsciiWhitespace(kv.substr(0, eq)))] =
            std::string(absl::StripAsciiWhitespace(kv.substr(eq + 1)));
      }
    }
    const PassInfo* info = Find(name);
    if (info == nullptr) {
      std::vector<std::string> names = Names();
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown pass '", name, "'; ",
          names.empty() ? std::string("no passes are registered")
                        : absl::StrCat("registered passes: ",
                                       absl::StrJoin(names, ","))));
    }
    for (const PassOptionSpec& option : info->options) {
      auto it = defaults.find(option.name);
      if (it != defaults.end() && !given.count(option.name)) {
        given[option.name] = it->second;
      }
    }
    absl::StatusOr<PassOptions> options =
        PassOptions::Create(name, info->options, given);
    if (!options.ok()) return options.status();
    pipeline.AddPass(info->factory(*options));
  }
  return pipeline;
}

}  // namespace xlite
