// HloModule -> XLA's HloModuleProto.

#include <algorithm>
#include <cctype>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
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

// Metadata, sharding and the domain's shardings.
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
  const HloAttributes& a = hlo.attrs();
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
  if (!hlo.backend_config().empty())
    p->set_backend_config(hlo.backend_config());
  for (const auto& [key, value] : hlo.frontend_attributes()) {
    (*p->mutable_frontend_attributes()->mutable_map())[key] = value;
  }
  for (const KeptAttribute& kept : hlo.kept_attributes()) {
    absl::Status status = ExportKeptAttribute(kept, p);
    if (!status.ok()) return status;
  }
  switch (op) {
    case HloOpcode::kParameter:
      p->set_parameter_number(hlo.parameter_number());
      if (a.parameter_replication.has_value()) {
        for (bool b : *a.parameter_replication) {
          p->mutable_parameter_replication()->add_replicated_at_leaf_buffers(b);
        }
      }
      break;
    case HloOpcode::kConstant: {
      absl::StatusOr<xla::LiteralProto> literal = LiteralToProto(*a.literal);
      if (!literal.ok()) return literal.status();
      *p->mutable_literal() = *std::move(literal);
      break;
    }
    case HloOpcode::kGetTupleElement:
      p->set_tuple_index(hlo.tuple_index());
      break;
    case HloOpcode::kIota:
      p->add_dimensions(hlo.iota_dimension());
      break;
    case HloOpcode::kReshape:
      if (hlo.inferred_dimension() != -1)
        p->add_dimensions(hlo.inferred_dimension());
      break;
    default:
      break;
  }
  if (hlo.has_dimensions()) {
    for (int64_t d : hlo.dimensions()) p->add_dimensions(d);
  }
  for (const SliceDimension& s : a.slice) {
    auto* d = p->add_slice_dimensions();
    d->set_start(s.start);
    d->set_limit(s.limit);
    d->set_stride(s.stride);
  }
  for (int64_t s : a.dynamic_slice_sizes) p->add_dynamic_slice_sizes(s);
  for (const PaddingDimension& d : a.padding.dimensions) {
    auto* pd = p->mutable_padding_config()->add_dimensions();
    pd->set_edge_padding_low(d.edge_padding_low);
    pd->set_edge_padding_high(d.edge_padding_high);
    pd->set_interior_padding(d.interior_padding);
  }
  if (op == HloOpcode::kConvolution || op == HloOpcode::kReduceWindow ||
      op == HloOpcode::kSelectAndScatter) {
    p->mutable_window();  // XLA requires one, even with no dimensions.
  }
  if (a.window.has_value()) {
    xla::Window* w = p->mutable_window();
    for (const WindowDimension& d : a.window->dimensions) {
      auto* wd = w->add_dimensions();
      wd->set_size(d.size);
      wd->set_stride(d.stride);
      wd->set_padding_low(d.padding_low);
      wd->set_padding_high(d.padding_high);
      wd->set_window_dilation(d.window_dilation);
      wd->set_base_dilation(d.base_dilation);
      wd->set_window_reversal(d.window_reversal);
    }
  }
  const ConvolutionAttributes& conv = *a.conv;
  if (conv.dnums.has_value()) {
    const ConvolutionDimensionNumbers& d = *conv.dnums;
    auto* c = p->mutable_convolution_dimension_numbers();
    c->set_input_batch_dimension(d.input_batch_dimension);
    c->set_input_feature_dimension(d.input_feature_dimension);
    for (int64_t x : d.input_spatial_dimensions)
      c->add_input_spatial_dimensions(x);
    c->set_kernel_input_feature_dimension(d.kernel_input_feature_dimension);
    c->set_kernel_output_feature_dimension(d.kernel_output_feature_dimension);
    for (int64_t x : d.kernel_spatial_dimensions)
      c->add_kernel_spatial_dimensions(x);
    c->set_output_batch_dimension(d.output_batch_dimension);
    c->set_output_feature_dimension(d.output_feature_dimension);
    for (int64_t x : d.output_spatial_dimensions)
      c->add_output_spatial_dimensions(x);
  }
  if (op == HloOpcode::kConvolution || conv.feature_group_count != 1) {
    p->set_feature_group_count(conv.feature_group_count);
  }
  if (op == HloOpcode::kConvolution || conv.batch_group_count != 1) {
    p->set_batch_group_count(conv.batch_group_count);
  }
  p->set_padding_type(static_cast<xla::PaddingType>(conv.padding_type));
  const DotAttributes& dot = *a.dot;
  if (op == HloOpcode::kDot || op == HloOpcode::kScaledDot ||
      op == HloOpcode::kRaggedDot) {
    xla::DotDimensionNumbers* d =
        op == HloOpcode::kRaggedDot ? p->mutable_ragged_dot_dimension_numbers()
                                          ->mutable_dot_dimension_numbers()
                                    : p->mutable_dot_dimension_numbers();
    for (int64_t x : dot.dnums.lhs_contracting_dimensions) {
      d->add_lhs_contracting_dimensions(x);
    }
    for (int64_t x : dot.dnums.rhs_contracting_dimensions) {
      d->add_rhs_contracting_dimensions(x);
    }
    for (int64_t x : dot.dnums.lhs_batch_dimensions)
      d->add_lhs_batch_dimensions(x);
    for (int64_t x : dot.dnums.rhs_batch_dimensions)
      d->add_rhs_batch_dimensions(x);
    if (op == HloOpcode::kRaggedDot) {
      auto* r = p->mutable_ragged_dot_dimension_numbers();
      for (int64_t x : dot.lhs_ragged_dims) r->add_lhs_ragged_dimensions(x);
      for (int64_t x : dot.rhs_group_dims) r->add_rhs_group_dimensions(x);
    }
  }
  if (!a.operand_precision.empty() || !dot.algorithm.empty()) {
    auto* pc = p->mutable_precision_config();
    for (Precision x : a.operand_precision) {
      pc->add_operand_precision(
          static_cast<xla::PrecisionConfig::Precision>(x));
    }
    if (!dot.algorithm.empty()) {
      xla::PrecisionConfig::Algorithm algorithm;
      if (!xla::PrecisionConfig::Algorithm_Parse(
              absl::StrCat("ALG_", absl::AsciiStrToUpper(dot.algorithm)),
              &algorithm)) {
        return absl::InvalidArgumentError(
            absl::StrCat("unknown dot algorithm ", dot.algorithm));
      }
      pc->set_algorithm(algorithm);
    }
  }
  const GatherScatterAttributes& gs = *a.gather_scatter;
  if (op == HloOpcode::kGather) {
    auto* g = p->mutable_gather_dimension_numbers();
    for (int64_t x : gs.gather.offset_dims) g->add_offset_dims(x);
    for (int64_t x : gs.gather.collapsed_slice_dims)
      g->add_collapsed_slice_dims(x);
    for (int64_t x : gs.gather.start_index_map) g->add_start_index_map(x);
    g->set_index_vector_dim(gs.gather.index_vector_dim);
    for (int64_t x : gs.gather.operand_batching_dims)
      g->add_operand_batching_dims(x);
    for (int64_t x : gs.gather.start_indices_batching_dims) {
      g->add_start_indices_batching_dims(x);
    }
    for (int64_t x : gs.slice_sizes) p->add_gather_slice_sizes(x);
  }
  if (op == HloOpcode::kScatter) {
    auto* s = p->mutable_scatter_dimension_numbers();
    for (int64_t x : gs.scatter.update_window_dims)
      s->add_update_window_dims(x);
    for (int64_t x : gs.scatter.inserted_window_dims)
      s->add_inserted_window_dims(x);
    for (int64_t x : gs.scatter.scatter_dims_to_operand_dims) {
      s->add_scatter_dims_to_operand_dims(x);
    }
    s->set_index_vector_dim(gs.scatter.index_vector_dim);
    for (int64_t x : gs.scatter.input_batching_dims)
      s->add_input_batching_dims(x);
    for (int64_t x : gs.scatter.scatter_indices_batching_dims) {
      s->add_scatter_indices_batching_dims(x);
    }
  }
  p->set_indices_are_sorted(gs.indices_are_sorted);
  p->set_unique_indices(gs.unique_indices);
  if (op == HloOpcode::kCompare) {
    p->set_comparison_direction(
        std::string(ComparisonDirectionString(a.direction)));
    p->set_comparison_type(
        std::string(ComparisonTypeString(a.comparison_type)));
  }
  if (op == HloOpcode::kFft) {
    p->set_fft_type(static_cast<xla::FftType>(a.fft_type));
    for (int64_t x : a.fft_length) p->add_fft_length(x);
  }
  if (op == HloOpcode::kRng) {
    p->set_distribution(static_cast<xla::RandomDistribution>(a.distribution));
  }
  p->set_rng_algorithm(static_cast<xla::RandomAlgorithm>(a.rng_algorithm));
  p->set_delta(a.delta);
  p->set_exponent_bits(static_cast<int32_t>(a.exponent_bits));
  p->set_mantissa_bits(static_cast<int32_t>(a.mantissa_bits));
  p->set_epsilon(a.epsilon);
  p->set_feature_index(a.feature_index);
  if (op == HloOpcode::kTriangularSolve) {
    auto* t = p->mutable_triangular_solve_options();
    t->set_left_side(a.left_side);
    t->set_lower(a.lower);
    t->set_unit_diagonal(a.unit_diagonal);
    t->set_transpose_a(
        static_cast<xla::TriangularSolveOptions::Transpose>(a.transpose_a));
  }
  if (op == HloOpcode::kCholesky)
    p->mutable_cholesky_options()->set_lower(a.lower);
  p->set_is_stable(a.is_stable);
  if (op == HloOpcode::kTopK) {
    p->set_k(a.k);
    p->set_largest(a.largest);
  }
  if (op == HloOpcode::kFusion) {
    p->set_fusion_kind(std::string(FusionKindString(a.fusion_kind)));
  }
  for (const OutputOperandAlias& alias : a.output_to_operand_aliasing) {
    auto* o = p->add_output_operand_aliasing();
    AddIndex(alias.output_index, o->mutable_output_shape_index());
    o->set_operand_index(alias.operand_number);
    AddIndex(alias.operand_index, o->mutable_operand_shape_index());
  }
  p->set_is_composite(a.is_composite);
  if (a.channel_id.has_value()) p->set_channel_id(*a.channel_id);
  const CollectiveAttributes& coll = *a.collective;
  if (IsCollectiveOpcode(op)) {
    const ReplicaGroups& g = coll.replica_groups;
    auto* list = p->mutable_collective_device_list();
    if (g.iota) {
      // Both where XLA's schema puts it and where newer XLA looks for it.
      auto* iota = list->mutable_iota_replica_group_list();
      iota->set_num_replica_groups(g.num_groups);
      iota->set_num_devices_per_group(g.group_size);
      for (int64_t d : g.reshape_dims) iota->add_iota_reshape_dims(d);
      for (int64_t d : g.transpose_perm) {
        iota->add_iota_transpose_perm(static_cast<int32_t>(d));
      }
      *p->mutable_iota_collective_device_list() = *iota;
    } else {
      for (const auto& group : g.groups) {
        auto* rg = list->add_replica_groups();
        for (int64_t id : group) rg->add_replica_ids(id);
      }
    }
  }
  p->set_use_global_device_ids(coll.use_global_device_ids);
  for (const auto& [source, target] : coll.source_target_pairs) {
    auto* st = p->add_source_target_pairs();
    st->set_source(source);
    st->set_target(target);
  }
  for (const auto& sizes : coll.permute_slice_sizes) {
    for (int64_t s : sizes) p->add_dynamic_slice_sizes(s);
  }
  p->set_is_host_transfer(a.is_host_transfer);
  const FeedAttributes& feed = *a.feed;
  p->set_infeed_config(feed.infeed_config);
  p->set_outfeed_config(feed.outfeed_config);
  if (feed.outfeed_shape.has_value()) {
    *p->mutable_outfeed_shape() = ShapeToProto(*feed.outfeed_shape);
  }
  const CustomCallAttributes& cc = *a.custom_call;
  if (op == HloOpcode::kCustomCall) {
    p->set_custom_call_target(cc.target);
    p->set_custom_call_api_version(
        static_cast<xla::CustomCallApiVersion>(cc.api_version));
    p->set_custom_call_has_side_effect(cc.has_side_effect);
    p->set_custom_call_schedule(
        static_cast<xla::CustomCallSchedule>(cc.schedule));
    if (cc.operand_layout_constraints.has_value()) {
      p->set_constrain_layout(true);
      for (const Shape& s : *cc.operand_layout_constraints) {
        *p->add_operand_shapes_with_layout() = ShapeToProto(s);
      }
    }
    if (a.literal.has_value()) {
      absl::StatusOr<xla::LiteralProto> literal = LiteralToProto(*a.literal);
      if (!literal.ok()) return literal.status();
      *p->mutable_literal() = *std::move(literal);
    }
  } else {
    p->set_constrain_layout(coll.constrain_layout);
  }
  if (IsAsyncOpcode(op)) {
    // The thread is the async-start's; XLA checks that its update and done
    // ops repeat it, and leaves it out for the main thread.
    const HloInstruction* start = &hlo;
    while (start->opcode() != HloOpcode::kAsyncStart &&
           start->operand_count() == 1 &&
           IsAsyncOpcode(start->operand(0)->opcode())) {
      start = start->operand(0);
    }
    const std::string& thread = start->attrs().async_execution_thread();
    if (thread != "main") p->set_async_execution_thread(thread);
  }
  if (a.cross_program_prefetch_index.has_value()) {
    p->set_cross_program_prefetch_index(
        static_cast<int32_t>(*a.cross_program_prefetch_index));
  }
  if (op == HloOpcode::kScan) {
    p->set_num_carries(a.num_carries);
    p->set_is_reverse(a.is_reverse);
    // Set either way, as XLA's parser sets it and its proto writer writes it.
    p->set_is_associative(a.is_associative ? xla::TRI_STATE_TRUE
                                           : xla::TRI_STATE_FALSE);
  }
  return absl::OkStatus();
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
