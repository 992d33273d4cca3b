// Parsing instructions: names, operands (named or written inline), the
// opcode with its async sugar, and the finishing checks.

#include <algorithm>
#include <functional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "hlo/analysis/shape_inference.h"
#include "hlo/text/parser_impl.h"

namespace xlite {
namespace parser_internal {
namespace {

constexpr int kMaxInstructionNesting = 100;

}  // namespace

// Number of called-computation slots an opcode has before attributes fill
// them (while: condition, body).
// Called-computation slots that attributes (to_apply=, body=, ...) fill;
// async update/done take their computation from the async-start instead.
int AttributeSlots(HloOpcode opcode) {
  if (opcode == HloOpcode::kAsyncUpdate || opcode == HloOpcode::kAsyncDone) {
    return 0;
  }
  return std::max(0, HloOpcodeCalledComputationCount(opcode));
}

bool Parser::ParseInstruction(HloComputation* computation, bool* is_root,
                              HloInstruction** instruction) {
  TextScanner& s = scanner_;
  if (s.PeekIdentifier() == "ROOT") {
    s.ReadIdentifier();
    *is_root = true;
  }
  const size_t name_pos = s.Position();
  std::string name = s.ReadName();
  if (name.empty()) {
    return s.ErrorAt(name_pos,
                     "expected an instruction name (or '}' to end the "
                     "computation)");
  }
  if (!s.Expect('=', What("after instruction name ", name))) return false;
  *instruction = ParseInstructionRhs(computation, name, name_pos, true);
  return *instruction != nullptr;
}

std::string Parser::UniqueAnonymousName(HloComputation* computation,
                                        absl::string_view base) {
  (void)computation;
  while (true) {
    std::string name = anonymous_counter_ == 0
                           ? absl::StrCat(base, ".anon")
                           : absl::StrCat(base, ".anon.", anonymous_counter_);
    ++anonymous_counter_;
    if (!names_.contains(name)) return name;
  }
}

HloInstruction* Parser::AddNamedInstruction(
    HloComputation* computation, std::unique_ptr<HloInstruction> instruction,
    std::string name, size_t position) {
  TextScanner& s = scanner_;
  const bool anonymous = name.empty();
  if (anonymous) {
    name = UniqueAnonymousName(computation,
                               HloOpcodeString(instruction->opcode()));
  }
  auto it = names_.find(name);
  if (it != names_.end()) {
    HloInstruction* existing = it->second.first;
    if (anonymous_.contains(existing)) {
      // A generated name collides with a written one: rename the generated.
      std::string fresh =
          UniqueAnonymousName(computation, HloOpcodeString(existing->opcode()));
      existing->set_name(fresh);
      names_[fresh] = it->second;
      names_.erase(name);
    } else {
      auto [line, col] = s.LineColumn(it->second.second);
      s.ErrorAt(position, absl::StrCat("instruction name '", name,
                                       "' is already used in this computation "
                                       "(line ",
                                       line, ":", col, ")"));
      return nullptr;
    }
  }
  instruction->set_name(name);
  auto [line, col] = s.LineColumn(position);
  instruction->set_location({line, col});
  HloInstruction* raw = computation->AddInstruction(std::move(instruction));
  names_[name] = {raw, position};
  positions_[raw] = position;
  if (anonymous) anonymous_.insert(raw);
  return raw;
}

// True if `name` is defined by an instruction line later in the current
// computation body (used to say "used before its definition").
static bool DefinedLater(absl::string_view text, size_t from,
                         absl::string_view name) {
  size_t pos = text.find('\n', from);
  while (pos != absl::string_view::npos) {
    size_t line_start = pos + 1;
    size_t line_end = text.find('\n', line_start);
    absl::string_view line =
        text.substr(line_start, line_end == absl::string_view::npos
                                    ? absl::string_view::npos
                                    : line_end - line_start);
    absl::string_view trimmed = absl::StripLeadingAsciiWhitespace(line);
    if (absl::StartsWith(trimmed, "}")) return false;
    absl::ConsumePrefix(&trimmed, "ROOT ");
    trimmed = absl::StripLeadingAsciiWhitespace(trimmed);
    absl::ConsumePrefix(&trimmed, "%");
    if (absl::ConsumePrefix(&trimmed, name)) {
      trimmed = absl::StripLeadingAsciiWhitespace(trimmed);
      if (absl::StartsWith(trimmed, "=")) return true;
    }
    pos = line_end;
  }
  return false;
}

bool Parser::ParseOperands(HloComputation* computation,
                           std::vector<HloInstruction*>* operands) {
  TextScanner& s = scanner_;
  if (!s.Expect('(', "to start the operand list")) return false;
  if (s.Consume(')')) return true;
  do {
    const size_t p = s.Position();
    std::optional<Shape> written_shape;
    if (AtShape()) {
      Shape shape;
      if (!ParseShape(&shape)) return false;
      written_shape = std::move(shape);
    }
    // An inline instruction: [shape] opcode '(' ...
    const size_t after_shape = s.Position();
    std::string id = s.PeekIdentifier();
    bool inline_instruction = false;
    if (!id.empty() && s.text()[after_shape] != '%') {
      s.ReadIdentifier();
      const bool paren = s.Peek() == '(';
      s.Reset(after_shape);
      const bool is_op =
          StringToHloOpcode(id).has_value() || absl::EndsWith(id, "-start") ||
          absl::EndsWith(id, "-done") || absl::EndsWith(id, "-update");
      inline_instruction = paren && is_op;
    }
    if (inline_instruction) {
      s.Reset(p);
      HloInstruction* inner = ParseInstructionRhs(computation, "", p, false);
      if (inner == nullptr) return false;
      operands->push_back(inner);
      continue;
    }
    const size_t name_pos = s.Position();
    std::string name = s.ReadName();
    if (name.empty()) {
      return s.ErrorAt(name_pos, "expected an operand name");
    }
    auto it = names_.find(name);
    if (it == names_.end()) {
      if (DefinedLater(s.text(), name_pos, name)) {
        return s.ErrorAt(name_pos, absl::StrCat("instruction '", name,
                                                "' is used before its "
                                                "definition"));
      }
      return s.ErrorAt(name_pos,
                       absl::StrCat("instruction '", name, "' is not defined"));
    }
    HloInstruction* operand = it->second.first;
    if (written_shape.has_value() &&
        !ShapesCompatible(*written_shape, operand->shape())) {
      return s.ErrorAt(
          p, absl::StrCat("operand '", name, "' is written as ",
                          written_shape->ToString(false), " but its shape is ",
                          operand->shape().ToString(false)));
    }
    operands->push_back(operand);
  } while (s.Consume(','));
  return s.Expect(')', "to close the operand list");
}

bool Parser::ParseOpcode(bool have_shape, std::string* text, HloOpcode* opcode,
                         std::optional<HloOpcode>* async_wrapped) {
  TextScanner& s = scanner_;
  const size_t opcode_pos = s.Position();
  *text = s.ReadIdentifier();
  if (text->empty()) {
    return s.ErrorAt(opcode_pos, have_shape
                                     ? "expected an opcode after the shape"
                                     : "expected a shape or an opcode");
  }
  std::optional<HloOpcode> found = StringToHloOpcode(*text);
  if (!found.has_value() && !have_shape && s.Peek() == '[') {
    return s.ErrorAt(opcode_pos,
                     absl::StrCat("unknown element type '", *text, "'"));
  }
  // `<op>-start`, `-update`, `-done`: the async form of `<op>`.
  if (!found.has_value()) {
    for (auto [suffix, async_op] : {std::pair<absl::string_view, HloOpcode>{
                                        "-start", HloOpcode::kAsyncStart},
                                    {"-update", HloOpcode::kAsyncUpdate},
                                    {"-done", HloOpcode::kAsyncDone}}) {
      if (absl::EndsWith(*text, suffix)) {
        auto wrapped =
            StringToHloOpcode(text->substr(0, text->size() - suffix.size()));
        if (wrapped.has_value()) {
          found = async_op;
          *async_wrapped = wrapped;
        }
        break;
      }
    }
  }
  if (!found.has_value()) {
    return s.ErrorAt(opcode_pos, absl::StrCat("unknown opcode '", *text, "'"));
  }
  if (!have_shape && !CanInferShape(*found)) {
    return s.ErrorAt(opcode_pos,
                     absl::StrCat("the result shape of ", *text,
                                  " cannot be inferred; write it before "
                                  "the opcode"));
  }
  *opcode = *found;
  return true;
}

std::unique_ptr<HloInstruction> Parser::ParseParameter(
    HloComputation* computation, const Shape& shape) {
  TextScanner& s = scanner_;
  const size_t operands_pos = s.Position();
  int64_t number;
  if (!s.Expect('(', "before the parameter number") ||
      !s.ReadInt64(&number, "as the parameter number")) {
    return nullptr;
  }
  if (number < 0) {
    s.ErrorAt(operands_pos, "parameter number must be >= 0");
    return nullptr;
  }
  // Parameters 0..N-1 all need a line: N cannot exceed the text.
  if (number >= static_cast<int64_t>(s.text().size()) ||
      number >= (int64_t{1} << 24)) {
    s.ErrorAt(operands_pos,
              absl::StrCat("parameter number ", number,
                           " is larger than any computation can have"));
    return nullptr;
  }
  if (!s.Expect(')', "after the parameter number")) return nullptr;
  if (number < computation->num_parameters() &&
      computation->parameter_instruction(number) != nullptr) {
    s.ErrorAt(operands_pos,
              absl::StrCat("parameter number ", number, " is already used by ",
                           computation->parameter_instruction(number)->name()));
    return nullptr;
  }
  auto instruction = HloInstruction::Create(HloOpcode::kParameter, shape);
  instruction->set_index(number);
  return instruction;
}

std::unique_ptr<HloInstruction> Parser::ParseConstant(const Shape& shape) {
  TextScanner& s = scanner_;
  if (!s.Expect('(', "before the constant's literal")) return nullptr;
  // The literal may repeat the shape: constant(f32[2] {1, 2}).
  if (AtShape() && !(shape.IsTuple() && s.Peek() == '(')) {
    const size_t p = s.Position();
    Shape written;
    if (!ParseShape(&written)) return nullptr;
    if (!ShapesCompatible(written, shape)) {
      s.ErrorAt(p, absl::StrCat("the literal's shape ", written.ToString(false),
                                " does not match the instruction's shape ",
                                shape.ToString(false)));
      return nullptr;
    }
  }
  Literal literal;
  if (!ParseLiteralValue(shape, &literal) ||
      !s.Expect(')', "after the constant's literal")) {
    return nullptr;
  }
  auto instruction = HloInstruction::Create(HloOpcode::kConstant, shape);
  literal.mutable_shape_for_layout() = shape;
  instruction->mutable_attrs().literal = std::move(literal);
  return instruction;
}

bool Parser::SetUpAsyncStart(HloInstruction* start, HloOpcode wrapped_opcode,
                             absl::string_view opcode_text, size_t opcode_pos,
                             HloInstruction** wrapped) {
  const Shape& shape = start->shape();
  if (!shape.IsTuple() || shape.tuple_shapes_size() < 2 ||
      !shape.tuple_shapes(0).IsTuple()) {
    return scanner_.ErrorAt(opcode_pos,
                            absl::StrCat(opcode_text,
                                         " expects a shape ((operands), "
                                         "result[, state])"));
  }
  // Named as XLA's parser names them; the module makes the names unique
  // once it is complete.
  auto wrapper = std::make_unique<HloComputation>("async_wrapped");
  wrapper->set_sugared_async_wrapper(true);
  std::vector<HloInstruction*> params;
  for (int64_t i = 0; i < start->operand_count(); ++i) {
    auto param = HloInstruction::Create(HloOpcode::kParameter,
                                        start->operand(i)->shape());
    param->set_index(i);
    param->set_name("async_param");
    params.push_back(wrapper->AddInstruction(std::move(param)));
  }
  auto inner =
      HloInstruction::Create(wrapped_opcode, shape.tuple_shapes(1), params);
  inner->set_name(std::string(HloOpcodeString(wrapped_opcode)));
  inner->ResizeCalledComputations(AttributeSlots(wrapped_opcode));
  *wrapped = wrapper->AddInstruction(std::move(inner));
  wrapper->set_root_instruction(*wrapped);
  start->AppendCalledComputation(wrapper.get());
  // XLA adds a wrapper to the module before the computation that uses it
  // (the last pending one): that order decides name suffixes.
  pending_computations_.insert(pending_computations_.end() - 1,
                               std::move(wrapper));
  return true;
}

bool Parser::SetUpAsyncSugar(HloInstruction* instruction,
                             HloOpcode wrapped_opcode,
                             absl::string_view opcode_text, size_t opcode_pos,
                             size_t operands_pos, HloInstruction** wrapped) {
  TextScanner& s = scanner_;
  instruction->set_async_sugar(wrapped_opcode);
  if (instruction->opcode() == HloOpcode::kAsyncStart) {
    return SetUpAsyncStart(instruction, wrapped_opcode, opcode_text, opcode_pos,
                           wrapped);
  }
  HloInstruction* start = instruction->operand_count() == 1
                              ? instruction->mutable_operand(0)
                              : nullptr;
  if (start == nullptr || (start->opcode() != HloOpcode::kAsyncStart &&
                           start->opcode() != HloOpcode::kAsyncUpdate)) {
    return s.ErrorAt(operands_pos,
                     absl::StrCat(opcode_text,
                                  " expects a single async-start or "
                                  "async-update operand"));
  }
  HloComputation* callee = start->async_wrapped_computation();
  if (callee == nullptr || callee->root_instruction() == nullptr ||
      callee->root_instruction()->opcode() != wrapped_opcode) {
    return s.ErrorAt(
        opcode_pos,
        absl::StrCat(opcode_text, " does not match its operand ", start->name(),
                     ", which wraps ",
                     callee && callee->root_instruction()
                         ? HloOpcodeString(callee->root_instruction()->opcode())
                         : "nothing"));
  }
  instruction->AppendCalledComputation(callee);
  return true;
}

HloInstruction* Parser::ParseInstructionRhs(HloComputation* computation,
                                            const std::string& name,
                                            size_t name_position,
                                            bool allow_attributes) {
  TextScanner& s = scanner_;
  if (++recursion_depth_ > kMaxInstructionNesting) {
    --recursion_depth_;
    s.Error("instructions nested too deeply");
    return nullptr;
  }
  struct DepthGuard {
    int* depth;
    ~DepthGuard() { --*depth; }
  } guard{&recursion_depth_};

  std::optional<Shape> shape;
  if (AtShape()) {
    Shape parsed;
    if (!ParseShape(&parsed)) return nullptr;
    shape = std::move(parsed);
  }
  const size_t opcode_pos = s.Position();
  std::string opcode_text;
  HloOpcode opcode;
  std::optional<HloOpcode> async_wrapped;
  if (!ParseOpcode(shape.has_value(), &opcode_text, &opcode, &async_wrapped)) {
    return nullptr;
  }

  std::unique_ptr<HloInstruction> instruction;
  const size_t operands_pos = s.Position();
  if (opcode == HloOpcode::kParameter) {
    instruction = ParseParameter(computation, *shape);
  } else if (opcode == HloOpcode::kConstant) {
    instruction = ParseConstant(*shape);
  } else {
    std::vector<HloInstruction*> operands;
    if (!ParseOperands(computation, &operands)) return nullptr;
    const int arity = HloOpcodeArity(opcode);
    if (!async_wrapped.has_value() && arity != kVariadic &&
        static_cast<int>(operands.size()) != arity) {
      s.ErrorAt(operands_pos, absl::StrCat(opcode_text, " expects ", arity,
                                           " operand", arity == 1 ? "" : "s",
                                           ", but has ", operands.size()));
      return nullptr;
    }
    instruction =
        HloInstruction::Create(opcode, shape.value_or(Shape()), operands);
  }
  if (instruction == nullptr) return nullptr;

  HloInstruction* raw = instruction.get();
  HloInstruction* wrapped = nullptr;
  if (async_wrapped.has_value()) {
    if (!SetUpAsyncSugar(raw, *async_wrapped, opcode_text, opcode_pos,
                         operands_pos, &wrapped)) {
      return nullptr;
    }
  } else {
    raw->ResizeCalledComputations(AttributeSlots(opcode));
    // Unsugared async-update/done inherit the computation of their start.
    if ((opcode == HloOpcode::kAsyncUpdate ||
         opcode == HloOpcode::kAsyncDone) &&
        raw->operand_count() == 1 &&
        (raw->operand(0)->opcode() == HloOpcode::kAsyncStart ||
         raw->operand(0)->opcode() == HloOpcode::kAsyncUpdate)) {
      raw->AppendCalledComputation(
          raw->operand(0)->async_wrapped_computation());
    }
  }

  if (allow_attributes) {
    if (!ParseAttributes(raw, wrapped, opcode_pos)) return nullptr;
  } else {
    absl::flat_hash_set<std::string> none;
    if (!CheckRequiredAttributes(raw, none, opcode_pos)) return nullptr;
  }
  if (wrapped != nullptr) {
    wrapped->set_metadata(raw->metadata());
    wrapped->set_backend_config(raw->backend_config());
    if (raw->has_frontend_attributes()) {
      wrapped->set_frontend_attributes(raw->frontend_attributes());
    }
  }
  if (!FinishInstruction(raw, opcode_pos)) return nullptr;
  if (wrapped != nullptr && !FinishInstruction(wrapped, opcode_pos)) {
    return nullptr;
  }
  if (!shape.has_value() && !InferMissingShape(raw, opcode_pos)) return nullptr;
  return AddNamedInstruction(computation, std::move(instruction), name,
                             name.empty() ? opcode_pos : name_position);
}

bool Parser::FinishInstruction(HloInstruction* hlo, size_t position) {
  TextScanner& s = scanner_;
  switch (hlo->opcode()) {
    case HloOpcode::kCompare:
      if (!explicit_comparison_type_.contains(hlo)) {
        hlo->mutable_attrs().comparison_type =
            DefaultComparisonType(hlo->operand(0)->shape().element_type());
      }
      break;
    case HloOpcode::kBroadcast:
      if (!hlo->has_dimensions()) {
        if (hlo->operand(0)->shape().rank() != 0) {
          return s.ErrorAt(position,
                           "broadcast of a non-scalar requires dimensions=");
        }
        hlo->set_has_dimensions(true);
      }
      break;
    default:
      break;
  }
  // Opcodes whose dimensions= is always printed.
  switch (hlo->opcode()) {
    case HloOpcode::kTranspose:
    case HloOpcode::kReverse:
    case HloOpcode::kReduce:
    case HloOpcode::kConcatenate:
    case HloOpcode::kSort:
    case HloOpcode::kGetDimensionSize:
    case HloOpcode::kSetDimensionSize:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kScan:
      hlo->set_has_dimensions(true);
      break;
    default:
      break;
  }
  return true;
}

bool Parser::InferMissingShape(HloInstruction* hlo, size_t position) {
  absl::StatusOr<Shape> shape = InferShape(*hlo);
  if (!shape.ok()) {
    return scanner_.ErrorAt(position,
                            absl::StrCat("cannot infer the shape of ",
                                         HloOpcodeString(hlo->opcode()), ": ",
                                         shape.status().message()));
  }
  *hlo->mutable_shape() = *std::move(shape);
  if (options_.fill_missing_layouts) hlo->mutable_shape()->FillMissingLayouts();
  return true;
}

}  // namespace parser_internal
}  // namespace xlite
