// XLA's HloModuleProto (and HloProto / HloSnapshot) -> HloModule.

#include <functional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"
#include "hlo/proto/proto_attributes.h"
#include "hlo/proto/proto_convert.h"
#include "hlo/proto/proto_import_internal.h"

namespace xlite {
namespace {

using proto_import_internal::ToIndex;

class Importer {
 public:
  explicit Importer(const std::string& source_name) : source_(source_name) {}

  absl::StatusOr<std::unique_ptr<HloModule>> Run(const xla::HloModuleProto& p);

 private:
  absl::Status Error(absl::string_view where, absl::string_view message) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_.empty() ? "<proto>" : source_, ": error: ", where,
                     ": ", message));
  }

  // The steps of Run, in order.
  absl::Status CreateComputations(const xla::HloModuleProto& p);
  absl::Status ImportComputation(const xla::HloModuleProto& p, int index,
                                 bool keep_ids);
  absl::Status CheckCallsAreAcyclic();
  void AddComputations(const xla::HloModuleProto& p, HloModule* module);
  absl::Status ImportConfig(const xla::HloModuleProto& p, HloModule* module);

  std::string source_;
  // Every computation, in proto order, until AddComputations hands them to
  // the module.
  std::vector<std::unique_ptr<HloComputation>> owned_;
  absl::flat_hash_map<int64_t, HloComputation*> computations_;
};

// The order to create a computation's instructions in: its schedule
// sequence when the module has one that lists each instruction once (the
// instruction order of a scheduled module is its schedule), else the
// order of the proto.
std::vector<const xla::HloInstructionProto*> InstructionOrder(
    const xla::HloModuleProto& p, const xla::HloComputationProto& cp) {
  std::vector<const xla::HloInstructionProto*> order;
  for (const xla::HloInstructionProto& ip : cp.instructions())
    order.push_back(&ip);
  if (!p.has_schedule()) return order;
  auto it = p.schedule().sequences().find(cp.id());
  if (it == p.schedule().sequences().end() ||
      it->second.instruction_ids_size() != cp.instructions_size()) {
    return order;
  }
  absl::flat_hash_map<int64_t, const xla::HloInstructionProto*> by_id;
  for (const xla::HloInstructionProto& ip : cp.instructions())
    by_id[ip.id()] = &ip;
  std::vector<const xla::HloInstructionProto*> scheduled;
  for (int64_t id : it->second.instruction_ids()) {
    auto found = by_id.find(id);
    if (found == by_id.end()) return order;
    scheduled.push_back(found->second);
    by_id.erase(found);
  }
  return scheduled;
}

// Ids are kept when unique across the module (as XLA writes them), so a
// module read from a proto writes the same ids back.
bool InstructionIdsAreUnique(const xla::HloModuleProto& p) {
  absl::flat_hash_set<int64_t> ids;
  for (const xla::HloComputationProto& cp : p.computations()) {
    for (const xla::HloInstructionProto& ip : cp.instructions()) {
      if (ip.id() < 0 || !ids.insert(ip.id()).second) return false;
    }
  }
  return true;
}

// Names that would not read back from text (empty, odd characters,
// repeated across computations) are renamed the way XLA's parser would.
void RenameLikeXla(HloModule* module) {
  bool rename = module->HasDuplicateInstructionNames();
  for (const HloComputation* c : module->computations()) {
    rename |=
        NameUniquer::Sanitize(c->name()) != c->name() || c->name().empty();
    for (const HloInstruction* i : c->instructions()) {
      rename |=
          NameUniquer::Sanitize(i->name()) != i->name() || i->name().empty();
    }
  }
  if (rename) module->UniquifyNamesLikeXla();
}

// Every computation is created first so calls may refer to any of them.
absl::Status Importer::CreateComputations(const xla::HloModuleProto& p) {
  absl::flat_hash_set<std::string> names;
  for (const xla::HloComputationProto& cp : p.computations()) {
    if (computations_.contains(cp.id())) {
      return Error(absl::StrCat("computation ", cp.name()),
                   absl::StrCat("id ", cp.id(), " is used twice"));
    }
    if (!names.insert(cp.name()).second) {
      return Error(absl::StrCat("computation ", cp.name()),
                   "name is used twice");
    }
    owned_.push_back(std::make_unique<HloComputation>(cp.name()));
    if (cp.id() >= 0) owned_.back()->set_unique_id(cp.id());
    owned_.back()->set_execution_thread(
        cp.execution_thread().empty() ? "main" : cp.execution_thread());
    computations_[cp.id()] = owned_.back().get();
  }
  return absl::OkStatus();
}

// The instructions of computation `index`, its root and parameters.
absl::Status Importer::ImportComputation(const xla::HloModuleProto& p,
                                         int index, bool keep_ids) {
  const xla::HloComputationProto& cp = p.computations(index);
  HloComputation* c = owned_[index].get();
  absl::flat_hash_map<int64_t, HloInstruction*> by_id;
  absl::flat_hash_set<std::string> instruction_names;
  for (const xla::HloInstructionProto* ip_ptr : InstructionOrder(p, cp)) {
    const xla::HloInstructionProto& ip = *ip_ptr;
    const std::string where =
        absl::StrCat("computation ", cp.name(), ", instruction ", ip.name());
    if (by_id.contains(ip.id())) {
      return Error(where, absl::StrCat("id ", ip.id(), " is used twice"));
    }
    if (!instruction_names.insert(ip.name()).second) {
      return Error(where, "name is used twice in the computation");
    }
    absl::StatusOr<std::unique_ptr<HloInstruction>> instruction =
        proto_import_internal::ImportInstruction(ip, by_id, computations_);
    if (!instruction.ok()) return Error(where, instruction.status().message());
    if ((*instruction)->opcode() == HloOpcode::kParameter) {
      const int64_t number = (*instruction)->parameter_number();
      if (number < 0 || number > 100000 ||
          (number < c->num_parameters() &&
           c->parameter_instruction(number) != nullptr)) {
        return Error(where,
                     absl::StrCat("bad or repeated parameter number ", number));
      }
    }
    if (keep_ids) (*instruction)->set_unique_id(ip.id());
    HloInstruction* raw = c->AddInstruction(*std::move(instruction));
    for (int64_t id : ip.control_predecessor_ids()) {
      auto it = by_id.find(id);
      if (it == by_id.end()) {
        return Error(where, absl::StrCat("control predecessor id ", id,
                                         " is not an earlier instruction"));
      }
      absl::Status status = it->second->AddControlDependencyTo(raw);
      if (!status.ok()) return Error(where, status.message());
    }
    by_id[ip.id()] = raw;
  }
  auto root = by_id.find(cp.root_id());
  if (root == by_id.end()) {
    if (cp.instructions_size() == 0) {
      return Error(absl::StrCat("computation ", cp.name()),
                   "has no instructions");
    }
    return Error(
        absl::StrCat("computation ", cp.name()),
        absl::StrCat("root id ", cp.root_id(), " is not an instruction"));
  }
  c->set_root_instruction(root->second);
  for (int64_t i = 0; i < c->num_parameters(); ++i) {
    if (c->parameter_instruction(i) == nullptr) {
      return Error(absl::StrCat("computation ", cp.name()),
                   absl::StrCat("has no parameter ", i));
    }
  }
  return absl::OkStatus();
}

absl::Status Importer::CheckCallsAreAcyclic() {
  absl::flat_hash_map<const HloComputation*, int> color;
  std::function<absl::Status(const HloComputation*)> visit =
      [&](const HloComputation* c) -> absl::Status {
    color[c] = 1;
    for (const HloInstruction* i : c->instructions()) {
      for (const HloComputation* callee : i->called_computations()) {
        if (color[callee] == 1) {
          return Error(absl::StrCat("computation ", c->name()),
                       absl::StrCat("calls ", callee->name(),
                                    " in a cycle of computation calls"));
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
  for (const auto& c : owned_) {
    if (color[c.get()] == 0) {
      absl::Status status = visit(c.get());
      if (!status.ok()) return status;
    }
  }
  return absl::OkStatus();
}

// Hands the computations to the module: the entry is the one the proto
// names by id, else by name, else the last.
void Importer::AddComputations(const xla::HloModuleProto& p,
                               HloModule* module) {
  HloComputation* entry = nullptr;
  auto e = computations_.find(p.entry_computation_id());
  if (e != computations_.end()) entry = e->second;
  for (const auto& c : owned_) {
    if (entry == nullptr && c->name() == p.entry_computation_name())
      entry = c.get();
  }
  if (entry == nullptr) entry = owned_.back().get();
  // Schedule: reorder instructions to the given sequences.
  if (p.has_schedule() && !p.schedule().sequences().empty()) {
    module->config().is_scheduled = true;
  }
  for (auto& c : owned_) {
    const bool is_entry = c.get() == entry;
    HloComputation* added = module->AddComputation(std::move(c));
    if (is_entry) module->set_entry_computation(added);
  }
  owned_.clear();
}

// Entry layouts, aliasing, buffer donors, frontend attributes, stack
// frames and the device count.
absl::Status Importer::ImportConfig(const xla::HloModuleProto& p,
                                    HloModule* module) {
  HloModuleConfig& config = module->config();
  if (p.has_host_program_shape()) {
    std::vector<Shape> params;
    for (const auto& s : p.host_program_shape().parameters()) {
      absl::StatusOr<Shape> shape = ShapeFromProto(s);
      if (!shape.ok())
        return Error("host_program_shape", shape.status().message());
      params.push_back(*shape);
    }
    absl::StatusOr<Shape> result =
        ShapeFromProto(p.host_program_shape().result());
    if (!result.ok())
      return Error("host_program_shape", result.status().message());
    config.entry_parameter_layouts = std::move(params);
    config.entry_result_layout = *std::move(result);
  } else {
    config.entry_parameter_layouts = module->EntryParameterLayouts();
    config.entry_result_layout = module->EntryResultLayout();
  }
  for (const auto& entry_alias : p.input_output_alias().entries()) {
    config.input_output_alias.push_back(
        {ToIndex(entry_alias.output_shape_index()),
         entry_alias.parameter_number(),
         ToIndex(entry_alias.parameter_shape_index()),
         entry_alias.kind() == xla::MUST_ALIAS});
  }
  for (const auto& donor : p.buffer_donor().entries()) {
    config.buffer_donor.push_back(
        {donor.parameter_number(), ToIndex(donor.parameter_shape_index())});
  }
  for (const auto& [key, value] : p.frontend_attributes().map()) {
    config.frontend_attributes[key] = value;
  }
  if (p.has_stack_frame_index()) {
    const xla::StackFrameIndexProto& index = p.stack_frame_index();
    StackFrameIndex& frames = config.stack_frame_index;
    frames.file_names.assign(index.file_names().begin(),
                             index.file_names().end());
    frames.function_names.assign(index.function_names().begin(),
                                 index.function_names().end());
    for (const auto& l : index.file_locations()) {
      frames.file_locations.push_back({l.file_name_id(), l.function_name_id(),
                                       l.line(), l.end_line(), l.column(),
                                       l.end_column()});
    }
    for (const auto& f : index.stack_frames()) {
      frames.stack_frames.push_back(
          {f.file_location_id(), int64_t{f.parent_frame_id()} + 1});
    }
  }
  if (p.has_device_assignment()) {
    config.replica_count = std::max(1, p.device_assignment().replica_count());
    config.num_partitions =
        std::max(1, p.device_assignment().computation_count());
    if (config.replica_count > kMaxModuleDevices / config.num_partitions) {
      return Error("device_assignment",
                   absl::StrCat("replica_count x computation_count must be "
                                "at most ",
                                kMaxModuleDevices));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<HloModule>> Importer::Run(
    const xla::HloModuleProto& p) {
  auto module = std::make_unique<HloModule>(
      p.name().empty() ? std::string("module")
                       : NameUniquer::Sanitize(p.name()));
  module->set_source_name(source_);
  if (p.computations_size() == 0) {
    return Error(absl::StrCat("module ", p.name()), "has no computations");
  }
  absl::Status status = CreateComputations(p);
  const bool keep_ids = InstructionIdsAreUnique(p);
  for (int i = 0; status.ok() && i < p.computations_size(); ++i) {
    status = ImportComputation(p, i, keep_ids);
  }
  if (status.ok()) status = CheckCallsAreAcyclic();
  if (!status.ok()) return status;
  AddComputations(p, module.get());
  status = ImportConfig(p, module.get());
  if (!status.ok()) return status;
  RenameLikeXla(module.get());
  module->SugarAsyncOpsLikeXla();
  return module;
}

}  // namespace

absl::StatusOr<std::unique_ptr<HloModule>> ModuleFromProto(
    const xla::HloModuleProto& proto, const std::string& source_name) {
  return Importer(source_name).Run(proto);
}

std::string SerializeDeterministic(const google::protobuf::Message& message) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  return bytes;
}

namespace {

// Keeps the first error protobuf's text-format parser reports.
class FirstTextError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (this->line >= 0) return;
    this->line = line;
    this->column = column;
    this->message = message;
  }
  int line = -1;
  int column = -1;
  std::string message;
};

// Text format accepts strings that are not UTF-8, which binary protos
// (and XLA) reject: check by a binary round trip before importing.
absl::StatusOr<std::unique_ptr<HloModule>> FromTextParsed(
    const xla::HloModuleProto& proto, const std::string& source_name) {
  xla::HloModuleProto check;
  if (!check.ParseFromString(proto.SerializeAsString())) {
    return absl::InvalidArgumentError(absl::StrCat(
        source_name, ": error: a string field is not valid UTF-8"));
  }
  return ModuleFromProto(proto, source_name);
}

}  // namespace

absl::StatusOr<std::unique_ptr<HloModule>> ModuleFromSerializedProto(
    const std::string& bytes, bool text, const std::string& source_name) {
  auto fail = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        source_name,
        ": error: not an HloModuleProto, HloProto or HloSnapshot (", why, ")"));
  };
  // Protobuf logs its own complaints (bad UTF-8, text syntax) to stderr;
  // the error returned here says what matters.
  google::protobuf::LogSilencer silence;
  if (text) {
    // Text format: the first error of reading it as an HloModuleProto is
    // the one reported, at its line and column.
    FirstTextError first;
    google::protobuf::TextFormat::Parser parser;
    parser.RecordErrorsTo(&first);
    xla::HloModuleProto module;
    if (parser.ParseFromString(bytes, &module) &&
        module.computations_size() > 0) {
      return FromTextParsed(module, source_name);
    }
    google::protobuf::TextFormat::Parser quiet;
    xla::HloProto hlo;
    if (quiet.ParseFromString(bytes, &hlo) && hlo.has_hlo_module()) {
      return FromTextParsed(hlo.hlo_module(), source_name);
    }
    xla::HloSnapshot snapshot;
    if (quiet.ParseFromString(bytes, &snapshot) && snapshot.has_hlo()) {
      return FromTextParsed(snapshot.hlo().hlo_module(), source_name);
    }
    if (first.line >= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(source_name, ":", first.line + 1, ":", first.column + 1,
                       ": error: ", first.message));
    }
    return fail("the text format holds no computations");
  }
  xla::HloModuleProto module;
  if (module.ParseFromString(bytes) && module.computations_size() > 0) {
    return ModuleFromProto(module, source_name);
  }
  xla::HloProto hlo;
  if (hlo.ParseFromString(bytes) && hlo.has_hlo_module() &&
      hlo.hlo_module().computations_size() > 0) {
    return ModuleFromProto(hlo.hlo_module(), source_name);
  }
  xla::HloSnapshot snapshot;
  if (snapshot.ParseFromString(bytes) && snapshot.has_hlo() &&
      snapshot.hlo().hlo_module().computations_size() > 0) {
    return ModuleFromProto(snapshot.hlo().hlo_module(), source_name);
  }
  return fail("truncated, corrupt, or no computations");
}

}  // namespace xlite
