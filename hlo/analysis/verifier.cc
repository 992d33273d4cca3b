#include "hlo/analysis/verifier.h"

#include <functional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/analysis/shape_inference.h"
#include "hlo/analysis/verifier_internal.h"

namespace xlite {
namespace {

using namespace verifier_internal;  // NOLINT

class Verifier {
 public:
  explicit Verifier(const HloModule& module) : module_(module) {}

  absl::Status Run() {
    if (module_.entry_computation() == nullptr) {
      return ModuleError("module has no entry computation");
    }
    absl::flat_hash_set<const HloComputation*> computations;
    absl::flat_hash_set<std::string> names;
    for (const HloComputation* c : module_.computations()) {
      computations.insert(c);
      if (!names.insert(c->name()).second) {
        return ComputationError(c, absl::StrCat("computation name '", c->name(),
                                                "' is used twice"));
      }
    }
    absl::Status async_status = IndexAsyncComputations();
    if (!async_status.ok()) return async_status;
    for (const HloComputation* c : module_.computations()) {
      absl::Status status = VerifyComputation(*c, computations);
      if (!status.ok()) return status;
    }
    absl::Status status = VerifyCallGraph();
    if (!status.ok()) return status;
    status = VerifyStackFrameIndex();
    if (!status.ok()) return status;
    return VerifyEntry();
  }

 private:
  // Records which async-start calls each async computation: one
  // computation wrapped by two async-starts is rejected (XLA keeps a 1:1
  // correspondence), and instructions the parser made for a sugared
  // `<op>-start` borrow the start's source location.
  absl::Status IndexAsyncComputations() {
    for (const HloComputation* c : module_.computations()) {
      for (const HloInstruction* hlo : c->instructions()) {
        if (hlo->opcode() != HloOpcode::kAsyncStart) continue;
        const HloComputation* callee = hlo->async_wrapped_computation();
        if (callee == nullptr) continue;
        auto [it, inserted] = async_start_of_.emplace(callee, hlo);
        if (!inserted) {
          return Error(hlo, absl::StrCat("computation ", callee->name(),
                                         " is already wrapped by the "
                                         "async-start %",
                                         it->second->name()));
        }
      }
    }
    return absl::OkStatus();
  }

  // Ids in the stack frame index, and metadata's stack_frame_id, point at
  // existing entries.
  absl::Status VerifyStackFrameIndex() {
    const StackFrameIndex& index = module_.config().stack_frame_index;
    auto in = [](int64_t id, size_t size, bool zero_ok) {
      return (zero_ok && id == 0) ||
             (id >= 1 && id <= static_cast<int64_t>(size));
    };
    for (size_t i = 0; i < index.file_locations.size(); ++i) {
      const auto& l = index.file_locations[i];
      if (!in(l.file_name_id, index.file_names.size(), false) ||
          !in(l.function_name_id, index.function_names.size(), false)) {
        return ModuleError(absl::StrCat("file location ", i + 1,
                                        " names a missing file or function"));
      }
    }
    for (size_t i = 0; i < index.stack_frames.size(); ++i) {
      const auto& f = index.stack_frames[i];
      // parent_frame_id is printed one above the proto's value.
      if (!in(f.file_location_id, index.file_locations.size(), false) ||
          !in(f.parent_frame_id - 1, index.stack_frames.size(), true)) {
        return ModuleError(absl::StrCat("stack frame ", i + 1,
                                        " names a missing location or parent"));
      }
    }
    for (const HloComputation* c : module_.computations()) {
      for (const HloInstruction* hlo : c->instructions()) {
        if (hlo->has_metadata() && !in(hlo->metadata().stack_frame_id,
                                       index.stack_frames.size(), true)) {
          return Error(hlo, absl::StrCat("metadata stack_frame_id ",
                                         hlo->metadata().stack_frame_id,
                                         " is not in the stack frame index"));
        }
      }
    }
    return absl::OkStatus();
  }

  std::string Location(SourceLocation loc) const {
    if (loc.line > 0) {
      return absl::StrCat(module_.source_name(), ":", loc.line, ":",
                          loc.column);
    }
    return module_.source_name().empty() ? module_.name()
                                         : module_.source_name();
  }

  // Where `hlo` was written; for an instruction the parser created inside
  // a sugared async computation, where its `<op>-start` was written.
  SourceLocation LocationOf(const HloInstruction* hlo) const {
    for (int depth = 0; depth < 8 && hlo->location().line <= 0; ++depth) {
      const HloComputation* c = hlo->parent();
      if (c == nullptr || !c->is_sugared_async_wrapper()) break;
      auto it = async_start_of_.find(c);
      if (it == async_start_of_.end()) break;
      hlo = it->second;
    }
    return hlo->location();
  }

  absl::Status Error(const HloInstruction* hlo,
                     absl::string_view message) const {
    return absl::InvalidArgumentError(absl::StrCat(
        Location(LocationOf(hlo)), ": error: %", hlo->name(), ": ", message));
  }

  absl::Status ComputationError(const HloComputation* c,
                                absl::string_view message) const {
    return absl::InvalidArgumentError(absl::StrCat(Location(c->location()),
                                                   ": error: computation ",
                                                   c->name(), ": ", message));
  }

  // Errors in the module header (entry layout, aliasing, stack frames) are
  // located at the entry computation, which the header describes.
  absl::Status ModuleError(absl::string_view message) const {
    const HloComputation* entry = module_.entry_computation();
    return absl::InvalidArgumentError(absl::StrCat(
        Location(entry != nullptr ? entry->location() : SourceLocation()),
        ": error: ", message));
  }

  absl::Status VerifyComputation(
      const HloComputation& c,
      const absl::flat_hash_set<const HloComputation*>& computations) {
    if (c.root_instruction() == nullptr) {
      return ComputationError(&c, "has no root instruction");
    }
    if (c.root_instruction()->parent() != &c) {
      return ComputationError(&c,
                              "root is not an instruction of the computation");
    }
    for (int64_t i = 0; i < c.num_parameters(); ++i) {
      const HloInstruction* p = c.parameter_instruction(i);
      if (p == nullptr) {
        return ComputationError(&c, absl::StrCat("has no parameter(", i, ")"));
      }
    }
    const std::vector<HloInstruction*> instructions = c.instructions();
    absl::flat_hash_set<std::string> names;
    absl::flat_hash_map<const HloInstruction*, int64_t> order;
    for (const HloInstruction* hlo : instructions) {
      order[hlo] = static_cast<int64_t>(order.size());
    }
    for (const HloInstruction* hlo : instructions) {
      if (!names.insert(hlo->name()).second) {
        return Error(hlo, "instruction name is used twice in the computation");
      }
      for (const HloInstruction* operand : hlo->operands()) {
        if (operand->parent() != &c) {
          return Error(hlo, absl::StrCat("operand %", operand->name(),
                                         " belongs to another computation"));
        }
        const auto& users = operand->users();
        if (std::find(users.begin(), users.end(), hlo) == users.end()) {
          return Error(hlo,
                       absl::StrCat("is not among the users of its operand %",
                                    operand->name()));
        }
      }
      for (const HloInstruction* user : hlo->users()) {
        if (!user->IsUserOf(hlo)) {
          return Error(hlo, absl::StrCat("lists %", user->name(),
                                         " as a user, which does not use it"));
        }
      }
      for (const HloInstruction* pred : hlo->control_predecessors()) {
        if (pred->parent() != &c) {
          return Error(hlo,
                       "control predecessor belongs to another computation");
        }
        const auto& s = pred->control_successors();
        if (std::find(s.begin(), s.end(), hlo) == s.end()) {
          return Error(hlo, "control dependency lists are inconsistent");
        }
      }
      for (const HloComputation* callee : hlo->called_computations()) {
        if (callee == nullptr || !computations.contains(callee)) {
          return Error(hlo, "calls a computation that is not in the module");
        }
      }
      const int callees = HloOpcodeCalledComputationCount(hlo->opcode());
      const int64_t called = hlo->called_computations().size();
      if ((callees >= 0 && called != callees) ||
          (hlo->opcode() == HloOpcode::kConditional && called < 1)) {
        return Error(
            hlo, absl::StrCat(HloOpcodeString(hlo->opcode()), " calls ", called,
                              " computation", called == 1 ? "" : "s",
                              ", expected ", callees < 0 ? 1 : callees));
      }
      if (module_.config().is_scheduled) {
        for (const HloInstruction* operand : hlo->operands()) {
          if (order[operand] > order[hlo]) {
            return Error(hlo, absl::StrCat("is scheduled before its operand %",
                                           operand->name()));
          }
        }
      }
      absl::Status status = VerifyInstruction(*hlo);
      if (!status.ok()) return status;
    }
    return VerifyAcyclic(c, instructions);
  }

  absl::Status VerifyInstruction(const HloInstruction& hlo) {
    absl::Status valid = ValidateShape(hlo.shape());
    if (!valid.ok()) return Error(&hlo, valid.message());
    if (hlo.has_sharding()) {
      valid = hlo.sharding().Validate();
      if (valid.ok())
        valid = CheckShardingFitsShape(hlo.sharding(), hlo.shape());
      if (!valid.ok()) return Error(&hlo, valid.message());
    }
    if (IsCollectiveOpcode(hlo.opcode())) {
      valid = hlo.attrs().collective->replica_groups.Validate();
      if (!valid.ok()) return Error(&hlo, valid.message());
    }
    valid = CheckAttributesFitShape(hlo);
    if (!valid.ok()) return Error(&hlo, valid.message());
    absl::StatusOr<Shape> inferred = InferShape(hlo);
    if (!inferred.ok()) return Error(&hlo, inferred.status().message());
    if (!DeclaredShapeMatches(hlo, *inferred)) {
      return Error(&hlo, absl::StrCat("shape ", hlo.shape().ToString(false),
                                      " does not match the shape ",
                                      inferred->ToString(false),
                                      " inferred from its operands"));
    }
    return VerifyOpcodeRules(hlo);
  }

  // XLA's checks beyond shapes, once the shapes are known to be right.
  absl::Status VerifyOpcodeRules(const HloInstruction& hlo) {
    const bool in_async =
        hlo.parent() != nullptr && async_start_of_.contains(hlo.parent());
    absl::Status status = CheckFamilyRules(hlo, in_async, module_.config());
    if (!status.ok()) return Error(&hlo, status.message());
    return absl::OkStatus();
  }

  absl::Status VerifyAcyclic(const HloComputation& c,
                             const std::vector<HloInstruction*>& instructions) {
    // Kahn's algorithm over operand and control edges.
    absl::flat_hash_map<const HloInstruction*, int64_t> pending;
    std::vector<const HloInstruction*> ready;
    for (const HloInstruction* hlo : instructions) {
      absl::flat_hash_set<const HloInstruction*> preds(hlo->operands().begin(),
                                                       hlo->operands().end());
      preds.insert(hlo->control_predecessors().begin(),
                   hlo->control_predecessors().end());
      pending[hlo] = static_cast<int64_t>(preds.size());
      if (preds.empty()) ready.push_back(hlo);
    }
    int64_t visited = 0;
    while (!ready.empty()) {
      const HloInstruction* hlo = ready.back();
      ready.pop_back();
      ++visited;
      absl::flat_hash_set<const HloInstruction*> succs(hlo->users().begin(),
                                                       hlo->users().end());
      succs.insert(hlo->control_successors().begin(),
                   hlo->control_successors().end());
      for (const HloInstruction* s : succs) {
        if (--pending[s] == 0) ready.push_back(s);
      }
    }
    if (visited != static_cast<int64_t>(instructions.size())) {
      for (const HloInstruction* hlo : instructions) {
        if (pending[hlo] > 0) {
          return Error(hlo,
                       "is part of a cycle (through operands or "
                       "control-predecessors)");
        }
      }
      return ComputationError(&c, "has a cycle");
    }
    return absl::OkStatus();
  }

  absl::Status VerifyCallGraph() {
    absl::flat_hash_map<const HloComputation*, int> color;
    std::function<absl::Status(const HloComputation*)> visit =
        [&](const HloComputation* c) -> absl::Status {
      color[c] = 1;
      for (const HloInstruction* hlo : c->instructions()) {
        for (const HloComputation* callee : hlo->called_computations()) {
          if (color[callee] == 1) {
            return Error(
                hlo, absl::StrCat("calls ", callee->name(),
                                  ", which (transitively) calls ", c->name(),
                                  ": the call graph has a "
                                  "cycle"));
          }
          if (color[callee] == 0) {
            absl::Status status = visit(callee);
            if (!status.ok()) return status;
          }
        }
      }
      color[c] = 2;
      return absl::OkStatus();
    };
    for (const HloComputation* c : module_.computations()) {
      if (color[c] == 0) {
        absl::Status status = visit(c);
        if (!status.ok()) return status;
      }
    }
    return absl::OkStatus();
  }

  absl::Status VerifyEntry() {
    const HloComputation* entry = module_.entry_computation();
    const HloModuleConfig& config = module_.config();
    // The entry computation layout (its parameters and root unless the
    // header gives one) holds only layout parts a dense array may have.
    absl::Status root_valid =
        ValidateDenseLayoutParts(entry->root_instruction()->shape());
    if (!root_valid.ok()) {
      return Error(entry->root_instruction(), root_valid.message());
    }
    for (int64_t i = 0; i < entry->num_parameters(); ++i) {
      const HloInstruction* p = entry->parameter_instruction(i);
      absl::Status valid = ValidateDenseLayoutParts(p->shape());
      if (!valid.ok()) return Error(p, valid.message());
    }
    if (config.entry_parameter_layouts.has_value()) {
      for (const Shape& layout : *config.entry_parameter_layouts) {
        absl::Status valid = ValidateDenseLayoutParts(layout);
        if (!valid.ok()) return ModuleError(valid.message());
      }
    }
    if (config.entry_result_layout.has_value()) {
      absl::Status valid =
          ValidateDenseLayoutParts(*config.entry_result_layout);
      if (!valid.ok()) return ModuleError(valid.message());
    }
    if (config.entry_parameter_layouts.has_value()) {
      const auto& layouts = *config.entry_parameter_layouts;
      if (static_cast<int64_t>(layouts.size()) != entry->num_parameters()) {
        return ModuleError(
            absl::StrCat("entry_computation_layout has ", layouts.size(),
                         " parameters, but the entry computation "
                         "has ",
                         entry->num_parameters()));
      }
      for (int64_t i = 0; i < entry->num_parameters(); ++i) {
        if (!ShapesCompatible(layouts[i],
                              entry->parameter_instruction(i)->shape())) {
          return Error(
              entry->parameter_instruction(i),
              absl::StrCat(
                  "entry_computation_layout parameter ", i, " ",
                  layouts[i].ToString(), " does not fit parameter ",
                  entry->parameter_instruction(i)->shape().ToString()));
        }
      }
    }
    if (config.entry_result_layout.has_value() &&
        !ShapesCompatible(*config.entry_result_layout,
                          entry->root_instruction()->shape())) {
      return Error(entry->root_instruction(),
                   absl::StrCat("entry_computation_layout result ",
                                config.entry_result_layout->ToString(),
                                " does not fit the entry root ",
                                entry->root_instruction()->shape().ToString()));
    }
    const Shape& result = entry->root_instruction()->shape();
    for (const InputOutputAlias& alias : config.input_output_alias) {
      const Shape* out = result.Subshape(alias.output_index);
      if (out == nullptr) {
        return ModuleError(absl::StrCat("input_output_alias output index ",
                                        ShapeIndexToString(alias.output_index),
                                        " does not exist in ",
                                        result.ToString()));
      }
      if (alias.parameter_number < 0 ||
          alias.parameter_number >= entry->num_parameters()) {
        return ModuleError(absl::StrCat("input_output_alias parameter ",
                                        alias.parameter_number,
                                        " does not exist"));
      }
      const Shape* in = entry->parameter_instruction(alias.parameter_number)
                            ->shape()
                            .Subshape(alias.parameter_index);
      if (in == nullptr) {
        return ModuleError(absl::StrCat(
            "input_output_alias parameter index ",
            ShapeIndexToString(alias.parameter_index), " does not exist"));
      }
      if (!ShapesCompatible(*in, *out)) {
        return ModuleError(absl::StrCat(
            "input_output_alias pairs output ", out->ToString(false),
            " with parameter ", in->ToString(false)));
      }
    }
    for (const BufferDonor& donor : config.buffer_donor) {
      if (donor.parameter_number < 0 ||
          donor.parameter_number >= entry->num_parameters() ||
          entry->parameter_instruction(donor.parameter_number)
                  ->shape()
                  .Subshape(donor.parameter_index) == nullptr) {
        return ModuleError(absl::StrCat(
            "buffer_donor (", donor.parameter_number, ", ",
            ShapeIndexToString(donor.parameter_index), ") does not exist"));
      }
    }
    return absl::OkStatus();
  }

  const HloModule& module_;
  // Each async computation and the async-start that wraps it.
  absl::flat_hash_map<const HloComputation*, const HloInstruction*>
      async_start_of_;
};

}  // namespace

absl::Status VerifyModule(const HloModule& module) {
  return Verifier(module).Run();
}

}  // namespace xlite
