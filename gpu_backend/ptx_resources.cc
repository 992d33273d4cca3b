#include "gpu_backend/ptx_resources.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace xlite::gpu {
namespace {

// The PTX without its comments (quoted strings, as in .file, kept whole).
std::string StripComments(absl::string_view ptx) {
  std::string out;
  out.reserve(ptx.size());
  for (size_t i = 0; i < ptx.size(); ++i) {
    if (ptx[i] == '"') {
      const size_t end = ptx.find('"', i + 1);
      const size_t stop = end == absl::string_view::npos ? ptx.size() : end + 1;
      absl::StrAppend(&out, ptx.substr(i, stop - i));
      i = stop - 1;
    } else if (ptx.substr(i, 2) == "//") {
      const size_t end = ptx.find('\n', i);
      if (end == absl::string_view::npos) break;
      i = end - 1;
    } else if (ptx.substr(i, 2) == "/*") {
      const size_t end = ptx.find("*/", i + 2);
      if (end == absl::string_view::npos) break;
      out += ' ';
      i = end + 1;
    } else {
      out += ptx[i];
    }
  }
  return out;
}

bool IsIdentifierChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' ||
         c == '$';
}

struct Function {
  std::string name;
  bool entry = false;
  std::string body;  // between its outer braces
};

// The index just past the `open` at `at` and its balanced `close`.
size_t SkipBalanced(absl::string_view text, size_t at, char open, char close) {
  int depth = 0;
  for (size_t i = at; i < text.size(); ++i) {
    if (text[i] == open) ++depth;
    if (text[i] == close && --depth == 0) return i + 1;
  }
  return text.size();
}

// Whether `keyword` (".entry", ".func") starts at `i` as a whole token.
bool KeywordAt(absl::string_view text, size_t i, absl::string_view keyword) {
  if (text.substr(i, keyword.size()) != keyword) return false;
  const size_t after = i + keyword.size();
  return (i == 0 ||
          absl::ascii_isspace(static_cast<unsigned char>(text[i - 1]))) &&
         (after == text.size() || !IsIdentifierChar(text[after]));
}

// The functions that have bodies; `module_scope` gets the rest.
std::vector<Function> SplitFunctions(absl::string_view text,
                                     std::string& module_scope) {
  std::vector<Function> functions;
  size_t copied = 0;
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '{') ++depth;
    if (text[i] == '}') --depth;
    const bool entry = KeywordAt(text, i, ".entry");
    if (depth != 0 || !(entry || KeywordAt(text, i, ".func"))) continue;
    size_t j = i + (entry ? 6 : 5);
    while (j < text.size() &&
           absl::ascii_isspace(static_cast<unsigned char>(text[j])))
      ++j;
    if (j < text.size() && text[j] == '(') {  // a .func's return value
      j = SkipBalanced(text, j, '(', ')');
      while (j < text.size() &&
             absl::ascii_isspace(static_cast<unsigned char>(text[j])))
        ++j;
    }
    Function f;
    f.entry = entry;
    while (j < text.size() && IsIdentifierChar(text[j])) f.name += text[j++];
    // Parameters and performance directives, up to the body or the ';' of
    // a prototype.
    while (j < text.size() && text[j] != '{' && text[j] != ';') {
      j = text[j] == '(' ? SkipBalanced(text, j, '(', ')') : j + 1;
    }
    absl::StrAppend(&module_scope, text.substr(copied, i - copied));
    if (j < text.size() && text[j] == '{') {
      const size_t end = SkipBalanced(text, j, '{', '}');
      f.body = std::string(text.substr(j + 1, end - j - 2));
      functions.push_back(std::move(f));
      j = end;
    } else {
      j = std::min(j + 1, text.size());
    }
    copied = j;
    i = j - 1;
  }
  absl::StrAppend(&module_scope, text.substr(std::min(copied, text.size())));
  return functions;
}

// Statements (';'-separated) with block braces, labels and a guard
// predicate taken off their front.
std::vector<std::string> Statements(absl::string_view text) {
  std::vector<std::string> out;
  for (absl::string_view s : absl::StrSplit(text, ';')) {
    while (true) {
      s = absl::StripLeadingAsciiWhitespace(s);
      if (!s.empty() && (s[0] == '{' || s[0] == '}')) {
        s.remove_prefix(1);
        continue;
      }
      const size_t space = s.find_first_of(" \t\n");
      const absl::string_view first = s.substr(0, space);
      if (!first.empty() && (first.back() == ':' || first[0] == '@')) {
        s.remove_prefix(first.size());
        continue;
      }
      break;
    }
    if (!s.empty()) out.emplace_back(absl::StripTrailingAsciiWhitespace(s));
  }
  return out;
}

std::vector<std::string> Tokens(absl::string_view statement) {
  return absl::StrSplit(statement, absl::ByAnyChar(" \t\n"), absl::SkipEmpty());
}

int64_t TypeBytes(absl::string_view type) {
  if (type == ".b128") return 16;
  if (absl::EndsWith(type, "64")) return 8;
  if (absl::EndsWith(type, "32") || absl::EndsWith(type, "x2")) return 4;
  if (absl::EndsWith(type, "16")) return 2;
  return 1;  // .b8, .u8, .s8, .pred
}

struct SharedVariable {
  std::string name;
  int64_t bytes = 0;
  bool external = false;
};

// The variables a `.shared` declaration statement declares (none for any
// other statement).
std::vector<SharedVariable> SharedDeclaration(absl::string_view statement) {
  // Module directives (.version, .target, .file) end at their line, not at
  // a ';': the declaration starts on the line that names the state space.
  std::vector<std::string> tokens;
  for (size_t start = 0; start < statement.size();) {
    size_t end = statement.find('\n', start);
    if (end == absl::string_view::npos) end = statement.size();
    const std::vector<std::string> line =
        Tokens(statement.substr(start, end - start));
    if (std::find(line.begin(), line.end(), ".shared") != line.end()) {
      tokens = Tokens(statement.substr(start));
      break;
    }
    start = end + 1;
  }
  if (tokens.empty() || tokens[0][0] != '.' ||
      std::find(tokens.begin(), tokens.end(), ".shared") == tokens.end()) {
    return {};
  }
  bool external = false;
  int64_t element = 1, vector = 1;
  std::string declarators;
  for (size_t t = 0; t < tokens.size(); ++t) {
    const std::string& token = tokens[t];
    if (token == ".align") {
      ++t;
    } else if (token == ".extern") {
      external = true;
    } else if (absl::StartsWith(token, ".v") && token.size() <= 3) {
      absl::SimpleAtoi(token.substr(2), &vector);
    } else if (absl::StartsWith(token, ".b") || absl::StartsWith(token, ".u") ||
               absl::StartsWith(token, ".s") || absl::StartsWith(token, ".f") ||
               token == ".pred") {
      if (token != ".shared") element = TypeBytes(token);
    } else if (token[0] != '.') {
      declarators += token;
    }
  }
  std::vector<SharedVariable> out;
  for (absl::string_view d : absl::StrSplit(declarators, ',')) {
    SharedVariable v;
    v.external = external;
    v.name = std::string(d.substr(0, d.find('[')));
    v.bytes = element * vector;
    for (size_t open = d.find('['); open != absl::string_view::npos;
         open = d.find('[', open + 1)) {
      int64_t n = 0;
      const size_t close = d.find(']', open);
      if (close == absl::string_view::npos ||
          !absl::SimpleAtoi(d.substr(open + 1, close - open - 1), &n)) {
        n = 0;  // unsized: dynamic
      }
      v.bytes *= n;
    }
    if (!v.name.empty()) out.push_back(std::move(v));
  }
  return out;
}

absl::flat_hash_set<std::string> Identifiers(absl::string_view text) {
  absl::flat_hash_set<std::string> out;
  for (size_t i = 0; i < text.size();) {
    if (!IsIdentifierChar(text[i])) {
      ++i;
      continue;
    }
    const size_t start = i;
    while (i < text.size() && IsIdentifierChar(text[i])) ++i;
    out.insert(std::string(text.substr(start, i - start)));
  }
  return out;
}

std::optional<int64_t> Immediate(absl::string_view operand) {
  operand = absl::StripAsciiWhitespace(operand);
  int64_t v = 0;
  if (absl::StartsWithIgnoreCase(operand, "0x")) {
    uint64_t u = 0;
    if (absl::SimpleHexAtoi(operand.substr(2), &u))
      return static_cast<int64_t>(u);
    return std::nullopt;
  }
  if (absl::SimpleAtoi(operand, &v)) return v;
  return std::nullopt;
}

struct TensorMemory {
  int64_t peak = 0;
  bool unknown = false;
};

// The columns a function's own tcgen05.alloc/dealloc hold at most.
TensorMemory TensorMemoryOf(const std::vector<std::string>& statements) {
  // Registers set once from an immediate (a column count in a register).
  absl::flat_hash_map<std::string, std::optional<int64_t>> moved;
  for (const std::string& s : statements) {
    const std::vector<std::string> tokens = Tokens(s);
    if (tokens.size() < 2 || !absl::StartsWith(tokens[0], "mov.")) continue;
    const std::vector<std::string> operands = absl::StrSplit(
        absl::StrJoin(tokens.begin() + 1, tokens.end(), ""), ',');
    if (operands.size() != 2) continue;
    auto [it, inserted] =
        moved.try_emplace(operands[0], Immediate(operands[1]));
    if (!inserted && it->second != Immediate(operands[1])) it->second.reset();
  }
  TensorMemory out;
  int64_t held = 0;
  for (const std::string& s : statements) {
    const std::vector<std::string> tokens = Tokens(s);
    if (tokens.empty()) continue;
    const bool alloc = absl::StartsWith(tokens[0], "tcgen05.alloc");
    const bool dealloc = absl::StartsWith(tokens[0], "tcgen05.dealloc");
    if (!alloc && !dealloc) continue;
    const std::string operands =
        absl::StrJoin(tokens.begin() + 1, tokens.end(), "");
    const std::string last = operands.substr(operands.rfind(',') + 1);
    std::optional<int64_t> columns = Immediate(last);
    if (!columns.has_value()) {
      auto it = moved.find(last);
      if (it != moved.end()) columns = it->second;
    }
    if (!columns.has_value()) {
      out.unknown = true;
      continue;
    }
    held = std::max<int64_t>(0, held + (alloc ? *columns : -*columns));
    out.peak = std::max(out.peak, held);
  }
  return out;
}

}  // namespace

absl::flat_hash_map<std::string, PtxKernelUsage> ScanPtxKernels(
    absl::string_view ptx) {
  const std::string text = StripComments(ptx);
  std::string module_scope;
  const std::vector<Function> functions = SplitFunctions(text, module_scope);
  absl::flat_hash_map<std::string, SharedVariable> module_shared;
  for (const std::string& s : Statements(module_scope)) {
    for (SharedVariable& v : SharedDeclaration(s)) {
      module_shared[v.name] = std::move(v);
    }
  }
  // Per function: what it names, its own shared and tensor memory.
  struct Facts {
    absl::flat_hash_set<std::string> names;
    PtxKernelUsage own;
  };
  absl::flat_hash_map<std::string, Facts> facts;
  for (const Function& f : functions) {
    Facts& x = facts[f.name];
    x.names = Identifiers(f.body);
    const std::vector<std::string> statements = Statements(f.body);
    for (const std::string& s : statements) {
      for (const SharedVariable& v : SharedDeclaration(s)) {
        x.own.static_shared_bytes += v.external ? 0 : v.bytes;
        x.own.uses_dynamic_shared |= v.external;
      }
    }
    const TensorMemory tmem = TensorMemoryOf(statements);
    x.own.tensor_memory_columns = tmem.peak;
    x.own.tensor_memory_unknown = tmem.unknown;
  }
  absl::flat_hash_map<std::string, PtxKernelUsage> out;
  for (const Function& entry : functions) {
    if (!entry.entry) continue;
    // The entry and every function it reaches through calls.
    std::vector<std::string> reached = {entry.name};
    absl::flat_hash_set<std::string> seen = {entry.name};
    absl::flat_hash_set<std::string> named;
    PtxKernelUsage usage;
    for (size_t k = 0; k < reached.size(); ++k) {
      const Facts& x = facts[reached[k]];
      usage.static_shared_bytes += x.own.static_shared_bytes;
      usage.uses_dynamic_shared |= x.own.uses_dynamic_shared;
      usage.tensor_memory_columns += x.own.tensor_memory_columns;
      usage.tensor_memory_unknown |= x.own.tensor_memory_unknown;
      for (const std::string& name : x.names) {
        named.insert(name);
        if (facts.contains(name) && seen.insert(name).second) {
          reached.push_back(name);
        }
      }
    }
    for (const auto& [name, v] : module_shared) {
      if (!named.contains(name)) continue;
      usage.static_shared_bytes += v.external ? 0 : v.bytes;
      usage.uses_dynamic_shared |= v.external;
    }
    out[entry.name] = usage;
  }
  return out;
}

absl::flat_hash_map<std::string, PtxasKernelUsage> ParsePtxasUsage(
    absl::string_view log) {
  absl::flat_hash_map<std::string, PtxasKernelUsage> out;
  std::string current;
  constexpr absl::string_view kCompiling = "Compiling entry function '";
  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    if (size_t at = line.find(kCompiling); at != absl::string_view::npos) {
      const absl::string_view rest = line.substr(at + kCompiling.size());
      current = std::string(rest.substr(0, rest.find('\'')));
      continue;
    }
    // "... wgmma.mma_async instructions are serialized due to <why> in
    // the function 'k'".
    constexpr absl::string_view kSerialized =
        "wgmma.mma_async instructions are serialized";
    if (size_t at = line.find(kSerialized); at != absl::string_view::npos) {
      const size_t close = line.rfind('\'');
      const size_t open = close == absl::string_view::npos || close == 0
                              ? absl::string_view::npos
                              : line.rfind('\'', close - 1);
      if (open != absl::string_view::npos && open > at) {
        const std::string name(line.substr(open + 1, close - open - 1));
        out[name].wgmma_serialized =
            std::string(absl::StripAsciiWhitespace(line.substr(at)));
      }
      continue;
    }
    if (!current.empty() && absl::StrContains(line, "bytes spill stores")) {
      // "N bytes stack frame, N bytes spill stores, N bytes spill loads"
      for (absl::string_view part : absl::StrSplit(line, ',')) {
        const std::vector<absl::string_view> words =
            absl::StrSplit(part, ' ', absl::SkipEmpty());
        int64_t n = 0;
        if (words.size() == 4 && words[2] == "spill" &&
            absl::SimpleAtoi(words[0], &n)) {
          out[current].spill_bytes += n;
        }
      }
      continue;
    }
    const size_t used = line.find("Used ");
    if (current.empty() || used == absl::string_view::npos) continue;
    PtxasKernelUsage& usage = out[current];
    for (absl::string_view part : absl::StrSplit(line.substr(used), ',')) {
      const std::vector<absl::string_view> words =
          absl::StrSplit(part, ' ', absl::SkipEmpty());
      for (size_t w = 0; w + 1 < words.size(); ++w) {
        int64_t n = 0;
        if (!absl::SimpleAtoi(words[w], &n)) continue;
        if (words[w + 1] == "registers") usage.registers = n;
        if (w + 2 < words.size() && words[w + 1] == "bytes" &&
            words[w + 2] == "smem") {
          usage.shared_bytes = n;
        }
      }
    }
    current.clear();
  }
  return out;
}

}  // namespace xlite::gpu
