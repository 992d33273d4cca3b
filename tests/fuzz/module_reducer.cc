#include "tests/fuzz/module_reducer.h"

#include <optional>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "hlo/analysis/verifier.h"
#include "hlo/text/parser.h"

namespace xlite::fuzz {
namespace {

// One instruction line: "  [ROOT ]%name = shape opcode(...)...".
struct Line {
  bool root = false;
  std::string name;
  std::string shape;
  std::string rest;  // opcode, operands and attributes
  std::string Text() const {
    return absl::StrCat("  ", root ? "ROOT " : "", name, " = ", shape, " ",
                        rest);
  }
  bool IsParameter() const { return absl::StartsWith(rest, "parameter("); }
};

struct Computation {
  std::string header;  // "%name {" or "ENTRY %main {"
  std::string name;
  bool entry = false;
  std::vector<Line> lines;
};

struct Module {
  std::string header;  // "HloModule ..."
  std::vector<Computation> computations;
};

std::optional<Line> ParseLine(const std::string& text) {
  std::string s(absl::StripLeadingAsciiWhitespace(text));
  Line line;
  if (absl::StartsWith(s, "ROOT ")) {
    line.root = true;
    s = s.substr(5);
  }
  const size_t eq = s.find(" = ");
  if (eq == std::string::npos) return std::nullopt;
  line.name = s.substr(0, eq);
  std::string rest = s.substr(eq + 3);
  size_t end = 0;
  if (!rest.empty() && rest[0] == '(') {
    int depth = 0;
    for (; end < rest.size(); ++end) {
      depth += rest[end] == '(' ? 1 : rest[end] == ')' ? -1 : 0;
      if (depth == 0) break;
    }
    ++end;
  } else {
    end = rest.find(' ');
  }
  if (end == std::string::npos || end >= rest.size()) return std::nullopt;
  line.shape = rest.substr(0, end);
  line.rest = rest.substr(end + 1);
  return line;
}

std::optional<Module> Split(const std::string& text) {
  Module m;
  Computation* current = nullptr;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    const std::string line(raw);
    if (absl::StartsWith(line, "HloModule")) {
      m.header = line;
    } else if (absl::EndsWith(line, "{") && line.find(" = ") ==
                                               std::string::npos) {
      Computation c;
      c.header = line;
      c.entry = absl::StartsWith(line, "ENTRY");
      std::string name = c.entry ? line.substr(6) : line;
      c.name = name.substr(0, name.find_first_of(" ({"));
      m.computations.push_back(c);
      current = &m.computations.back();
    } else if (line == "}") {
      current = nullptr;
    } else if (current != nullptr && line.find(" = ") != std::string::npos) {
      std::optional<Line> l = ParseLine(line);
      if (!l.has_value()) return std::nullopt;
      current->lines.push_back(*l);
    }
  }
  return m;
}

std::string Join(const Module& m) {
  std::string out = m.header + "\n";
  for (const Computation& c : m.computations) {
    absl::StrAppend(&out, "\n", c.header, "\n");
    for (const Line& l : c.lines) absl::StrAppend(&out, l.Text(), "\n");
    out += "}\n";
  }
  return out;
}

// Whether `name` appears in `text` as a whole name.
bool Mentions(const std::string& text, const std::string& name) {
  for (size_t at = text.find(name); at != std::string::npos;
       at = text.find(name, at + 1)) {
    const size_t end = at + name.size();
    const bool word_after =
        end < text.size() && (std::isalnum(static_cast<unsigned char>(
                                  text[end])) ||
                              text[end] == '_' || text[end] == '.' ||
                              text[end] == '-');
    if (!word_after) return true;
  }
  return false;
}

bool Valid(const std::string& text) {
  ParseOptions options;
  std::vector<std::string> warnings;
  options.warnings = &warnings;
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text, options);
  return m.ok() && VerifyModule(**m).ok();
}

void Renumber(Module& m);

void RemoveDead(Module& m) {
  for (bool changed = true; changed;) {
    changed = false;
    for (Computation& c : m.computations) {
      for (size_t i = 0; i < c.lines.size(); ++i) {
        const Line& l = c.lines[i];
        if (l.root || (l.IsParameter() && !c.entry)) continue;
        bool used = false;
        for (size_t j = 0; j < c.lines.size() && !used; ++j) {
          used = j != i && Mentions(c.lines[j].rest, l.name);
        }
        if (!used) {
          c.lines.erase(c.lines.begin() + i);
          changed = true;
          break;
        }
      }
    }
    for (size_t k = 0; k < m.computations.size(); ++k) {
      if (m.computations[k].entry) continue;
      bool used = false;
      for (const Computation& c : m.computations) {
        for (const Line& l : c.lines) used |= Mentions(l.rest, m.computations[k].name);
      }
      if (!used) {
        m.computations.erase(m.computations.begin() + k);
        changed = true;
        break;
      }
    }
  }
  Renumber(m);
}

// Entry parameters numbered in order of appearance.
void Renumber(Module& m) {
  for (Computation& c : m.computations) {
    if (!c.entry) continue;
    int next = 0;
    for (Line& l : c.lines) {
      if (l.IsParameter()) {
        l.rest = absl::StrCat("parameter(", next++, ")",
                              l.rest.substr(l.rest.find(')') + 1));
      }
    }
  }
}

// The candidates one step smaller than `m`.
std::vector<Module> Candidates(const Module& m) {
  std::vector<Module> out;
  // A computation nothing calls goes.
  for (size_t k = 0; k < m.computations.size(); ++k) {
    if (m.computations[k].entry) continue;
    bool used = false;
    for (const Computation& c : m.computations) {
      for (const Line& l : c.lines) {
        used |= Mentions(l.rest, m.computations[k].name);
      }
    }
    if (used) continue;
    Module n = m;
    n.computations.erase(n.computations.begin() + k);
    out.push_back(std::move(n));
  }
  // A dead instruction goes (when dead code as a whole cannot).
  for (size_t k = 0; k < m.computations.size(); ++k) {
    const Computation& c = m.computations[k];
    for (size_t i = 0; i < c.lines.size(); ++i) {
      if (c.lines[i].root || c.lines[i].IsParameter()) continue;
      bool used = false;
      for (const Line& other : c.lines) used |= Mentions(other.rest, c.lines[i].name);
      if (used) continue;
      Module n = m;
      n.computations[k].lines.erase(n.computations[k].lines.begin() + i);
      out.push_back(std::move(n));
    }
  }
  for (size_t k = 0; k < m.computations.size(); ++k) {
    const Computation& c = m.computations[k];
    for (size_t i = c.lines.size(); i-- > 0;) {
      const Line& l = c.lines[i];
      if (l.IsParameter()) continue;
      if (l.root && c.entry) {
        // One of the root's operands becomes the root.
        for (size_t j = 0; j < i; ++j) {
          if (!Mentions(l.rest, c.lines[j].name)) continue;
          Module n = m;
          Computation& nc = n.computations[k];
          nc.lines.erase(nc.lines.begin() + i);
          nc.lines[j].root = true;
          out.push_back(std::move(n));
        }
      }
      Module n = m;
      Line& nl = n.computations[k].lines[i];
      if (c.entry) {
        nl.rest = "parameter(1000)";
      } else if (nl.shape[0] != '(' && !l.root) {
        const size_t bracket = nl.shape.find('[');
        const std::string type = nl.shape.substr(0, bracket);
        if (type == "pred") {
          nl.rest = "constant(false)";
        } else if (type[0] == 'c') {
          nl.rest = "constant((0, 0))";
        } else {
          nl.rest = type == "f8e8m0fnu" ? "constant(1)" : "constant(0)";
        }
        if (nl.shape.substr(bracket, 2) != "[]") {
          // A scalar constant broadcast to the shape.
          Line scalar = nl;
          scalar.name = nl.name + ".zero";
          scalar.shape = type + "[]";
          nl.rest = absl::StrCat("broadcast(", scalar.name,
                                 "), dimensions={}");
          n.computations[k].lines.insert(
              n.computations[k].lines.begin() + i, scalar);
        }
      } else {
        continue;
      }
      out.push_back(std::move(n));
    }
  }
  return out;
}

}  // namespace

std::string RemoveDeadCode(const std::string& text) {
  std::optional<Module> m = Split(text);
  if (!m.has_value()) return text;
  RemoveDead(*m);
  return Join(*m);
}

std::string ReduceModule(
    const std::string& text,
    const std::function<bool(const std::string&)>& still_fails) {
  std::optional<Module> best = Split(text);
  if (!best.has_value()) return text;
  std::string best_text = text;
  // Candidates are tried without their dead code first, then as they are
  // (a failure may need dead code: a pass that trips over it).
  auto try_variant = [&](Module m, bool clean) {
    if (clean) {
      RemoveDead(m);
    } else {
      Renumber(m);
    }
    const std::string t = Join(m);
    if (t.size() >= best_text.size() || !Valid(t) || !still_fails(t)) {
      return false;
    }
    best = std::move(m);
    best_text = t;
    return true;
  };
  if (!try_variant(*best, true)) best_text = Join(*best);
  for (bool progress = true; progress;) {
    progress = false;
    const std::vector<Module> candidates = Candidates(*best);
    for (bool clean : {true, false}) {
      for (const Module& candidate : candidates) {
        if (try_variant(candidate, clean)) {
          progress = true;
          break;
        }
      }
      if (progress) break;
    }
  }
  return best_text;
}

}  // namespace xlite::fuzz
