// Instruction attributes: the list after the operands, each dispatched to
// the opcode's schema row (attribute_parsers.cc parses the values) or to
// the attributes every instruction may carry (sharding, metadata, ...);
// the required ones checked; callee references and the special values
// (async thread, domain).

#include <algorithm>
#include <functional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "hlo/analysis/shape_inference.h"
#include "hlo/ir/opcode_schema.h"
#include "hlo/text/parser_impl.h"

namespace xlite {
namespace parser_internal {
namespace {

// Attributes kept verbatim (XLA prints them; xlite does not interpret them).
bool IsKeptAttribute(absl::string_view name) {
  return name == "statistics" || name == "statistics_viz" || name == "origin" ||
         name == "original_value" || name == "result_accuracy";
}

// The text names of the attributes `opcode` takes, in its schema row.
std::vector<std::string> AttributeNames(HloOpcode opcode) {
  std::vector<std::string> names;
  for (const OpcodeAttribute& a : GetOpcodeSchema(opcode).attributes) {
    names.emplace_back(GetAttributeInfo(a.id).name);
  }
  return names;
}

}  // namespace

bool Allowed(HloOpcode opcode, absl::string_view name) {
  return FindOpcodeAttribute(opcode, name).has_value();
}

bool Parser::ParseAttributes(HloInstruction* instruction,
                             HloInstruction* wrapped, size_t start) {
  TextScanner& s = scanner_;
  absl::flat_hash_set<std::string> seen;
  while (s.Peek() == ',') {
    // A ',' followed by something that is not "name=" ends the instruction
    // (e.g. the ", execution_thread=" after a computation is never here).
    s.Consume(',');
    const size_t p = s.Position();
    std::string name = s.ReadIdentifier();
    if (name.empty()) {
      return s.ErrorAt(p, "expected an attribute name after ','");
    }
    if (!s.Expect('=', What("after attribute name ", name))) return false;
    if (!seen.insert(name).second) {
      return s.ErrorAt(
          p, absl::StrCat("attribute '", name, "' is given more than once"));
    }
    if (!ParseOneAttribute(instruction, wrapped, name, p)) return false;
  }
  if (!CheckRequiredAttributes(wrapped != nullptr ? wrapped : instruction, seen,
                               start)) {
    return false;
  }
  if (wrapped != nullptr &&
      !CheckRequiredAttributes(instruction, seen, start)) {
    return false;
  }
  return true;
}

bool Parser::CheckRequiredAttributes(
    HloInstruction* instruction, const absl::flat_hash_set<std::string>& seen,
    size_t position) {
  TextScanner& s = scanner_;
  HloOpcode opcode = instruction->opcode();
  for (const OpcodeAttribute& a : GetOpcodeSchema(opcode).attributes) {
    if (a.use != AttributeUse::kRequired) continue;
    const absl::string_view required = GetAttributeInfo(a.id).name;
    if (seen.contains(required)) continue;
    // Sugared async ops inherit `calls` from their wrapper.
    if (required == "calls" && !instruction->called_computations().empty() &&
        instruction->called_computations()[0] != nullptr) {
      continue;
    }
    if (opcode == HloOpcode::kAsyncStart && instruction->async_sugar())
      continue;
    return s.ErrorAt(
        position, absl::StrCat(HloOpcodeString(opcode), " requires attribute '",
                               required, "'"));
  }
  if (opcode == HloOpcode::kConditional &&
      !seen.contains("branch_computations") &&
      !(seen.contains("true_computation") &&
        seen.contains("false_computation"))) {
    return s.ErrorAt(position,
                     "conditional requires branch_computations= or both "
                     "true_computation= and false_computation=");
  }
  // As in XLA: a pred index names its two branches true_/false_computation=,
  // an s32 index lists them in branch_computations=.
  if (opcode == HloOpcode::kConditional && instruction->operand_count() > 0) {
    const Shape& index = instruction->operand(0)->shape();
    const bool pred =
        index.IsArray() && index.element_type() == PrimitiveType::kPred;
    if (pred && seen.contains("branch_computations")) {
      return s.ErrorAt(position,
                       "a conditional on a pred names its branches with "
                       "true_computation= and false_computation=, not "
                       "branch_computations=");
    }
    if (!pred && (seen.contains("true_computation") ||
                  seen.contains("false_computation"))) {
      return s.ErrorAt(position,
                       "true_computation=/false_computation= need a pred "
                       "branch index; an s32 index takes "
                       "branch_computations=");
    }
  }
  return true;
}

bool Parser::ParseComputationRef(HloInstruction* instruction, int64_t slot) {
  TextScanner& s = scanner_;
  if (s.Peek() == '{') return ParseNestedComputation(instruction, slot);
  const size_t p = s.Position();
  std::string name = s.ReadName();
  if (name.empty()) return s.ErrorAt(p, "expected a computation name");
  if (slot >= static_cast<int64_t>(instruction->called_computations().size())) {
    instruction->ResizeCalledComputations(slot + 1);
  }
  auto it = computations_by_name_.find(name);
  if (it != computations_by_name_.end()) {
    instruction->set_called_computation(slot, it->second);
  } else {
    refs_.push_back({instruction, slot, name, p});
  }
  return true;
}

bool Parser::ParseComputationRefList(HloInstruction* instruction) {
  TextScanner& s = scanner_;
  if (!s.Expect('{', "to start a list of computations")) return false;
  instruction->clear_called_computations();
  if (s.Consume('}')) return true;
  do {
    if (!ParseComputationRef(instruction,
                             instruction->called_computations().size())) {
      return false;
    }
  } while (s.Consume(','));
  return s.Expect('}', "to close the list of computations");
}

bool Parser::ParseInstructionNames(HloComputation* computation,
                                   std::vector<HloInstruction*>* instructions) {
  TextScanner& s = scanner_;
  (void)computation;
  if (!s.Expect('{', "to start a list of instructions")) return false;
  if (s.Consume('}')) return true;
  do {
    const size_t p = s.Position();
    std::string name = s.ReadName();
    auto it = names_.find(name);
    if (name.empty() || it == names_.end()) {
      return s.ErrorAt(p,
                       absl::StrCat("instruction '", name, "' is not defined"));
    }
    instructions->push_back(it->second.first);
  } while (s.Consume(','));
  return s.Expect('}', "to close the list of instructions");
}

bool Parser::ParseOneAttribute(HloInstruction* instruction,
                               HloInstruction* wrapped, const std::string& name,
                               size_t position) {
  TextScanner& s = scanner_;
  // Opcode-specific attributes go to the wrapped instruction of sugared
  // async ops when that opcode accepts them.
  if (wrapped != nullptr && Allowed(wrapped->opcode(), name)) {
    bool handled = false;
    if (!ParseOpcodeAttribute(wrapped, name, position, &handled)) return false;
    if (handled) return true;
  }
  if (Allowed(instruction->opcode(), name)) {
    bool handled = false;
    if (!ParseOpcodeAttribute(instruction, name, position, &handled)) {
      return false;
    }
    if (handled) return true;
  }
  if (name == "sharding") {
    HloSharding sharding;
    if (!ParseSharding(&sharding)) return false;
    instruction->set_sharding(sharding);
    return true;
  }
  if (name == "frontend_attributes") {
    FrontendAttributes attrs;
    if (!ParseFrontendAttributes(&attrs)) return false;
    instruction->set_frontend_attributes(attrs);
    return true;
  }
  if (name == "metadata") {
    OpMetadata metadata;
    if (!ParseMetadata(&metadata)) return false;
    instruction->set_metadata(metadata);
    return true;
  }
  if (name == "backend_config") {
    std::string config;
    if (!ParseStringOrJsonDict(&config)) return false;
    instruction->set_backend_config(std::move(config));
    return true;
  }
  if (name == "control-predecessors") {
    std::vector<HloInstruction*> predecessors;
    if (!ParseInstructionNames(instruction->parent(), &predecessors))
      return false;
    for (HloInstruction* predecessor : predecessors) {
      absl::Status status = predecessor->AddControlDependencyTo(instruction);
      if (!status.ok()) return s.ErrorAt(position, status.message());
    }
    return true;
  }
  if (IsKeptAttribute(name)) {
    std::string raw;
    if (name == "result_accuracy" ? !ParseResultAccuracy(&raw)
                                  : !ParseRawValue(&raw)) {
      return false;
    }
    instruction->add_kept_attribute(name, std::move(raw));
    return true;
  }
  // Unknown here: name the valid choices.
  std::vector<std::string> valid = AttributeNames(instruction->opcode());
  if (wrapped != nullptr) {
    std::vector<std::string> more = AttributeNames(wrapped->opcode());
    valid.insert(valid.end(), more.begin(), more.end());
  }
  const absl::string_view op = HloOpcodeString(
      wrapped != nullptr ? wrapped->opcode() : instruction->opcode());
  if (valid.empty()) {
    return s.ErrorAt(position,
                     absl::StrCat("unexpected attribute '", name, "' for ", op,
                                  " (it takes only common attributes "
                                  "like metadata, sharding, "
                                  "backend_config)"));
  }
  return s.ErrorAt(position,
                   absl::StrCat("unexpected attribute '", name, "' for ", op,
                                "; valid: ", absl::StrJoin(valid, ", ")));
}

bool Parser::ParseOpcodeAttribute(HloInstruction* hlo, const std::string& name,
                                  size_t position, bool* handled) {
  const std::optional<OpcodeAttribute> attribute =
      FindOpcodeAttribute(hlo->opcode(), name);
  *handled = attribute.has_value();
  if (!attribute.has_value()) return true;
  return ParseAttributeValue(attribute->id, hlo, name, position);
}

bool Parser::ParseAsyncExecutionThread(HloInstruction* hlo) {
  TextScanner& s = scanner_;
  const size_t p = s.Position();
  std::string thread;
  if (!s.ReadQuotedString(&thread, What("for ", "async_execution_thread"))) {
    return false;
  }
  // update/done inherit the thread of their async-start; XLA accepts the
  // attribute there only when it repeats that thread.
  const HloOpcode opcode = hlo->opcode();
  if ((opcode == HloOpcode::kAsyncUpdate || opcode == HloOpcode::kAsyncDone) &&
      hlo->operand_count() == 1) {
    const HloInstruction* start = hlo->operand(0);
    while (start->opcode() == HloOpcode::kAsyncUpdate &&
           start->operand_count() == 1) {
      start = start->operand(0);
    }
    const std::string& expected = start->attrs().async_execution_thread();
    if (thread != expected) {
      return s.ErrorAt(p,
                       absl::StrCat("async_execution_thread=\"", thread,
                                    "\" differs from the thread \"", expected,
                                    "\" of its async-start %", start->name()));
    }
  }
  hlo->mutable_attrs().set_async_execution_thread(std::move(thread));
  return true;
}

bool Parser::ParseDomain(HloInstruction* hlo, size_t position) {
  TextScanner& s = scanner_;
  DomainAttributes& domain = *hlo->mutable_attrs().domain;
  if (!s.Expect('{', "to start domain")) return false;
  while (s.Peek() != '}' && !s.AtEnd()) {
    const size_t p = s.Position();
    std::string key = s.ReadIdentifier();
    if (!s.Expect('=', "in domain")) return false;
    if (key == "kind") {
      if (!s.ReadQuotedString(&domain.kind, What("for ", "domain"))) {
        return false;
      }
    } else if (key == "entry" || key == "exit") {
      HloSharding sharding;
      if (!ParseSharding(&sharding)) return false;
      (key == "entry" ? domain.entry : domain.exit) = std::move(sharding);
    } else {
      return s.ErrorAt(p, absl::StrCat("unknown domain field '", key,
                                       "'; expected kind, entry, exit"));
    }
    s.Consume(',');
  }
  if (!s.Expect('}', "to close domain")) return false;
  if (domain.kind != "sharding") {
    return s.ErrorAt(
        position, absl::StrCat("unsupported domain kind '", domain.kind, "'"));
  }
  return true;
}

}  // namespace parser_internal
}  // namespace xlite
