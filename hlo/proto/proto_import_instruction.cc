// XLA's HloInstructionProto -> HloInstruction: opcode, shape, operands,
// callees and every attribute field.

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

// Opcodes whose `dimensions` field is their dimensions= attribute.
bool UsesDimensions(HloOpcode op) {
  switch (op) {
    case HloOpcode::kBroadcast:
    case HloOpcode::kTranspose:
    case HloOpcode::kReverse:
    case HloOpcode::kReduce:
    case HloOpcode::kConcatenate:
    case HloOpcode::kSort:
    case HloOpcode::kMap:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllToAll:
    case HloOpcode::kRaggedAllToAll:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kGetDimensionSize:
    case HloOpcode::kSetDimensionSize:
    case HloOpcode::kScan:
    case HloOpcode::kShuffle:
      return true;
    default:
      return false;
  }
}

}  // namespace

ShapeIndex ToIndex(const google::protobuf::RepeatedField<int64_t>& f) {
  return ShapeIndex(f.begin(), f.end());
}

// An enum field's value, checked against the values xlite knows (a proto
// from a newer XLA, or a corrupt one, may hold others).
template <typename E>
absl::StatusOr<E> CheckedEnum(int value, int last, absl::string_view what) {
  if (value < 0 || value > last) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown ", what, " value ", value));
  }
  return static_cast<E>(value);
}

#define XLITE_ASSIGN_ENUM(target, E, value, last, what)                \
  do {                                                                 \
    absl::StatusOr<E> checked = CheckedEnum<E>((value), (last), what); \
    if (!checked.ok()) return checked.status();                        \
    target = *checked;                                                 \
  } while (false)

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
  if (p.has_metadata()) hlo->set_metadata(ImportMetadata(p.metadata()));
  if (p.has_sharding()) hlo->set_sharding(ImportSharding(p.sharding()));
  if (!p.backend_config().empty()) hlo->set_backend_config(p.backend_config());
  if (p.has_frontend_attributes() && !p.frontend_attributes().map().empty()) {
    FrontendAttributes attrs(p.frontend_attributes().map().begin(),
                             p.frontend_attributes().map().end());
    hlo->set_frontend_attributes(attrs);
  }
  ImportKeptAttributes(p, hlo.get());
  HloAttributes& a = hlo->mutable_attrs();
  switch (op) {
    case HloOpcode::kParameter:
      hlo->set_index(p.parameter_number());
      if (p.has_parameter_replication()) {
        a.parameter_replication = std::vector<bool>(
            p.parameter_replication().replicated_at_leaf_buffers().begin(),
            p.parameter_replication().replicated_at_leaf_buffers().end());
      }
      break;
    case HloOpcode::kConstant: {
      if (!p.has_literal())
        return absl::InvalidArgumentError("constant has no literal");
      absl::StatusOr<Literal> literal = LiteralFromProto(p.literal());
      if (!literal.ok()) return literal.status();
      if (!ShapesCompatible(literal->shape(), *shape)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "literal shape ", literal->shape().ToString(),
            " differs from the instruction's ", shape->ToString()));
      }
      literal->mutable_shape_for_layout() = *shape;
      a.literal = *std::move(literal);
      break;
    }
    case HloOpcode::kGetTupleElement:
      hlo->set_index(p.tuple_index());
      break;
    case HloOpcode::kIota:
      if (p.dimensions_size() != 1) {
        return absl::InvalidArgumentError("iota needs one dimension");
      }
      hlo->set_index(p.dimensions(0));
      break;
    case HloOpcode::kReshape:
      hlo->set_index(p.dimensions_size() == 1 ? p.dimensions(0) : -1);
      break;
    default:
      break;
  }
  if (UsesDimensions(op) &&
      !(op == HloOpcode::kAllToAll && p.dimensions_size() == 0)) {
    hlo->mutable_dimensions()->assign(p.dimensions().begin(),
                                      p.dimensions().end());
    hlo->set_has_dimensions(true);
  }
  for (const auto& s : p.slice_dimensions()) {
    a.slice.push_back({s.start(), s.limit(), s.stride()});
  }
  if (op == HloOpcode::kDynamicSlice) {
    a.dynamic_slice_sizes.assign(p.dynamic_slice_sizes().begin(),
                                 p.dynamic_slice_sizes().end());
  }
  for (const auto& d : p.padding_config().dimensions()) {
    a.padding.dimensions.push_back(
        {d.edge_padding_low(), d.edge_padding_high(), d.interior_padding()});
  }
  if (p.window().dimensions_size() > 0) {  // an empty window is no window
    Window w;
    for (const auto& d : p.window().dimensions()) {
      WindowDimension wd;
      wd.size = d.size();
      wd.stride = d.stride();
      wd.padding_low = d.padding_low();
      wd.padding_high = d.padding_high();
      wd.window_dilation = d.window_dilation();
      wd.base_dilation = d.base_dilation();
      wd.window_reversal = d.window_reversal();
      w.dimensions.push_back(wd);
    }
    a.window = std::move(w);
  }
  if (p.has_convolution_dimension_numbers()) {
    const auto& c = p.convolution_dimension_numbers();
    ConvolutionDimensionNumbers d;
    d.input_batch_dimension = c.input_batch_dimension();
    d.input_feature_dimension = c.input_feature_dimension();
    d.input_spatial_dimensions.assign(c.input_spatial_dimensions().begin(),
                                      c.input_spatial_dimensions().end());
    d.kernel_input_feature_dimension = c.kernel_input_feature_dimension();
    d.kernel_output_feature_dimension = c.kernel_output_feature_dimension();
    d.kernel_spatial_dimensions.assign(c.kernel_spatial_dimensions().begin(),
                                       c.kernel_spatial_dimensions().end());
    d.output_batch_dimension = c.output_batch_dimension();
    d.output_feature_dimension = c.output_feature_dimension();
    d.output_spatial_dimensions.assign(c.output_spatial_dimensions().begin(),
                                       c.output_spatial_dimensions().end());
    a.conv->dnums = d;
  }
  if (p.feature_group_count() > 1)
    a.conv->feature_group_count = p.feature_group_count();
  if (p.batch_group_count() > 1)
    a.conv->batch_group_count = p.batch_group_count();
  if (p.padding_type() != xla::PADDING_INVALID) {
    XLITE_ASSIGN_ENUM(a.conv->padding_type, PaddingType, p.padding_type(), 2,
                      "padding type");
  }
  auto import_dot = [&](const xla::DotDimensionNumbers& d) {
    DotDimensionNumbers& n = a.dot->dnums;
    n.lhs_contracting_dimensions.assign(d.lhs_contracting_dimensions().begin(),
                                        d.lhs_contracting_dimensions().end());
    n.rhs_contracting_dimensions.assign(d.rhs_contracting_dimensions().begin(),
                                        d.rhs_contracting_dimensions().end());
    n.lhs_batch_dimensions.assign(d.lhs_batch_dimensions().begin(),
                                  d.lhs_batch_dimensions().end());
    n.rhs_batch_dimensions.assign(d.rhs_batch_dimensions().begin(),
                                  d.rhs_batch_dimensions().end());
  };
  if (p.has_dot_dimension_numbers()) import_dot(p.dot_dimension_numbers());
  if (p.has_ragged_dot_dimension_numbers()) {
    const auto& r = p.ragged_dot_dimension_numbers();
    import_dot(r.dot_dimension_numbers());
    a.dot->lhs_ragged_dims.assign(r.lhs_ragged_dimensions().begin(),
                                  r.lhs_ragged_dimensions().end());
    a.dot->rhs_group_dims.assign(r.rhs_group_dimensions().begin(),
                                 r.rhs_group_dimensions().end());
  }
  if (p.has_precision_config()) {
    bool non_default = false;
    for (int x : p.precision_config().operand_precision())
      non_default |= x != 0;
    if (non_default) {
      for (int x : p.precision_config().operand_precision()) {
        Precision precision;
        XLITE_ASSIGN_ENUM(precision, Precision, x, 3, "operand precision");
        a.operand_precision.push_back(precision);
      }
    }
    if (p.precision_config().algorithm() != xla::PrecisionConfig::ALG_UNSET) {
      const std::string& full = xla::PrecisionConfig::Algorithm_Name(
          p.precision_config().algorithm());
      absl::string_view name = full;
      absl::ConsumePrefix(&name, "ALG_");
      a.dot->algorithm = absl::AsciiStrToLower(name);
    }
  }
  if (p.has_gather_dimension_numbers()) {
    const auto& g = p.gather_dimension_numbers();
    GatherDimensionNumbers& d = a.gather_scatter->gather;
    d.offset_dims.assign(g.offset_dims().begin(), g.offset_dims().end());
    d.collapsed_slice_dims.assign(g.collapsed_slice_dims().begin(),
                                  g.collapsed_slice_dims().end());
    d.start_index_map.assign(g.start_index_map().begin(),
                             g.start_index_map().end());
    d.index_vector_dim = g.index_vector_dim();
    d.operand_batching_dims.assign(g.operand_batching_dims().begin(),
                                   g.operand_batching_dims().end());
    d.start_indices_batching_dims.assign(
        g.start_indices_batching_dims().begin(),
        g.start_indices_batching_dims().end());
    a.gather_scatter->slice_sizes.assign(p.gather_slice_sizes().begin(),
                                         p.gather_slice_sizes().end());
  }
  if (p.has_scatter_dimension_numbers()) {
    const auto& s = p.scatter_dimension_numbers();
    ScatterDimensionNumbers& d = a.gather_scatter->scatter;
    d.update_window_dims.assign(s.update_window_dims().begin(),
                                s.update_window_dims().end());
    d.inserted_window_dims.assign(s.inserted_window_dims().begin(),
                                  s.inserted_window_dims().end());
    d.scatter_dims_to_operand_dims.assign(
        s.scatter_dims_to_operand_dims().begin(),
        s.scatter_dims_to_operand_dims().end());
    d.index_vector_dim = s.index_vector_dim();
    d.input_batching_dims.assign(s.input_batching_dims().begin(),
                                 s.input_batching_dims().end());
    d.scatter_indices_batching_dims.assign(
        s.scatter_indices_batching_dims().begin(),
        s.scatter_indices_batching_dims().end());
  }
  if (p.indices_are_sorted()) a.gather_scatter->indices_are_sorted = true;
  if (p.unique_indices()) a.gather_scatter->unique_indices = true;
  if (op == HloOpcode::kCompare) {
    std::optional<ComparisonDirection> d =
        ParseComparisonDirection(p.comparison_direction());
    if (!d.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown comparison direction '", p.comparison_direction(), "'"));
    }
    a.direction = *d;
    if (p.comparison_type().empty()) {
      a.comparison_type =
          DefaultComparisonType(operands[0]->shape().element_type());
    } else {
      std::optional<ComparisonType> t =
          ParseComparisonType(p.comparison_type());
      if (!t.has_value()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "unknown comparison type '", p.comparison_type(), "'"));
      }
      a.comparison_type = *t;
    }
  }
  XLITE_ASSIGN_ENUM(a.fft_type, FftType, p.fft_type(), 3, "fft type");
  a.fft_length.assign(p.fft_length().begin(), p.fft_length().end());
  if (op == HloOpcode::kRng) {
    XLITE_ASSIGN_ENUM(a.distribution, RandomDistribution, p.distribution(), 2,
                      "rng distribution");
    if (p.distribution() == 0) {
      return absl::InvalidArgumentError("rng needs a distribution");
    }
  }
  XLITE_ASSIGN_ENUM(a.rng_algorithm, RandomAlgorithm, p.rng_algorithm(), 2,
                    "rng algorithm");
  a.delta = p.delta();
  a.exponent_bits = p.exponent_bits();
  a.mantissa_bits = p.mantissa_bits();
  a.epsilon = p.epsilon();
  a.feature_index = p.feature_index();
  if (p.has_triangular_solve_options()) {
    const auto& t = p.triangular_solve_options();
    a.left_side = t.left_side();
    a.lower = t.lower();
    a.unit_diagonal = t.unit_diagonal();
    XLITE_ASSIGN_ENUM(a.transpose_a, TriangularSolveTranspose, t.transpose_a(),
                      3, "triangular-solve transpose");
  }
  if (p.has_cholesky_options()) a.lower = p.cholesky_options().lower();
  a.is_stable = p.is_stable();
  if (op == HloOpcode::kTopK) {
    a.k = p.k();
    a.largest = p.largest();
  }
  if (op == HloOpcode::kFusion) {
    std::optional<FusionKind> kind = ParseFusionKind(p.fusion_kind());
    if (!kind.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown fusion kind '", p.fusion_kind(), "'"));
    }
    a.fusion_kind = *kind;
  }
  for (const auto& alias : p.output_operand_aliasing()) {
    a.output_to_operand_aliasing.push_back(
        {ToIndex(alias.output_shape_index()), alias.operand_index(),
         ToIndex(alias.operand_shape_index())});
  }
  a.is_composite = p.is_composite();
  if (op == HloOpcode::kScan) {
    a.num_carries = p.num_carries();
    a.is_reverse = p.is_reverse();
    a.is_associative = p.is_associative() == xla::TRI_STATE_TRUE;
  }
  if (p.channel_id() > 0) a.channel_id = p.channel_id();
  if (IsCollectiveOpcode(op)) {
    ReplicaGroups& g = a.collective->replica_groups;
    // Iota groups: newer XLA writes iota_collective_device_list, older
    // XLA (and XLA's published schema) collective_device_list.
    const xla::IotaReplicaGroupListProto* iota = nullptr;
    if (p.has_iota_collective_device_list()) {
      iota = &p.iota_collective_device_list();
    } else if (p.collective_device_list().has_iota_replica_group_list()) {
      iota = &p.collective_device_list().iota_replica_group_list();
    }
    if (iota != nullptr) {
      g.iota = true;
      g.num_groups = iota->num_replica_groups();
      g.group_size = iota->num_devices_per_group();
      g.reshape_dims.assign(iota->iota_reshape_dims().begin(),
                            iota->iota_reshape_dims().end());
      bool identity = true;
      for (int i = 0; i < iota->iota_transpose_perm_size(); ++i) {
        identity &= iota->iota_transpose_perm(i) == i;
      }
      if (!identity) {
        g.transpose_perm.assign(iota->iota_transpose_perm().begin(),
                                iota->iota_transpose_perm().end());
      }
    } else {
      const auto& groups = p.collective_device_list().replica_groups_size() > 0
                               ? p.collective_device_list().replica_groups()
                               : p.replica_groups();
      for (const auto& rg : groups) {
        g.groups.emplace_back(rg.replica_ids().begin(), rg.replica_ids().end());
      }
    }
    a.collective->use_global_device_ids = p.use_global_device_ids();
    a.collective->constrain_layout = p.constrain_layout();
  }
  for (const auto& st : p.source_target_pairs()) {
    a.collective->source_target_pairs.push_back({st.source(), st.target()});
  }
  if ((op == HloOpcode::kCollectivePermute ||
       op == HloOpcode::kCollectivePermuteStart) &&
      p.dynamic_slice_sizes_size() > 0 && operands.size() == 4) {
    const int64_t rank = operands[0]->shape().rank();
    for (int i = 0; rank > 0 && i + rank <= p.dynamic_slice_sizes_size();
         i += rank) {
      a.collective->permute_slice_sizes.emplace_back(
          p.dynamic_slice_sizes().begin() + i,
          p.dynamic_slice_sizes().begin() + i + rank);
    }
  }
  a.is_host_transfer = p.is_host_transfer();
  if (!p.infeed_config().empty()) a.feed->infeed_config = p.infeed_config();
  if (!p.outfeed_config().empty()) a.feed->outfeed_config = p.outfeed_config();
  if (op == HloOpcode::kOutfeed && p.has_outfeed_shape()) {
    absl::StatusOr<Shape> s = ShapeFromProto(p.outfeed_shape());
    if (!s.ok()) return s.status();
    a.feed->outfeed_shape = *s;
  }
  if (op == HloOpcode::kCustomCall) {
    CustomCallAttributes& cc = *a.custom_call;
    cc.target = p.custom_call_target();
    XLITE_ASSIGN_ENUM(cc.api_version, CustomCallApiVersion,
                      p.custom_call_api_version(), 4,
                      "custom-call API version");
    if (cc.api_version == CustomCallApiVersion::kUnspecified) {
      cc.api_version = CustomCallApiVersion::kOriginal;
    }
    cc.has_side_effect = p.custom_call_has_side_effect();
    XLITE_ASSIGN_ENUM(cc.schedule, CustomCallSchedule, p.custom_call_schedule(),
                      2, "custom-call schedule");
    if (p.constrain_layout()) {
      std::vector<Shape> shapes;
      for (const auto& s : p.operand_shapes_with_layout()) {
        absl::StatusOr<Shape> shape_or = ShapeFromProto(s);
        if (!shape_or.ok()) return shape_or.status();
        shapes.push_back(*shape_or);
      }
      cc.operand_layout_constraints = std::move(shapes);
    }
    if (p.has_literal()) {
      absl::StatusOr<Literal> literal = LiteralFromProto(p.literal());
      if (!literal.ok()) return literal.status();
      a.literal = *std::move(literal);
    }
  }
  if (op == HloOpcode::kAsyncStart) {
    a.set_async_execution_thread(p.async_execution_thread().empty()
                                     ? "main"
                                     : p.async_execution_thread());
  }
  if (p.optional_cross_program_prefetch_index_case() ==
      xla::HloInstructionProto::kCrossProgramPrefetchIndex) {
    a.cross_program_prefetch_index = p.cross_program_prefetch_index();
  }
  if (op == HloOpcode::kDomain) {
    a.domain->kind = "sharding";
    // The proto's entry side is the operand's, which the text calls `exit=`
    // (see ExportInstruction).
    if (p.has_domain_entry_sharding()) {
      a.domain->exit = ImportSharding(p.domain_entry_sharding());
    }
    if (p.has_domain_exit_sharding()) {
      a.domain->entry = ImportSharding(p.domain_exit_sharding());
    }
  }
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
