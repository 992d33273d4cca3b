// XLA's HloInstructionProto -> HloInstruction: opcode, shape, operands,
// callees and the fields every instruction has; the opcode's attributes
// are read by its schema row (attribute_proto.h).

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
#include "hlo/proto/attribute_proto.h"
#include "hlo/proto/proto_attributes.h"
#include "hlo/proto/proto_convert.h"
#include "hlo/proto/proto_import_internal.h"

namespace xlite {
namespace proto_import_internal {
namespace {

OpMetadata ImportMetadata(const xla::OpMetadata& p) {
  OpMetadata m;
  m.op_type = p.op_type();
  m.op_name = p.op_name();
  m.source_file = p.source_file();
  m.source_line = p.source_line();
  m.source_end_line = p.source_end_line();
  m.source_column = p.source_column();
  m.source_end_column = p.source_end_column();
  for (int t : p.profile_type()) {
    // Printed as numbers, as XLA prints and reads them. Values this schema
    // does not name are dropped: XLA's parser would refuse them.
    if (!xla::ProfileType_IsValid(t)) continue;
    m.profile_type.push_back(absl::StrCat(t));
  }
  m.deduplicated_name = p.deduplicated_name();
  m.preserve_layout = p.preserve_layout();
  m.stack_frame_id = p.stack_frame_id();
  m.scheduling_name = p.scheduling_name();
  return m;
}

}  // namespace

HloSharding ImportSharding(const xla::OpSharding& p) {
  HloSharding s;
  using Type = HloSharding::Type;
  switch (p.type()) {
    case xla::OpSharding::REPLICATED:
      s.type = Type::kReplicated;
      break;
    case xla::OpSharding::MAXIMAL:
      s.type = Type::kMaximal;
      s.device = p.tile_assignment_devices_size() > 0
                     ? p.tile_assignment_devices(0)
                     : 0;
      break;
    case xla::OpSharding::MANUAL:
      s.type = Type::kManual;
      break;
    case xla::OpSharding::UNKNOWN:
      s.type = Type::kUnknown;
      break;
    case xla::OpSharding::UNREDUCED:
      s.type = Type::kUnreduced;
      break;
    case xla::OpSharding::TUPLE:
      s.type = Type::kTuple;
      for (const xla::OpSharding& e : p.tuple_shardings()) {
        s.tuple_elements.push_back(ImportSharding(e));
      }
      break;
    default:
      s.type = Type::kTiled;
      s.tile_dimensions.assign(p.tile_assignment_dimensions().begin(),
                               p.tile_assignment_dimensions().end());
      if (p.iota_reshape_dims_size() > 0) {
        s.iota = true;
        s.iota_reshape_dims.assign(p.iota_reshape_dims().begin(),
                                   p.iota_reshape_dims().end());
        bool identity = true;
        for (int i = 0; i < p.iota_transpose_perm_size(); ++i) {
          identity &= p.iota_transpose_perm(i) == i;
        }
        if (!identity) {
          s.iota_transpose_perm.assign(p.iota_transpose_perm().begin(),
                                       p.iota_transpose_perm().end());
        }
      } else {
        s.devices.assign(p.tile_assignment_devices().begin(),
                         p.tile_assignment_devices().end());
      }
      s.last_tile_dim_replicate = p.replicate_on_last_tile_dim();
      for (int t : p.last_tile_dims()) {
        s.last_tile_dims.push_back(static_cast<HloSharding::SubgroupType>(t));
      }
      break;
  }
  for (const xla::OpMetadata& m : p.metadata()) {
    s.metadata.push_back(ImportMetadata(m));
  }
  if (p.is_shard_group()) {
    s.shard_group = p.shard_group_type() == xla::OpSharding::AS
                        ? HloSharding::ShardGroup::kAs
                        : HloSharding::ShardGroup::kLike;
    s.shard_group_id = p.shard_group_id();
  }
  return s;
}

ShapeIndex ToIndex(const google::protobuf::RepeatedField<int64_t>& f) {
  return ShapeIndex(f.begin(), f.end());
}

namespace {

// A constant's literal, in the instruction's layout.
absl::Status ImportConstantLiteral(const xla::HloInstructionProto& p,
                                   HloInstruction* hlo) {
  if (!p.has_literal()) {
    return absl::InvalidArgumentError("constant has no literal");
  }
  absl::StatusOr<Literal> literal = LiteralFromProto(p.literal());
  if (!literal.ok()) return literal.status();
  const Shape& shape = hlo->shape();
  if (!ShapesCompatible(literal->shape(), shape)) {
    return absl::InvalidArgumentError(
        absl::StrCat("literal shape ", literal->shape().ToString(),
                     " differs from the instruction's ", shape.ToString()));
  }
  literal->mutable_shape_for_layout() = shape;
  hlo->mutable_attrs().literal = *std::move(literal);
  return absl::OkStatus();
}

// Metadata, shardings, backend config, frontend and kept attributes.
void ImportCommonAttributes(const xla::HloInstructionProto& p,
                            HloInstruction* hlo) {
  if (p.has_metadata()) hlo->set_metadata(ImportMetadata(p.metadata()));
  if (p.has_sharding()) hlo->set_sharding(ImportSharding(p.sharding()));
  if (!p.backend_config().empty()) hlo->set_backend_config(p.backend_config());
  if (p.has_frontend_attributes() && !p.frontend_attributes().map().empty()) {
    FrontendAttributes attrs(p.frontend_attributes().map().begin(),
                             p.frontend_attributes().map().end());
    hlo->set_frontend_attributes(attrs);
  }
  ImportKeptAttributes(p, hlo);
}

}  // namespace

absl::StatusOr<std::unique_ptr<HloInstruction>> ImportInstruction(
    const xla::HloInstructionProto& p,
    const absl::flat_hash_map<int64_t, HloInstruction*>& by_id,
    const absl::flat_hash_map<int64_t, HloComputation*>& computations_) {
  std::optional<HloOpcode> opcode = StringToHloOpcode(p.opcode());
  if (!opcode.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown opcode '", p.opcode(), "'"));
  }
  const HloOpcode op = *opcode;
  absl::StatusOr<Shape> shape = ShapeFromProto(p.shape());
  if (!shape.ok()) return shape.status();
  std::vector<HloInstruction*> operands;
  for (int64_t id : p.operand_ids()) {
    auto it = by_id.find(id);
    if (it == by_id.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("operand id ", id,
                       " is not an earlier instruction of the computation"));
    }
    operands.push_back(it->second);
  }
  auto hlo = HloInstruction::Create(op, *shape, operands);
  hlo->set_name(p.name());
  for (int64_t id : p.called_computation_ids()) {
    auto it = computations_.find(id);
    if (it == computations_.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("called computation id ", id, " does not exist"));
    }
    hlo->AppendCalledComputation(it->second);
  }
  // XLA writes the wrapped computation on async-start only; the update and
  // done ops share it.
  if ((op == HloOpcode::kAsyncUpdate || op == HloOpcode::kAsyncDone) &&
      p.called_computation_ids_size() == 0 && operands.size() == 1 &&
      IsAsyncOpcode(operands[0]->opcode()) &&
      operands[0]->async_wrapped_computation() != nullptr) {
    hlo->AppendCalledComputation(operands[0]->async_wrapped_computation());
  }
  ImportCommonAttributes(p, hlo.get());
  // Every instruction read gets its attribute block (the clone below copies
  // it), as it always has.
  hlo->mutable_attrs();
  if (op == HloOpcode::kParameter) hlo->set_index(p.parameter_number());
  if (op == HloOpcode::kConstant) {
    absl::Status status = ImportConstantLiteral(p, hlo.get());
    if (!status.ok()) return status;
  }
  absl::Status status = attribute_proto::ImportAttributes(p, hlo.get());
  if (!status.ok()) return status;
  if (hlo->attrs() == HloAttributes()) {
    // Keep attribute-free instructions small.
    std::unique_ptr<HloInstruction> fresh =
        hlo->CloneWithNewOperands(*shape, operands);
    hlo.reset();
    return fresh;
  }
  return hlo;
}

}  // namespace proto_import_internal
}  // namespace xlite
