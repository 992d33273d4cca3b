#include "hlo/text/printer.h"

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/ir/float_types.h"
#include "hlo/text/attribute_text.h"

namespace xlite {
namespace {

using text_internal::AttributeList;
using text_internal::ComputationName;
using text_internal::PrintOpcodeAttributes;
using text_internal::Quoted;

std::string Name(const HloInstruction* instruction) {
  return absl::StrCat("%", instruction->name());
}

std::string ShapeListWithIndexComments(const std::vector<Shape>& shapes) {
  std::string out;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (i > 0) out += ", ";
    if (i > 0 && i % 5 == 0) absl::StrAppend(&out, "/*index=", i, "*/");
    out += shapes[i].ToString(true);
  }
  return out;
}

void AddCommonAttributes(const HloInstruction& hlo, const PrintOptions& options,
                         AttributeList& out) {
  if (hlo.has_sharding()) out.Add("sharding", hlo.sharding().ToString());
  if (hlo.has_frontend_attributes() && !hlo.frontend_attributes().empty()) {
    out.Add("frontend_attributes",
            FrontendAttributesToString(hlo.frontend_attributes()));
  }
  if (!hlo.control_predecessors().empty()) {
    out.Add(
        "control-predecessors",
        absl::StrCat("{",
                     absl::StrJoin(hlo.control_predecessors(), ", ",
                                   [](std::string* o, const HloInstruction* p) {
                                     absl::StrAppend(o, Name(p));
                                   }),
                     "}"));
  }
  for (const KeptAttribute& kept : hlo.kept_attributes()) {
    out.Add(kept.name, kept.value);
  }
  if (options.print_metadata && hlo.has_metadata()) {
    out.Add("metadata", hlo.metadata().ToString());
  }
  if (options.print_backend_config && !hlo.backend_config().empty()) {
    if (LexesAsJsonDict(hlo.backend_config())) {
      out.Add("backend_config", hlo.backend_config());
    } else {
      out.Add("backend_config", Quoted(hlo.backend_config()));
    }
  }
}

void AppendOperands(const HloInstruction& hlo, const PrintOptions& options,
                    std::string* out) {
  for (int64_t i = 0; i < hlo.operand_count(); ++i) {
    if (i > 0) *out += ", ";
    if (i > 0 && i % 5 == 0) absl::StrAppend(out, "/*index=", i, "*/");
    if (options.print_operand_shapes) {
      hlo.operand(i)->shape().AppendTo(out, true);
      *out += ' ';
    }
    *out += '%';
    *out += hlo.operand(i)->name();
  }
}

void AppendInstruction(const HloInstruction& hlo, const PrintOptions& options,
                       std::string* out_ptr) {
  std::string& out = *out_ptr;
  out += '%';
  out += hlo.name();
  out += " = ";
  hlo.shape().AppendTo(&out, true);
  out += ' ';
  AttributeList attrs(&out);
  const HloInstruction* wrapped = nullptr;
  if (hlo.async_sugar().has_value()) {
    absl::string_view suffix = hlo.opcode() == HloOpcode::kAsyncStart ? "-start"
                               : hlo.opcode() == HloOpcode::kAsyncUpdate
                                   ? "-update"
                                   : "-done";
    absl::StrAppend(&out, HloOpcodeString(*hlo.async_sugar()), suffix);
    const HloComputation* wrapper = hlo.async_wrapped_computation();
    if (hlo.opcode() == HloOpcode::kAsyncStart && wrapper != nullptr &&
        wrapper->is_sugared_async_wrapper()) {
      wrapped = wrapper->root_instruction();
    }
  } else {
    absl::StrAppend(&out, HloOpcodeString(hlo.opcode()));
  }
  if (hlo.opcode() == HloOpcode::kConstant) {
    const Literal& literal = *hlo.attrs().literal;
    if (!options.print_large_constants && literal.shape().IsArray() &&
        literal.element_count() > 10) {
      out += "({...})";
    } else {
      absl::StrAppend(&out, "(", literal.ValueToStringWithoutShapes(), ")");
    }
  } else if (hlo.opcode() == HloOpcode::kParameter) {
    absl::StrAppend(&out, "(", hlo.parameter_number(), ")");
  } else {
    out += '(';
    AppendOperands(hlo, options, &out);
    out += ')';
  }
  // A sugared async op prints its wrapped op's attributes and callees, then
  // its own attributes; the callee is implied by the sugar.
  if (wrapped != nullptr) {
    PrintOpcodeAttributes(*wrapped, /*print_callees=*/true, attrs);
    PrintOpcodeAttributes(hlo, /*print_callees=*/false, attrs);
  } else {
    PrintOpcodeAttributes(hlo,
                          /*print_callees=*/!hlo.async_sugar().has_value() ||
                              hlo.opcode() == HloOpcode::kAsyncStart,
                          attrs);
  }
  AddCommonAttributes(hlo, options, attrs);
}

// XLA's layout of the stack frame index: four numbered sections, each
// followed by an empty line.
void AppendStackFrameIndex(const StackFrameIndex& index, std::string* out) {
  auto names = [&](absl::string_view title,
                   const std::vector<std::string>& list) {
    absl::StrAppend(out, title, "\n");
    for (size_t i = 0; i < list.size(); ++i) {
      absl::StrAppend(out, i + 1, " \"", absl::CEscape(list[i]), "\"\n");
    }
    out->append("\n");
  };
  names("FileNames", index.file_names);
  names("FunctionNames", index.function_names);
  out->append("FileLocations\n");
  for (size_t i = 0; i < index.file_locations.size(); ++i) {
    const auto& l = index.file_locations[i];
    absl::StrAppend(out, i + 1, " {file_name_id=", l.file_name_id,
                    " function_name_id=", l.function_name_id, " line=", l.line,
                    " end_line=", l.end_line, " column=", l.column,
                    " end_column=", l.end_column, "}\n");
  }
  out->append("\nStackFrames\n");
  for (size_t i = 0; i < index.stack_frames.size(); ++i) {
    const auto& f = index.stack_frames[i];
    absl::StrAppend(out, i + 1, " {file_location_id=", f.file_location_id,
                    " parent_frame_id=", f.parent_frame_id, "}\n");
  }
  out->append("\n\n");
}

void AppendComputation(const HloComputation& computation,
                       const PrintOptions& options, std::string* out_ptr) {
  std::string& out = *out_ptr;
  const HloModule* module = computation.parent();
  if (module != nullptr && module->entry_computation() == &computation) {
    out += "ENTRY ";
  }
  absl::StrAppend(&out, ComputationName(&computation), " (");
  for (int64_t i = 0; i < computation.num_parameters(); ++i) {
    const HloInstruction* p = computation.parameter_instruction(i);
    if (i > 0) out += ", ";
    if (p == nullptr) continue;
    absl::StrAppend(&out, p->name(), ": ");
    p->shape().AppendTo(&out, false);
  }
  out += ") -> ";
  if (computation.root_instruction() != nullptr) {
    computation.root_instruction()->shape().AppendTo(&out, false);
  }
  out += " {\n";
  const bool scheduled = module != nullptr && module->config().is_scheduled;
  const std::vector<HloInstruction*> order =
      scheduled ? computation.instructions()
                : computation.MakeInstructionPostOrder();
  for (const HloInstruction* instruction : order) {
    out += "  ";
    if (instruction == computation.root_instruction()) out += "ROOT ";
    AppendInstruction(*instruction, options, &out);
    out += '\n';
  }
  out += "}";
  if (computation.execution_thread() != "main") {
    absl::StrAppend(
        &out, ", execution_thread=", Quoted(computation.execution_thread()));
  }
  out += '\n';
}

}  // namespace

std::string PrintInstruction(const HloInstruction& hlo,
                             const PrintOptions& options) {
  std::string out;
  AppendInstruction(hlo, options, &out);
  return out;
}

std::string PrintComputation(const HloComputation& computation,
                             const PrintOptions& options) {
  std::string out;
  AppendComputation(computation, options, &out);
  return out;
}

std::string PrintModule(const HloModule& module, const PrintOptions& options) {
  const HloModuleConfig& config = module.config();
  std::string out;
  out.reserve(module.instruction_count() * 160);
  absl::StrAppend(&out, "HloModule ", module.name());
  if (config.is_scheduled) out += ", is_scheduled=true";
  if (!config.input_output_alias.empty()) {
    out += ", input_output_alias={ ";
    out += absl::StrJoin(config.input_output_alias, ", ",
                         [](std::string* o, const InputOutputAlias& a) {
                           absl::StrAppend(
                               o, ShapeIndexToString(a.output_index), ": (",
                               a.parameter_number, ", ",
                               ShapeIndexToString(a.parameter_index), ", ",
                               a.must_alias ? "must-alias" : "may-alias", ")");
                         });
    out += " }";
  }
  if (!config.buffer_donor.empty()) {
    out += ", buffer_donor={ ";
    out += absl::StrJoin(
        config.buffer_donor, ", ", [](std::string* o, const BufferDonor& d) {
          absl::StrAppend(o, "(", d.parameter_number, ", ",
                          ShapeIndexToString(d.parameter_index), ")");
        });
    out += " }";
  }
  if (config.alias_passthrough_params) out += ", alias_passthrough_params=true";
  if (module.entry_computation() != nullptr) {
    absl::StrAppend(&out, ", entry_computation_layout={(",
                    ShapeListWithIndexComments(module.EntryParameterLayouts()),
                    ")->", module.EntryResultLayout().ToString(true), "}");
  }
  auto bools = [](const std::vector<bool>& v) {
    return absl::StrCat("{",
                        absl::StrJoin(v, ",",
                                      [](std::string* o, bool b) {
                                        absl::StrAppend(o,
                                                        b ? "true" : "false");
                                      }),
                        "}");
  };
  if (!config.allow_spmd_sharding_propagation_to_parameters.empty()) {
    absl::StrAppend(
        &out, ", allow_spmd_sharding_propagation_to_parameters=",
        bools(config.allow_spmd_sharding_propagation_to_parameters));
  }
  if (!config.allow_spmd_sharding_propagation_to_output.empty()) {
    absl::StrAppend(&out, ", allow_spmd_sharding_propagation_to_output=",
                    bools(config.allow_spmd_sharding_propagation_to_output));
  }
  if (config.replica_count != 1) {
    absl::StrAppend(&out, ", replica_count=", config.replica_count);
  }
  if (config.num_partitions != 1) {
    absl::StrAppend(&out, ", num_partitions=", config.num_partitions);
  }
  if (!config.frontend_attributes.empty()) {
    absl::StrAppend(&out, ", frontend_attributes=",
                    FrontendAttributesToString(config.frontend_attributes));
  }
  for (const KeptAttribute& kept : config.kept_attributes) {
    absl::StrAppend(&out, ", ", kept.name, "=", kept.value);
  }
  out += "\n\n";
  if (!config.stack_frame_index.empty()) {
    AppendStackFrameIndex(config.stack_frame_index, &out);
  }
  // XLA's order: the computation post order (callees before callers), with
  // the entry wherever it falls (a computation nobody calls that comes after
  // the entry in the module prints after it).
  bool first = true;
  for (const HloComputation* c : module.MakeComputationPostOrder()) {
    if (c->is_sugared_async_wrapper()) continue;
    if (!first) out += "\n";
    first = false;
    AppendComputation(*c, options, &out);
  }
  out += "\n";  // XLA ends a module with an empty line.
  return out;
}

}  // namespace xlite
