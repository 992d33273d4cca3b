// The HLO text parser: modules, computations, computation references and
// the public entry points. The module header is in parser_module_header.cc,
// instructions in parser_instruction.cc, attributes in parser_attributes.cc
// and attribute_parsers.cc, value grammars in parser_values.cc,
// parser_literals.cc, parser_attribute_values.cc and parser_sharding.cc.

#include "hlo/text/parser.h"

#include <algorithm>
#include <cstdio>
#include <functional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "hlo/analysis/shape_inference.h"
#include "hlo/text/parser_impl.h"

namespace xlite {
namespace parser_internal {

Parser::Parser(absl::string_view text, const ParseOptions& options)
    : scanner_(text, options.filename, options.line_offset),
      options_(options) {}

void Parser::Warn(size_t position, absl::string_view message) {
  std::string text = scanner_.FormatDiagnostic(position, "warning", message);
  if (options_.warnings != nullptr) {
    options_.warnings->push_back(std::move(text));
  } else {
    std::fprintf(stderr, "%s\n", text.c_str());
  }
}

// ----------------------------------------------------------------- module

absl::StatusOr<std::unique_ptr<HloModule>> Parser::ParseModule() {
  auto module = std::make_unique<HloModule>("module");
  module->set_source_name(options_.filename);
  module_ = module.get();
  TextScanner& s = scanner_;
  if (s.AtEnd()) {
    s.Error("empty input: expected 'HloModule name'");
    return s.status();
  }
  const size_t header_pos = s.Position();
  bool has_header = false;
  if (s.PeekIdentifier() == "HloModule") {
    s.ReadIdentifier();
    has_header = true;
    if (!ParseModuleHeader(module.get())) return s.status();
  }
  if (!ParseStackFrameIndex(module.get())) return s.status();
  while (!s.AtEnd() && !s.has_error()) {
    if (!ParseComputation(module.get())) return s.status();
  }
  if (s.has_error()) return s.status();
  if (pending_computations_.empty()) {
    s.ErrorAt(header_pos, "module has no computations");
    return s.status();
  }
  // Add computations in file order; the ENTRY one (or the last) is the entry.
  HloComputation* entry = nullptr;
  for (auto& c : pending_computations_) {
    HloComputation* raw = module->AddComputation(std::move(c));
    if (!entry_name_.empty() && raw->name() == entry_name_) entry = raw;
  }
  pending_computations_.clear();
  if (entry == nullptr) {
    // No ENTRY: the last non-wrapper computation.
    for (HloComputation* c : module->computations()) {
      if (!c->is_sugared_async_wrapper()) entry = c;
    }
  }
  module->set_entry_computation(entry);
  if (!has_header) module->set_name(absl::StrCat("module_", entry->name()));
  if (!ResolveComputationRefs(module.get())) return s.status();
  if (!CheckCallGraphAcyclic(module.get())) return s.status();
  // Names are unique module-wide from here on, as XLA makes them.
  module->UniquifyNamesLikeXla();
  // Like XLA, a module always has an entry computation layout: when the
  // header does not give one, it is the entry's parameter and root shapes.
  HloModuleConfig& config = module->config();
  if (!config.entry_parameter_layouts.has_value()) {
    config.entry_parameter_layouts = module->EntryParameterLayouts();
  }
  if (!config.entry_result_layout.has_value()) {
    config.entry_result_layout = module->EntryResultLayout();
  }
  return module;
}

// ------------------------------------------------------------ computation

bool Parser::ParseComputation(HloModule* module) {
  TextScanner& s = scanner_;
  (void)module;
  const bool is_entry = s.PeekIdentifier() == "ENTRY";
  const size_t entry_pos = s.Position();
  if (is_entry) s.ReadIdentifier();
  const size_t name_pos = s.Position();
  std::string name = s.ReadName();
  if (name.empty()) {
    return s.ErrorAt(name_pos, is_entry
                                   ? "expected a computation name after ENTRY"
                                   : "expected a computation name");
  }
  if (name == "HloModule" && !is_entry) {
    return s.ErrorAt(name_pos,
                     "a second 'HloModule' in one input; separate modules with "
                     "a line '// -----' and use --split-input-file");
  }
  if (computations_by_name_.contains(name)) {
    auto [line, col] = s.LineColumn(computation_positions_[name]);
    return s.ErrorAt(name_pos, absl::StrCat("computation '", name,
                                            "' is already defined at line ",
                                            line, ":", col));
  }
  if (is_entry && !entry_name_.empty()) {
    return s.ErrorAt(entry_pos, absl::StrCat("more than one ENTRY computation "
                                             "(the first is '",
                                             entry_name_, "')"));
  }
  auto computation = std::make_unique<HloComputation>(name);
  {
    auto [line, col] = s.LineColumn(name_pos);
    computation->set_location({line, col});
  }
  // Optional signature "(p: shape, ...) -> shape".
  std::optional<Shape> declared_result;
  size_t signature_pos = 0;
  if (s.Peek() == '(') {
    signature_pos = s.Position();
    s.Consume('(');
    if (!s.Consume(')')) {
      do {
        const size_t p = s.Position();
        std::string param = s.ReadName();
        if (param.empty()) return s.ErrorAt(p, "expected a parameter name");
        if (!s.Expect(':', "after a parameter name")) return false;
        Shape ignored;
        if (!ParseShape(&ignored)) return false;
      } while (s.Consume(','));
      if (!s.Expect(')', "to close the parameter list")) return false;
    }
    if (!s.ConsumeString("->")) {
      return s.Error("expected '->' after the computation's parameter list");
    }
    Shape result;
    if (!ParseShape(&result)) return false;
    declared_result = std::move(result);
  }
  if (s.Peek() != '{') {
    return s.Expect('{', What("to start the body of computation ", name));
  }
  HloComputation* raw = computation.get();
  // Register early so instructions can call it (a cycle is diagnosed later).
  computations_by_name_[name] = raw;
  computation_positions_[name] = name_pos;
  if (is_entry) entry_name_ = name;
  pending_computations_.push_back(std::move(computation));
  if (!ParseInstructionList(raw, name_pos)) return false;
  if (declared_result.has_value() &&
      !ShapesCompatible(*declared_result, raw->root_instruction()->shape())) {
    return s.ErrorAt(
        signature_pos,
        absl::StrCat("computation ", name, " declares result ",
                     declared_result->ToString(false), " but its root ",
                     raw->root_instruction()->name(), " has shape ",
                     raw->root_instruction()->shape().ToString(false)));
  }
  // ", execution_thread="...""
  const size_t after = s.RawPosition();
  if (s.Consume(',')) {
    const size_t p = s.Position();
    std::string key = s.ReadIdentifier();
    if (key != "execution_thread") {
      // Not ours: a computation attribute we do not know.
      return s.ErrorAt(p, absl::StrCat("unknown computation attribute '", key,
                                       "'; expected execution_thread"));
    }
    std::string thread;
    if (!s.Expect('=', "after execution_thread") ||
        !s.ReadQuotedString(&thread, "for execution_thread")) {
      return false;
    }
    raw->set_execution_thread(thread);
  } else {
    s.Reset(after);
  }
  return true;
}

bool Parser::ParseInstructionList(HloComputation* computation,
                                  size_t name_pos) {
  TextScanner& s = scanner_;
  const std::string& name = computation->name();
  if (!s.Expect('{', What("to start the body of computation ", name))) {
    return false;
  }
  names_.clear();
  anonymous_.clear();
  HloInstruction* root = nullptr;
  size_t root_pos = 0;
  HloInstruction* last = nullptr;
  while (s.Peek() != '}') {
    if (s.AtEnd()) {
      return s.Error(absl::StrCat("unexpected end of input in computation ",
                                  name, "; expected '}'"));
    }
    const size_t p = s.Position();
    bool is_root = false;
    HloInstruction* instruction = nullptr;
    if (!ParseInstruction(computation, &is_root, &instruction)) return false;
    last = instruction;
    if (is_root) {
      if (root != nullptr) {
        auto [line, col] = s.LineColumn(root_pos);
        return s.ErrorAt(p, absl::StrCat("computation ", name,
                                         " has a second ROOT (the first is at "
                                         "line ",
                                         line, ":", col, ")"));
      }
      root = instruction;
      root_pos = p;
    }
  }
  s.Consume('}');
  if (last == nullptr) {
    return s.ErrorAt(
        name_pos, absl::StrCat("computation ", name, " has no instructions"));
  }
  computation->set_root_instruction(root != nullptr ? root : last);
  // Parameters must be numbered 0..n-1.
  for (int64_t i = 0; i < computation->num_parameters(); ++i) {
    if (computation->parameter_instruction(i) == nullptr) {
      return s.ErrorAt(
          name_pos, absl::StrCat("computation ", name, " has no parameter(", i,
                                 ") but has parameter(",
                                 computation->num_parameters() - 1, ")"));
    }
  }
  return true;
}

bool Parser::ParseNestedComputation(HloInstruction* instruction, int64_t slot) {
  TextScanner& s = scanner_;
  const size_t position = s.Position();
  if (++recursion_depth_ > 100) {
    --recursion_depth_;
    return s.Error("computations nested too deeply");
  }
  // XLA names a computation written in place "_"; the module makes the
  // name unique. Its instructions have their own scope.
  auto computation = std::make_unique<HloComputation>("_");
  {
    auto [line, col] = s.LineColumn(position);
    computation->set_location({line, col});
  }
  HloComputation* raw = computation.get();
  // Before the computation that uses it, as XLA adds them.
  pending_computations_.insert(pending_computations_.end() - 1,
                               std::move(computation));
  auto saved_names = std::move(names_);
  auto saved_anonymous = std::move(anonymous_);
  const bool ok = ParseInstructionList(raw, position);
  names_ = std::move(saved_names);
  anonymous_ = std::move(saved_anonymous);
  --recursion_depth_;
  if (!ok) return false;
  if (slot >= static_cast<int64_t>(instruction->called_computations().size())) {
    instruction->ResizeCalledComputations(slot + 1);
  }
  instruction->set_called_computation(slot, raw);
  return true;
}

bool Parser::ResolveComputationRefs(HloModule* module) {
  TextScanner& s = scanner_;
  for (const ComputationRef& ref : refs_) {
    HloComputation* callee = module->GetComputationWithName(ref.name);
    if (callee == nullptr) {
      return s.ErrorAt(ref.position, absl::StrCat("computation '", ref.name,
                                                  "' is not defined"));
    }
    ref.instruction->set_called_computation(ref.slot, callee);
  }
  for (HloComputation* computation : module->computations()) {
    for (HloInstruction* instruction : computation->instructions()) {
      for (HloComputation* callee : instruction->called_computations()) {
        if (callee == nullptr) {
          auto it = positions_.find(instruction);
          return s.ErrorAt(it == positions_.end() ? 0 : it->second,
                           absl::StrCat(HloOpcodeString(instruction->opcode()),
                                        " ", instruction->name(),
                                        " is missing a called computation"));
        }
      }
    }
  }
  return true;
}

bool Parser::CheckCallGraphAcyclic(HloModule* module) {
  // Colors: 0 unvisited, 1 on the stack, 2 done.
  absl::flat_hash_map<const HloComputation*, int> color;
  std::vector<const HloComputation*> path;
  const HloInstruction* culprit = nullptr;
  std::function<bool(const HloComputation*)> visit =
      [&](const HloComputation* c) -> bool {
    color[c] = 1;
    path.push_back(c);
    for (HloInstruction* instruction : c->instructions()) {
      for (HloComputation* callee : instruction->called_computations()) {
        int& state = color[callee];
        if (state == 1) {
          culprit = instruction;
          path.push_back(callee);
          return false;
        }
        if (state == 0 && !visit(callee)) return false;
      }
    }
    path.pop_back();
    color[c] = 2;
    return true;
  };
  for (HloComputation* c : module->computations()) {
    if (color[c] != 0) continue;
    path.clear();
    if (!visit(c)) {
      std::vector<std::string> names;
      // Report the cycle only (from the callee's first appearance).
      size_t first = 0;
      while (first < path.size() && path[first] != path.back()) ++first;
      for (size_t i = first; i < path.size(); ++i)
        names.push_back(path[i]->name());
      auto it = positions_.find(culprit);
      return scanner_.ErrorAt(
          it == positions_.end() ? 0 : it->second,
          absl::StrCat("computations call each other in a cycle: ",
                       absl::StrJoin(names, " -> ")));
    }
  }
  return true;
}

absl::StatusOr<Shape> Parser::ParseShapeOnly() {
  Shape shape;
  if (!ParseShape(&shape)) return scanner_.status();
  if (!scanner_.AtEnd()) {
    scanner_.Error("unexpected text after the shape");
    return scanner_.status();
  }
  return shape;
}

// A literal that carries its own shapes: "f32[2] {1, 2}", or a tuple of
// such literals "(f32[] 1, (s32[] 2, pred[] true))", or a tuple shape
// followed by an untyped tuple value "(f32[], s32[]) (1, 2)".
bool Parser::ParseSelfDescribingLiteral(Literal* literal) {
  TextScanner& s = scanner_;
  if (++recursion_depth_ > 200) {
    --recursion_depth_;
    return s.Error("literal nested too deeply");
  }
  struct Guard {
    int* depth;
    ~Guard() { --*depth; }
  } guard{&recursion_depth_};
  if (s.Peek() == '(') {
    // Find the matching ')' to see what follows it.
    const size_t open = s.Position();
    int depth = 0;
    size_t close = absl::string_view::npos;
    for (size_t i = open; i < s.text().size(); ++i) {
      if (s.text()[i] == '(') ++depth;
      if (s.text()[i] == ')' && --depth == 0) {
        close = i;
        break;
      }
    }
    if (close == absl::string_view::npos) return s.Error("unbalanced '('");
    s.Reset(close + 1);
    const bool shape_then_value = s.Peek() == '(';
    s.Reset(open);
    if (!shape_then_value) {
      s.Consume('(');
      std::vector<Literal> elements;
      if (!s.Consume(')')) {
        do {
          Literal element;
          if (!ParseSelfDescribingLiteral(&element)) return false;
          elements.push_back(std::move(element));
        } while (s.Consume(','));
        if (!s.Expect(')', "to close a tuple literal")) return false;
      }
      *literal = Literal::Tuple(std::move(elements));
      return true;
    }
  }
  Shape shape;
  return ParseShape(&shape) && ParseLiteralValue(shape, literal);
}

absl::StatusOr<Literal> Parser::ParseLiteralOnly() {
  TextScanner& s = scanner_;
  Literal literal;
  if (!ParseSelfDescribingLiteral(&literal)) return s.status();
  if (!s.AtEnd()) {
    s.Error("unexpected text after the literal");
    return s.status();
  }
  return literal;
}

}  // namespace parser_internal

absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(
    absl::string_view text, const ParseOptions& options) {
  parser_internal::Parser parser(text, options);
  return parser.ParseModule();
}

absl::StatusOr<Shape> ParseShape(absl::string_view text,
                                 const ParseOptions& options) {
  parser_internal::Parser parser(text, options);
  return parser.ParseShapeOnly();
}

absl::StatusOr<Literal> ParseLiteral(absl::string_view text,
                                     const ParseOptions& options) {
  parser_internal::Parser parser(text, options);
  return parser.ParseLiteralOnly();
}

std::vector<SplitPiece> SplitInputFile(absl::string_view text) {
  std::vector<SplitPiece> pieces;
  SplitPiece current;
  int line = 0;
  for (absl::string_view raw_line : absl::StrSplit(text, '\n')) {
    absl::string_view trimmed = absl::StripAsciiWhitespace(raw_line);
    if (trimmed == "// -----") {
      pieces.push_back(std::move(current));
      current = SplitPiece();
      current.line_offset = line + 1;
    } else {
      absl::StrAppend(&current.text, raw_line, "\n");
    }
    ++line;
  }
  pieces.push_back(std::move(current));
  return pieces;
}

}  // namespace xlite
