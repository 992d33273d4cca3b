// HloModule -> XLA's HloModuleProto.

#include <algorithm>
#include <cctype>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hlo/proto/attribute_proto.h"
#include "hlo/proto/proto_attributes.h"
#include "hlo/proto/proto_convert.h"

namespace xlite {
namespace {

// A profile type as the text gives it: XLA prints and reads the enum's
// number; xlite also reads its name, in any case.
absl::Status ExportProfileType(absl::string_view text, xla::OpMetadata* p) {
  int value;
  xla::ProfileType type;
  if (absl::SimpleAtoi(text, &value) && xla::ProfileType_IsValid(value)) {
    p->add_profile_type(static_cast<xla::ProfileType>(value));
  } else if (xla::ProfileType_Parse(absl::AsciiStrToUpper(text), &type)) {
    p->add_profile_type(type);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("metadata profile_type ", text, " is not a ProfileType"));
  }
  return absl::OkStatus();
}

absl::Status ExportMetadata(const OpMetadata& m, xla::OpMetadata* p) {
  p->set_op_type(m.op_type);
  p->set_op_name(m.op_name);
  p->set_source_file(m.source_file);
  p->set_source_line(static_cast<int32_t>(m.source_line));
  p->set_source_end_line(static_cast<int32_t>(m.source_end_line));
  p->set_source_column(static_cast<int32_t>(m.source_column));
  p->set_source_end_column(static_cast<int32_t>(m.source_end_column));
  for (const std::string& t : m.profile_type) {
    absl::Status status = ExportProfileType(t, p);
    if (!status.ok()) return status;
  }
  p->set_deduplicated_name(m.deduplicated_name);
  p->set_preserve_layout(m.preserve_layout);
  p->set_stack_frame_id(static_cast<int32_t>(m.stack_frame_id));
  p->set_scheduling_name(m.scheduling_name);
  return absl::OkStatus();
}

absl::Status ExportSharding(const HloSharding& s, xla::OpSharding* p) {
  using Type = HloSharding::Type;
  switch (s.type) {
    case Type::kReplicated:
      p->set_type(xla::OpSharding::REPLICATED);
      break;
    case Type::kMaximal:
      p->set_type(xla::OpSharding::MAXIMAL);
      p->add_tile_assignment_dimensions(1);
      p->add_tile_assignment_devices(s.device);
      break;
    case Type::kManual:
      p->set_type(xla::OpSharding::MANUAL);
      break;
    case Type::kUnknown:
      p->set_type(xla::OpSharding::UNKNOWN);
      break;
    case Type::kUnreduced:
      p->set_type(xla::OpSharding::UNREDUCED);
      break;
    case Type::kTuple:
      p->set_type(xla::OpSharding::TUPLE);
      for (const HloSharding& e : s.tuple_elements) {
        absl::Status status = ExportSharding(e, p->add_tuple_shardings());
        if (!status.ok()) return status;
      }
      break;
    case Type::kTiled:
    case Type::kRaw:
      p->set_type(xla::OpSharding::OTHER);
      for (int64_t d : s.tile_dimensions) p->add_tile_assignment_dimensions(d);
      if (s.iota) {
        for (int64_t d : s.iota_reshape_dims) p->add_iota_reshape_dims(d);
        if (s.iota_transpose_perm.empty()) {
          for (size_t i = 0; i < s.iota_reshape_dims.size(); ++i) {
            p->add_iota_transpose_perm(static_cast<int32_t>(i));
          }
        } else {
          for (int64_t d : s.iota_transpose_perm) {
            p->add_iota_transpose_perm(static_cast<int32_t>(d));
          }
        }
      } else {
        for (int64_t d : s.devices) p->add_tile_assignment_devices(d);
      }
      p->set_replicate_on_last_tile_dim(s.last_tile_dim_replicate);
      for (HloSharding::SubgroupType t : s.last_tile_dims) {
        p->add_last_tile_dims(static_cast<xla::OpSharding::Type>(t));
      }
      break;
  }
  for (const OpMetadata& m : s.metadata) {
    absl::Status status = ExportMetadata(m, p->add_metadata());
    if (!status.ok()) return status;
  }
  if (s.shard_group != HloSharding::ShardGroup::kNone) {
    p->set_is_shard_group(true);
    p->set_shard_group_id(s.shard_group_id);
    p->set_shard_group_type(s.shard_group == HloSharding::ShardGroup::kAs
                                ? xla::OpSharding::AS
                                : xla::OpSharding::LIKE);
  }
  return absl::OkStatus();
}

// Metadata, sharding and the domain's shardings (the domain= attribute is
// written here rather than by its row, so that its errors still come before
// those of the kept attributes).
absl::Status ExportMetadataAndShardings(const HloInstruction& hlo,
                                        xla::HloInstructionProto* p) {
  absl::Status status;
  if (hlo.has_metadata()) {
    status.Update(ExportMetadata(hlo.metadata(), p->mutable_metadata()));
  }
  if (hlo.has_sharding()) {
    status.Update(ExportSharding(hlo.sharding(), p->mutable_sharding()));
  }
  const DomainAttributes& domain = *hlo.attrs().domain;
  if (hlo.opcode() == HloOpcode::kDomain) {
    // The text names the sides as seen from outside the domain (`entry=` is
    // the users' side, `exit=` the operand's); XLA's proto names them from
    // inside it: domain_entry_sharding is the operand's side. So text `exit=`
    // goes to domain_entry_sharding and `entry=` to domain_exit_sharding.
    if (domain.exit.has_value()) {
      status.Update(
          ExportSharding(*domain.exit, p->mutable_domain_entry_sharding()));
    }
    if (domain.entry.has_value()) {
      status.Update(
          ExportSharding(*domain.entry, p->mutable_domain_exit_sharding()));
    }
  }
  return status;
}

void AddIndex(const ShapeIndex& index,
              google::protobuf::RepeatedField<int64_t>* field) {
  for (int64_t i : index) field->Add(i);
}

absl::Status ExportInstruction(const HloInstruction& hlo,
                               xla::HloInstructionProto* p) {
  const HloOpcode op = hlo.opcode();
  p->set_name(hlo.name());
  p->set_opcode(std::string(HloOpcodeString(op)));
  *p->mutable_shape() = ShapeToProto(hlo.shape());
  p->set_id(hlo.unique_id());
  for (const HloInstruction* operand : hlo.operands()) {
    p->add_operand_ids(operand->unique_id());
  }
  for (const HloInstruction* pred : hlo.control_predecessors()) {
    p->add_control_predecessor_ids(pred->unique_id());
  }
  // Like XLA, only async-start names the wrapped computation.
  if (op != HloOpcode::kAsyncUpdate && op != HloOpcode::kAsyncDone) {
    for (const HloComputation* c : hlo.called_computations()) {
      p->add_called_computation_ids(c->unique_id());
    }
  }
  if (absl::Status status = ExportMetadataAndShardings(hlo, p); !status.ok()) {
    return status;
  }
  if (!hlo.backend_config().empty()) {
    p->set_backend_config(hlo.backend_config());
  }
  for (const auto& [key, value] : hlo.frontend_attributes()) {
    (*p->mutable_frontend_attributes()->mutable_map())[key] = value;
  }
  for (const KeptAttribute& kept : hlo.kept_attributes()) {
    absl::Status status = ExportKeptAttribute(kept, p);
    if (!status.ok()) return status;
  }
  if (op == HloOpcode::kParameter) {
    p->set_parameter_number(hlo.parameter_number());
  }
  if (op == HloOpcode::kConstant) {
    absl::StatusOr<xla::LiteralProto> literal =
        LiteralToProto(*hlo.attrs().literal);
    if (!literal.ok()) return literal.status();
    *p->mutable_literal() = *std::move(literal);
  }
  return attribute_proto::ExportAttributes(hlo, p);
}

void ExportShapeWithParameters(const HloComputation& c,
                               xla::ProgramShapeProto* p) {
  for (const HloInstruction* param : c.parameter_instructions()) {
    *p->add_parameters() = ShapeToProto(param->shape());
    p->add_parameter_names(param->name());
  }
  if (c.root_instruction() != nullptr) {
    *p->mutable_result() = ShapeToProto(c.root_instruction()->shape());
  }
}

}  // namespace

absl::StatusOr<xla::HloModuleProto> ModuleToProto(const HloModule& module) {
  xla::HloModuleProto proto;
  proto.set_name(module.name());
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) {
    return absl::FailedPreconditionError("module has no entry computation");
  }
  proto.set_entry_computation_name(entry->name());
  proto.set_entry_computation_id(entry->unique_id());
  absl::flat_hash_set<const HloComputation*> fused;
  for (const HloComputation* c : module.computations()) {
    for (const HloInstruction* i : c->instructions()) {
      if (i->opcode() == HloOpcode::kFusion)
        fused.insert(i->fused_computation());
    }
  }
  std::vector<HloComputation*> order = module.MakeComputationPostOrder();
  // The entry goes last, as in XLA's protos.
  std::stable_partition(order.begin(), order.end(),
                        [&](HloComputation* c) { return c != entry; });
  for (const HloComputation* c : order) {
    xla::HloComputationProto* cp = proto.add_computations();
    cp->set_name(c->name());
    cp->set_id(c->unique_id());
    if (c->root_instruction() != nullptr) {
      cp->set_root_id(c->root_instruction()->unique_id());
    }
    cp->set_is_fusion_computation(fused.contains(c));
    cp->set_execution_thread(c->execution_thread());
    ExportShapeWithParameters(*c, cp->mutable_program_shape());
    const std::vector<HloInstruction*> instructions =
        module.config().is_scheduled ? c->instructions()
                                     : c->MakeInstructionPostOrder();
    for (const HloInstruction* i : instructions) {
      absl::Status status = ExportInstruction(*i, cp->add_instructions());
      if (!status.ok()) {
        return absl::Status(status.code(),
                            absl::StrCat("computation ", c->name(), ", %",
                                         i->name(), ": ", status.message()));
      }
    }
    if (module.config().is_scheduled && !fused.contains(c)) {
      auto& sequence =
          (*proto.mutable_schedule()->mutable_sequences())[c->unique_id()];
      for (const HloInstruction* i : instructions) {
        sequence.add_instruction_ids(i->unique_id());
      }
    }
  }
  xla::ProgramShapeProto* host = proto.mutable_host_program_shape();
  for (const Shape& s : module.EntryParameterLayouts()) {
    *host->add_parameters() = ShapeToProto(s);
  }
  for (const HloInstruction* param : entry->parameter_instructions()) {
    host->add_parameter_names(param->name());
  }
  *host->mutable_result() = ShapeToProto(module.EntryResultLayout());
  const HloModuleConfig& config = module.config();
  for (const InputOutputAlias& alias : config.input_output_alias) {
    auto* e = proto.mutable_input_output_alias()->add_entries();
    AddIndex(alias.output_index, e->mutable_output_shape_index());
    e->set_parameter_number(alias.parameter_number);
    AddIndex(alias.parameter_index, e->mutable_parameter_shape_index());
    e->set_kind(alias.must_alias ? xla::MUST_ALIAS : xla::MAY_ALIAS);
  }
  for (const BufferDonor& donor : config.buffer_donor) {
    auto* e = proto.mutable_buffer_donor()->add_entries();
    e->set_parameter_number(donor.parameter_number);
    AddIndex(donor.parameter_index, e->mutable_parameter_shape_index());
  }
  const StackFrameIndex& frames = config.stack_frame_index;
  if (!frames.empty()) {
    xla::StackFrameIndexProto* index = proto.mutable_stack_frame_index();
    for (const std::string& f : frames.file_names) index->add_file_names(f);
    for (const std::string& f : frames.function_names) {
      index->add_function_names(f);
    }
    for (const auto& l : frames.file_locations) {
      auto* pl = index->add_file_locations();
      pl->set_file_name_id(static_cast<int32_t>(l.file_name_id));
      pl->set_function_name_id(static_cast<int32_t>(l.function_name_id));
      pl->set_line(static_cast<int32_t>(l.line));
      pl->set_end_line(static_cast<int32_t>(l.end_line));
      pl->set_column(static_cast<int32_t>(l.column));
      pl->set_end_column(static_cast<int32_t>(l.end_column));
    }
    for (const auto& f : frames.stack_frames) {
      auto* pf = index->add_stack_frames();
      pf->set_file_location_id(static_cast<int32_t>(f.file_location_id));
      // Printed one above the proto's value (0 = no parent).
      pf->set_parent_frame_id(static_cast<int32_t>(f.parent_frame_id - 1));
    }
  }
  for (const auto& [key, value] : config.frontend_attributes) {
    (*proto.mutable_frontend_attributes()->mutable_map())[key] = value;
  }
  if (config.replica_count != 1 || config.num_partitions != 1) {
    auto* da = proto.mutable_device_assignment();
    da->set_replica_count(static_cast<int32_t>(config.replica_count));
    da->set_computation_count(static_cast<int32_t>(config.num_partitions));
    for (int64_t c = 0; c < config.num_partitions; ++c) {
      auto* devices = da->add_computation_devices();
      for (int64_t r = 0; r < config.replica_count; ++r) {
        devices->add_replica_device_ids(r * config.num_partitions + c);
      }
    }
  }
  return proto;
}

}  // namespace xlite
