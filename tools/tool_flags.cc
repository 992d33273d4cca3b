#include "tools/tool_flags.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <set>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"

namespace xlite {
namespace {

std::vector<const absl::CommandLineFlag*> ToolFlags(
    absl::string_view flag_file) {
  std::vector<const absl::CommandLineFlag*> flags;
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    if (absl::StrContains(flag->Filename(), flag_file)) flags.push_back(flag);
  }
  std::sort(flags.begin(), flags.end(),
            [](const absl::CommandLineFlag* a, const absl::CommandLineFlag* b) {
              return a->Name() < b->Name();
            });
  return flags;
}

std::string Spelling(absl::string_view name) {
  return name.size() == 1
             ? absl::StrCat("-", name)
             : absl::StrCat("--", absl::StrReplaceAll(name, {{"_", "-"}}));
}

std::string FlagList(absl::string_view flag_file) {
  std::vector<std::string> names = {"--help"};
  for (const absl::CommandLineFlag* flag : ToolFlags(flag_file)) {
    names.push_back(Spelling(flag->Name()));
  }
  return absl::StrJoin(names, " ");
}

void PrintHelp(absl::string_view usage, absl::string_view flag_file) {
  std::cout << usage << "\n\nFlags:\n";
  for (const absl::CommandLineFlag* flag : ToolFlags(flag_file)) {
    std::string line = absl::StrCat("  ", Spelling(flag->Name()));
    if (!flag->IsOfType<bool>()) absl::StrAppend(&line, "=", "VALUE");
    std::cout << line << "\n      " << flag->Help() << " (default: "
              << (flag->DefaultValue().empty() ? "\"\"" : flag->DefaultValue())
              << ")\n";
  }
}

[[noreturn]] void UsageError(absl::string_view message,
                             absl::string_view flag_file) {
  std::cerr << "error: " << message << "\nvalid flags: " << FlagList(flag_file)
            << "\n";
  std::exit(kExitUsage);
}

}  // namespace

std::vector<std::string> ParseToolFlags(int argc, char** argv,
                                        absl::string_view usage,
                                        absl::string_view flag_file) {
  std::vector<std::string> positional;
  std::set<std::string> repeated;
  bool only_positional = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (only_positional || arg == "-" || arg.empty() || arg[0] != '-') {
      positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positional = true;
      continue;
    }
    std::string body = arg.substr(arg.size() > 1 && arg[1] == '-' ? 2 : 1);
    std::string name = body;
    std::string value;
    bool has_value = false;
    if (size_t eq = body.find('='); eq != std::string::npos) {
      name = body.substr(0, eq);
      value = body.substr(eq + 1);
      has_value = true;
    }
    if (name == "help" || name == "h") {
      PrintHelp(usage, flag_file);
      std::exit(kExitOk);
    }
    const std::string key = absl::StrReplaceAll(name, {{"-", "_"}});
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(key);
    bool negated = false;
    if ((flag == nullptr || !absl::StrContains(flag->Filename(), flag_file)) &&
        absl::StartsWith(key, "no")) {
      absl::CommandLineFlag* positive =
          absl::FindCommandLineFlag(key.substr(2));
      if (positive != nullptr && positive->IsOfType<bool>() &&
          absl::StrContains(positive->Filename(), flag_file) && !has_value) {
        flag = positive;
        negated = true;
      }
    }
    if (flag == nullptr || !absl::StrContains(flag->Filename(), flag_file)) {
      UsageError(absl::StrCat("unknown flag '", arg, "'"), flag_file);
    }
    if (negated) {
      value = "false";
    } else if (!has_value) {
      if (flag->IsOfType<bool>()) {
        value = "true";
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        UsageError(
            absl::StrCat("flag ", Spelling(flag->Name()), " needs a value"),
            flag_file);
      }
    }
    // List flags (--input) repeat: each use appends.
    if (flag->IsOfType<std::vector<std::string>>()) {
      if (!repeated.insert(std::string(flag->Name())).second) {
        value = absl::StrCat(flag->CurrentValue(), ",", value);
      }
    }
    std::string error;
    if (!flag->ParseFrom(value, &error)) {
      UsageError(absl::StrCat("bad value '", value, "' for ",
                              Spelling(flag->Name()), ": ", error),
                 flag_file);
    }
  }
  return positional;
}

}  // namespace xlite
