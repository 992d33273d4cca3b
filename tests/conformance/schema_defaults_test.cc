// The schema's defaults are XLA's, as the printer and the parser treat
// them: in every module of the JAX corpus, the lit tests and the real
// corpus, writing each optional attribute that an instruction's row has a
// default for, and that it does not print, explicitly at that default
// (`, feature_group_count=1`, `, indices_are_sorted=false`, `, window={}`
// ...) parses to a module that prints as before. Every declared default
// must be exercised by some module.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/module.h"
#include "hlo/ir/opcode_schema.h"
#include "hlo/text/module_equal.h"
#include "hlo/text/parser.h"
#include "hlo/text/printer.h"
#include "tests/testing/paths.h"

namespace xlite {
namespace {

// The JAX corpus and lit tests in the checkout, the real corpus beside it.
std::vector<std::string> Modules() {
  std::vector<std::string> files;
  std::optional<std::string> root = testing::SourceRoot();
  if (root.has_value()) {
    for (const std::string& program : testing::ListFiles(
             absl::StrCat(*root, "/tests/corpus/programs"), "")) {
      for (const std::string& f : testing::ListFiles(program, ".hlo")) {
        files.push_back(f);
      }
    }
    for (const char* suite : {"parser", "passes", "proto", "run"}) {
      for (const std::string& f : testing::ListFiles(
               absl::StrCat(*root, "/tests/lit/", suite), ".hlo")) {
        files.push_back(f);
      }
    }
  }
  if (std::optional<std::string> real = testing::SharedCorpusDir()) {
    for (const std::string& f : testing::ListFiles(*real, ".hlo")) {
      files.push_back(f);
    }
  }
  return files;
}

// ", name=default" for each optional attribute of `hlo`'s row with a
// default that `line` (its printed form) does not already carry.
std::string DefaultsToAdd(const HloInstruction& hlo, absl::string_view line,
                          std::set<AttributeId>* written) {
  std::string added;
  for (const OpcodeAttribute& a : GetOpcodeSchema(hlo.opcode()).attributes) {
    const AttributeInfo& info = GetAttributeInfo(a.id);
    if (a.use != AttributeUse::kOptional || info.default_text == nullptr) {
      continue;
    }
    if (absl::StrContains(line, absl::StrCat(", ", info.name, "="))) continue;
    absl::StrAppend(&added, ", ", info.name, "=", info.default_text);
    written->insert(a.id);
  }
  return added;
}

// The printed module with the defaults written after every instruction
// (at the end of its last line: a pretty-printed backend_config spans
// several). Sugared async ops, whose attributes belong to two rows, are left
// alone.
std::string WithDefaultsWritten(const HloModule& module,
                                const std::string& printed,
                                std::set<AttributeId>* written) {
  absl::flat_hash_map<std::string, const HloInstruction*> by_name;
  for (const HloComputation* c : module.computations()) {
    for (const HloInstruction* i : c->instructions()) {
      by_name[absl::StrCat("%", i->name())] = i;
    }
  }
  std::vector<std::string> lines = absl::StrSplit(printed, '\n');
  const HloInstruction* pending = nullptr;  // the instruction being read
  size_t pending_start = 0, pending_end = 0;
  auto flush = [&] {
    if (pending == nullptr || pending->async_sugar().has_value()) return;
    std::string text;
    for (size_t i = pending_start; i <= pending_end; ++i) {
      absl::StrAppend(&text, lines[i], "\n");
    }
    lines[pending_end] += DefaultsToAdd(*pending, text, written);
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    absl::string_view rest = absl::StripLeadingAsciiWhitespace(lines[i]);
    absl::ConsumePrefix(&rest, "ROOT ");
    const size_t eq = rest.find(" = ");
    auto it = absl::StartsWith(rest, "%") && eq != absl::string_view::npos
                  ? by_name.find(std::string(rest.substr(0, eq)))
                  : by_name.end();
    if (it != by_name.end() || absl::StartsWith(lines[i], "}")) {
      flush();
      pending = it != by_name.end() ? it->second : nullptr;
      pending_start = pending_end = i;
    } else if (pending != nullptr && !lines[i].empty()) {
      pending_end = i;
    }
  }
  flush();
  return absl::StrJoin(lines, "\n");
}

// Writes the defaults into `text` (one module, or a lit file's pieces split
// on `// -----`; pieces that do not parse are error cases and skipped) and
// reports any module that prints differently.
void CheckDefaults(const std::string& name, const std::string& text,
                   std::set<AttributeId>* written) {
  for (absl::string_view piece : absl::StrSplit(text, "\n// -----\n")) {
    auto module = ParseHloModule(piece);
    if (!module.ok()) continue;
    const std::string printed = PrintModule(**module);
    const std::string with_defaults =
        WithDefaultsWritten(**module, printed, written);
    auto reparsed = ParseHloModule(with_defaults);
    if (!reparsed.ok()) {
      ADD_FAILURE() << name << ": " << reparsed.status().message();
      continue;
    }
    // A reparse may order computations differently (XLA's order is not
    // kept across one); that is not what this test looks at.
    std::string difference;
    if (!PrintsEqualUpToComputationOrder(**module, **reparsed, &difference)) {
      ADD_FAILURE() << name << ": with its defaults written, " << difference;
    }
  }
}

// Instructions whose defaulted attributes no corpus module leaves at their
// default (JAX's sorts are stable, ...).
constexpr char kRareDefaults[] = R"(
HloModule rare
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = f32[4] parameter(0)
  m = f32[3,3] parameter(1)
  s = f32[4] sort(x), dimensions={0}, to_apply=less
  c = f32[3,3] cholesky(m)
  t = f32[3,3] triangular-solve(m, m)
  g = s32[1] parameter(2)
  rd = f32[3,3] ragged-dot(m, m, g), lhs_contracting_dims={1},
      rhs_contracting_dims={1}
  tok = token[] after-all()
  i = ((f32[4]), token[]) infeed(tok)
  o = token[] outfeed(x, tok)
  snd = (f32[4], u32[], token[]) send(x, tok), channel_id=1
  sd = token[] send-done(snd), channel_id=1
  cp = f32[4] copy-start(x)
  ROOT r = (f32[4], f32[3,3], f32[3,3]) tuple(s, c, t)
}
)";

TEST(SchemaDefaults, WritingDefaultsChangesNothing) {
  std::set<AttributeId> written;
  const std::vector<std::string> files = Modules();
  EXPECT_GT(files.size(), 100u) << "the corpora are missing";
  for (const std::string& file : files) {
    std::optional<std::string> text = testing::ReadFile(file);
    ASSERT_TRUE(text.has_value()) << file;
    CheckDefaults(file, *text, &written);
  }
  CheckDefaults("kRareDefaults", kRareDefaults, &written);
  // Every default the schema declares was written somewhere.
  for (int i = 0; i < kAttributeCount; ++i) {
    const auto id = static_cast<AttributeId>(i);
    if (GetAttributeInfo(id).default_text == nullptr) continue;
    EXPECT_TRUE(written.contains(id))
        << "no module exercises the default of " << GetAttributeInfo(id).name;
  }
}

}  // namespace
}  // namespace xlite
