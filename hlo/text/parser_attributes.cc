// Instruction attributes: which each opcode accepts (XLA's table), and
// parsing each one into the instruction.

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

// Attributes kept verbatim (XLA prints them; xlite does not interpret them).
bool IsKeptAttribute(absl::string_view name) {
  return name == "statistics" || name == "statistics_viz" || name == "origin" ||
         name == "original_value" || name == "result_accuracy";
}

struct OpcodeAttributeSpec {
  std::vector<std::string> allowed;
  std::vector<std::string> required;
};

// The opcode-specific attributes XLA accepts, and which are required.
const OpcodeAttributeSpec& AttributeSpec(HloOpcode opcode) {
  static const auto* const kSpecs = [] {
    auto* specs = new absl::flat_hash_map<HloOpcode, OpcodeAttributeSpec>();
    auto set = [&](std::initializer_list<HloOpcode> ops,
                   std::vector<std::string> allowed,
                   std::vector<std::string> required) {
      for (HloOpcode op : ops) (*specs)[op] = {allowed, required};
    };
    const std::vector<std::string> kCollective = {
        "replica_groups", "channel_id", "constrain_layout",
        "use_global_device_ids"};
    auto with = [](std::vector<std::string> base,
                   std::vector<std::string> extra) {
      base.insert(base.end(), extra.begin(), extra.end());
      return base;
    };
    set({HloOpcode::kParameter}, {"parameter_replication"}, {});
    set({HloOpcode::kGetTupleElement}, {"index"}, {"index"});
    set({HloOpcode::kIota}, {"iota_dimension"}, {"iota_dimension"});
    set({HloOpcode::kReshape}, {"inferred_dimension"}, {});
    set({HloOpcode::kBroadcast}, {"dimensions"}, {});
    set({HloOpcode::kTranspose, HloOpcode::kReverse, HloOpcode::kReduce,
         HloOpcode::kConcatenate, HloOpcode::kGetDimensionSize,
         HloOpcode::kSetDimensionSize},
        {"dimensions"}, {"dimensions"});
    set({HloOpcode::kReduce}, {"dimensions", "to_apply"},
        {"dimensions", "to_apply"});
    set({HloOpcode::kMap}, {"dimensions", "to_apply"}, {"to_apply"});
    set({HloOpcode::kSort}, {"dimensions", "is_stable", "to_apply"},
        {"dimensions", "to_apply"});
    set({HloOpcode::kSlice}, {"slice"}, {"slice"});
    set({HloOpcode::kDynamicSlice}, {"dynamic_slice_sizes"},
        {"dynamic_slice_sizes"});
    set({HloOpcode::kPad}, {"padding"}, {"padding"});
    set({HloOpcode::kCompare}, {"direction", "type"}, {"direction"});
    set({HloOpcode::kConvolution},
        {"window", "dim_labels", "feature_group_count", "batch_group_count",
         "operand_precision", "conv_kind"},
        {"dim_labels"});
    set({HloOpcode::kDot, HloOpcode::kScaledDot},
        {"lhs_batch_dims", "lhs_contracting_dims", "rhs_batch_dims",
         "rhs_contracting_dims", "operand_precision", "algorithm"},
        {});
    set({HloOpcode::kRaggedDot},
        {"lhs_batch_dims", "lhs_contracting_dims", "rhs_batch_dims",
         "rhs_contracting_dims", "lhs_ragged_dims", "rhs_group_dims",
         "operand_precision"},
        {});
    set({HloOpcode::kReduceWindow}, {"window", "to_apply"}, {"to_apply"});
    set({HloOpcode::kSelectAndScatter}, {"window", "select", "scatter"},
        {"select", "scatter"});
    set({HloOpcode::kGather},
        {"offset_dims", "collapsed_slice_dims", "start_index_map",
         "index_vector_dim", "slice_sizes", "indices_are_sorted",
         "operand_batching_dims", "start_indices_batching_dims"},
        {"offset_dims", "collapsed_slice_dims", "start_index_map",
         "index_vector_dim", "slice_sizes"});
    set({HloOpcode::kScatter},
        {"update_window_dims", "inserted_window_dims",
         "scatter_dims_to_operand_dims", "index_vector_dim", "to_apply",
         "indices_are_sorted", "unique_indices", "input_batching_dims",
         "scatter_indices_batching_dims"},
        {"update_window_dims", "inserted_window_dims",
         "scatter_dims_to_operand_dims", "index_vector_dim", "to_apply"});
    set({HloOpcode::kFft}, {"fft_type", "fft_length"},
        {"fft_type", "fft_length"});
    set({HloOpcode::kRng}, {"distribution"}, {"distribution"});
    set({HloOpcode::kRngBitGenerator}, {"algorithm"}, {"algorithm"});
    set({HloOpcode::kRngGetAndUpdateState}, {"delta"}, {"delta"});
    set({HloOpcode::kReducePrecision}, {"exponent_bits", "mantissa_bits"},
        {"exponent_bits", "mantissa_bits"});
    set({HloOpcode::kBatchNormTraining, HloOpcode::kBatchNormInference,
         HloOpcode::kBatchNormGrad},
        {"epsilon", "feature_index"}, {"epsilon", "feature_index"});
    set({HloOpcode::kTriangularSolve},
        {"left_side", "lower", "unit_diagonal", "transpose_a"}, {});
    set({HloOpcode::kCholesky}, {"lower"}, {});
    set({HloOpcode::kTopK}, {"k", "largest"}, {"k"});
    set({HloOpcode::kFusion}, {"kind", "calls", "output_to_operand_aliasing"},
        {"kind", "calls"});
    set({HloOpcode::kCall}, {"to_apply", "is_composite"}, {"to_apply"});
    set({HloOpcode::kWhile}, {"condition", "body"}, {"condition", "body"});
    set({HloOpcode::kConditional},
        {"branch_computations", "true_computation", "false_computation"}, {});
    set({HloOpcode::kAllGather, HloOpcode::kAllGatherStart},
        with(kCollective, {"dimensions"}), {"dimensions"});
    set({HloOpcode::kAllReduce, HloOpcode::kAllReduceStart,
         HloOpcode::kCollectiveReduce},
        with(kCollective, {"to_apply", "mode"}), {"to_apply"});
    set({HloOpcode::kReduceScatter},
        with(kCollective, {"to_apply", "mode", "dimensions"}),
        {"to_apply", "dimensions"});
    set({HloOpcode::kAllToAll}, with(kCollective, {"dimensions"}), {});
    set({HloOpcode::kRaggedAllToAll},
        {"replica_groups", "channel_id", "dimensions"}, {});
    set({HloOpcode::kCollectiveBroadcast}, {"replica_groups", "channel_id"},
        {});
    set({HloOpcode::kCollectivePermute, HloOpcode::kCollectivePermuteStart},
        {"source_target_pairs", "channel_id", "slice_sizes"},
        {"source_target_pairs"});
    set({HloOpcode::kSend, HloOpcode::kSendDone, HloOpcode::kRecv,
         HloOpcode::kRecvDone},
        {"channel_id", "is_host_transfer"}, {});
    set({HloOpcode::kInfeed}, {"infeed_config"}, {});
    set({HloOpcode::kOutfeed}, {"outfeed_config", "outfeed_shape"}, {});
    set({HloOpcode::kCustomCall},
        {"custom_call_target", "window", "dim_labels", "feature_group_count",
         "batch_group_count", "operand_layout_constraints",
         "custom_call_has_side_effect", "to_apply", "called_computations",
         "output_to_operand_aliasing", "padding_type", "literal",
         "operand_precision", "schedule", "api_version"},
        {"custom_call_target"});
    set({HloOpcode::kAsyncStart},
        {"calls", "async_execution_thread", "output_to_operand_aliasing"},
        {"calls"});
    set({HloOpcode::kAsyncUpdate, HloOpcode::kAsyncDone},
        {"calls", "async_execution_thread"}, {});
    set({HloOpcode::kCopyStart}, {"cross_program_prefetch_index"}, {});
    set({HloOpcode::kScan},
        {"dimensions", "to_apply", "num_carries", "is_reverse",
         "is_associative"},
        {"dimensions", "to_apply", "num_carries"});
    set({HloOpcode::kDomain}, {"domain"}, {"domain"});
    set({HloOpcode::kShuffle}, {"dimensions"}, {});
    return specs;
  }();
  static const OpcodeAttributeSpec kNone;
  auto it = kSpecs->find(opcode);
  return it == kSpecs->end() ? kNone : it->second;
}

}  // namespace

bool Allowed(HloOpcode opcode, absl::string_view name) {
  const auto& allowed = AttributeSpec(opcode).allowed;
  return std::find(allowed.begin(), allowed.end(), name) != allowed.end();
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
  for (const std::string& required : AttributeSpec(opcode).required) {
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
  std::vector<std::string> valid = AttributeSpec(instruction->opcode()).allowed;
  if (wrapped != nullptr) {
    const auto& more = AttributeSpec(wrapped->opcode()).allowed;
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
  TextScanner& s = scanner_;
  *handled = true;
  const HloOpcode opcode = hlo->opcode();
  auto ints = [&](std::vector<int64_t>* out) {
    return ParseBracedInts(out, name);
  };
  auto int64 = [&](int64_t* out) {
    return s.ReadInt64(out, What("for ", name));
  };
  auto boolean = [&](bool* out) { return s.ReadBool(out, What("for ", name)); };
  auto quoted = [&](std::string* out) {
    return s.ReadQuotedString(out, What("for ", name));
  };
  HloAttributes& a = hlo->mutable_attrs();

  if (name == "dimensions") {
    if (!ints(hlo->mutable_dimensions())) return false;
    hlo->set_has_dimensions(true);
    return true;
  }
  if (name == "index" || name == "iota_dimension" ||
      name == "inferred_dimension") {
    int64_t v;
    if (!int64(&v)) return false;
    hlo->set_index(v);
    return true;
  }
  if (name == "parameter_replication") {
    std::vector<bool> values;
    if (!ParseBoolList(&values, false)) return false;
    a.parameter_replication = std::move(values);
    return true;
  }
  if (name == "slice") return ParseSliceRanges(&a.slice);
  if (name == "dynamic_slice_sizes") return ints(&a.dynamic_slice_sizes);
  if (name == "padding") return ParsePadding(&a.padding);
  if (name == "window") {
    Window window;
    if (!ParseWindow(&window)) return false;
    // `window={}` (no spatial dimensions) is no window, as XLA prints it.
    if (!window.dimensions.empty()) a.window = std::move(window);
    return true;
  }
  if (name == "dim_labels") {
    ConvolutionDimensionNumbers dnums;
    if (!ParseDimLabels(&dnums)) return false;
    a.conv->dnums = std::move(dnums);
    return true;
  }
  if (name == "feature_group_count") return int64(&a.conv->feature_group_count);
  if (name == "batch_group_count") return int64(&a.conv->batch_group_count);
  if (name == "conv_kind" || name == "mode") {
    std::string raw;
    if (!ParseRawValue(&raw)) return false;
    (name == "mode" ? a.collective->mode : a.conv->kind) = raw;
    return true;
  }
  if (name == "operand_precision")
    return ParsePrecisionList(&a.operand_precision);
  if (name == "algorithm") {
    if (opcode == HloOpcode::kRngBitGenerator) {
      return ParseEnum(
          &a.rng_algorithm, &ParseRandomAlgorithm,
          "rng algorithm (rng_default, rng_three_fry, rng_philox)");
    }
    const size_t p = s.Position();
    a.dot->algorithm = s.ReadIdentifier();
    if (a.dot->algorithm.empty())
      return s.ErrorAt(p, "expected a dot algorithm name");
    return true;
  }
  if (name == "lhs_batch_dims") return ints(&a.dot->dnums.lhs_batch_dimensions);
  if (name == "rhs_batch_dims") return ints(&a.dot->dnums.rhs_batch_dimensions);
  if (name == "lhs_contracting_dims") {
    return ints(&a.dot->dnums.lhs_contracting_dimensions);
  }
  if (name == "rhs_contracting_dims") {
    return ints(&a.dot->dnums.rhs_contracting_dimensions);
  }
  if (name == "lhs_ragged_dims") return ints(&a.dot->lhs_ragged_dims);
  if (name == "rhs_group_dims") return ints(&a.dot->rhs_group_dims);
  if (name == "offset_dims") return ints(&a.gather_scatter->gather.offset_dims);
  if (name == "collapsed_slice_dims") {
    return ints(&a.gather_scatter->gather.collapsed_slice_dims);
  }
  if (name == "start_index_map")
    return ints(&a.gather_scatter->gather.start_index_map);
  if (name == "operand_batching_dims") {
    return ints(&a.gather_scatter->gather.operand_batching_dims);
  }
  if (name == "start_indices_batching_dims") {
    return ints(&a.gather_scatter->gather.start_indices_batching_dims);
  }
  if (name == "index_vector_dim") {
    int64_t v;
    if (!int64(&v)) return false;
    if (opcode == HloOpcode::kGather) {
      a.gather_scatter->gather.index_vector_dim = v;
    } else {
      a.gather_scatter->scatter.index_vector_dim = v;
    }
    return true;
  }
  if (name == "slice_sizes") {
    if (opcode == HloOpcode::kGather)
      return ints(&a.gather_scatter->slice_sizes);
    return ParseBracedIntLists(&a.collective->permute_slice_sizes,
                               "slice_sizes");
  }
  if (name == "update_window_dims") {
    return ints(&a.gather_scatter->scatter.update_window_dims);
  }
  if (name == "inserted_window_dims") {
    return ints(&a.gather_scatter->scatter.inserted_window_dims);
  }
  if (name == "scatter_dims_to_operand_dims") {
    return ints(&a.gather_scatter->scatter.scatter_dims_to_operand_dims);
  }
  if (name == "input_batching_dims") {
    return ints(&a.gather_scatter->scatter.input_batching_dims);
  }
  if (name == "scatter_indices_batching_dims") {
    return ints(&a.gather_scatter->scatter.scatter_indices_batching_dims);
  }
  if (name == "indices_are_sorted")
    return boolean(&a.gather_scatter->indices_are_sorted);
  if (name == "unique_indices")
    return boolean(&a.gather_scatter->unique_indices);
  if (name == "direction") {
    return ParseEnum(&a.direction, &ParseComparisonDirection,
                     "comparison direction (EQ, NE, GE, GT, LE, LT)");
  }
  if (name == "type") {
    if (!ParseEnum(&a.comparison_type, &ParseComparisonType,
                   "comparison type (FLOAT, TOTALORDER, SIGNED, UNSIGNED)")) {
      return false;
    }
    explicit_comparison_type_.insert(hlo);
    return true;
  }
  if (name == "fft_type") {
    return ParseEnum(&a.fft_type, &ParseFftType,
                     "fft type (FFT, IFFT, RFFT, IRFFT)");
  }
  if (name == "fft_length") return ints(&a.fft_length);
  if (name == "distribution") {
    return ParseEnum(&a.distribution, &ParseRandomDistribution,
                     "distribution (rng_uniform, rng_normal)");
  }
  if (name == "delta") return int64(&a.delta);
  if (name == "exponent_bits") return int64(&a.exponent_bits);
  if (name == "mantissa_bits") return int64(&a.mantissa_bits);
  if (name == "epsilon") {
    const size_t p = s.Position();
    std::string token = s.ReadNumberToken();
    if (token.empty() || !absl::SimpleAtof(token, &a.epsilon)) {
      return s.ErrorAt(p, "expected a number for epsilon");
    }
    return true;
  }
  if (name == "feature_index") return int64(&a.feature_index);
  if (name == "left_side") return boolean(&a.left_side);
  if (name == "lower") return boolean(&a.lower);
  if (name == "unit_diagonal") return boolean(&a.unit_diagonal);
  if (name == "transpose_a") {
    return ParseEnum(&a.transpose_a, &ParseTriangularSolveTranspose,
                     "transpose_a (NO_TRANSPOSE, TRANSPOSE, ADJOINT)");
  }
  if (name == "is_stable") return boolean(&a.is_stable);
  if (name == "k") return int64(&a.k);
  if (name == "largest") return boolean(&a.largest);
  if (name == "kind") {
    return ParseEnum(&a.fusion_kind, &ParseFusionKind,
                     "fusion kind (kLoop, kInput, kOutput, kCustom)");
  }
  if (name == "output_to_operand_aliasing") {
    return ParseOutputOperandAliasing(&a.output_to_operand_aliasing);
  }
  if (name == "is_composite") return boolean(&a.is_composite);
  if (name == "replica_groups")
    return ParseReplicaGroups(&a.collective->replica_groups);
  if (name == "channel_id") {
    int64_t v;
    if (!int64(&v)) return false;
    a.channel_id = v;
    return true;
  }
  if (name == "constrain_layout")
    return boolean(&a.collective->constrain_layout);
  if (name == "use_global_device_ids")
    return boolean(&a.collective->use_global_device_ids);
  if (name == "source_target_pairs") {
    std::vector<std::vector<int64_t>> pairs;
    const size_t p = s.Position();
    if (!ParseBracedIntLists(&pairs, "source_target_pairs")) return false;
    for (const auto& pair : pairs) {
      if (pair.size() != 2) {
        return s.ErrorAt(
            p, "source_target_pairs must be a list of {source,target}");
      }
      a.collective->source_target_pairs.push_back({pair[0], pair[1]});
    }
    return true;
  }
  if (name == "is_host_transfer") return boolean(&a.is_host_transfer);
  if (name == "infeed_config") return quoted(&a.feed->infeed_config);
  if (name == "outfeed_config") return quoted(&a.feed->outfeed_config);
  if (name == "outfeed_shape") {
    Shape shape;
    if (!ParseShape(&shape)) return false;
    a.feed->outfeed_shape = std::move(shape);
    return true;
  }
  if (name == "custom_call_target") return quoted(&a.custom_call->target);
  if (name == "operand_layout_constraints") {
    std::vector<Shape> shapes;
    if (!ParseShapeList(&shapes)) return false;
    a.custom_call->operand_layout_constraints = std::move(shapes);
    return true;
  }
  if (name == "custom_call_has_side_effect") {
    return boolean(&a.custom_call->has_side_effect);
  }
  if (name == "padding_type") {
    return ParseEnum(&a.conv->padding_type, &ParsePaddingType,
                     "padding type (PADDING_VALID, PADDING_SAME)");
  }
  if (name == "literal") {
    // A literal with its shapes, a tuple as "(f32[] 1, s32[2] {1, 2})".
    Literal literal;
    if (!ParseSelfDescribingLiteral(&literal)) return false;
    a.literal = std::move(literal);
    return true;
  }
  if (name == "schedule") {
    return ParseEnum(&a.custom_call->schedule, &ParseCustomCallSchedule,
                     "custom-call schedule");
  }
  if (name == "api_version") {
    if (!ParseEnum(&a.custom_call->api_version, &ParseCustomCallApiVersion,
                   "custom-call API version")) {
      return false;
    }
    // Older XLA printed API_VERSION_UNSPECIFIED, which current XLA rejects;
    // it means the original API, so it is read as that.
    if (a.custom_call->api_version == CustomCallApiVersion::kUnspecified) {
      a.custom_call->api_version = CustomCallApiVersion::kOriginal;
    }
    return true;
  }
  if (name == "async_execution_thread") {
    const size_t p = s.Position();
    std::string thread;
    if (!quoted(&thread)) return false;
    // update/done inherit the thread of their async-start; XLA accepts the
    // attribute there only when it repeats that thread.
    if ((opcode == HloOpcode::kAsyncUpdate ||
         opcode == HloOpcode::kAsyncDone) &&
        hlo->operand_count() == 1) {
      const HloInstruction* start = hlo->operand(0);
      while (start->opcode() == HloOpcode::kAsyncUpdate &&
             start->operand_count() == 1) {
        start = start->operand(0);
      }
      const std::string& expected = start->attrs().async_execution_thread();
      if (thread != expected) {
        return s.ErrorAt(
            p, absl::StrCat("async_execution_thread=\"", thread,
                            "\" differs from the thread \"", expected,
                            "\" of its async-start %", start->name()));
      }
    }
    a.set_async_execution_thread(std::move(thread));
    return true;
  }
  if (name == "cross_program_prefetch_index") {
    int64_t v;
    if (!int64(&v)) return false;
    a.cross_program_prefetch_index = v;
    return true;
  }
  if (name == "num_carries") return int64(&a.num_carries);
  if (name == "is_reverse") return boolean(&a.is_reverse);
  if (name == "is_associative") return boolean(&a.is_associative);
  if (name == "domain") {
    if (!s.Expect('{', "to start domain")) return false;
    while (s.Peek() != '}' && !s.AtEnd()) {
      const size_t p = s.Position();
      std::string key = s.ReadIdentifier();
      if (!s.Expect('=', "in domain")) return false;
      if (key == "kind") {
        if (!quoted(&a.domain->kind)) return false;
      } else if (key == "entry" || key == "exit") {
        HloSharding sharding;
        if (!ParseSharding(&sharding)) return false;
        (key == "entry" ? a.domain->entry : a.domain->exit) =
            std::move(sharding);
      } else {
        return s.ErrorAt(p, absl::StrCat("unknown domain field '", key,
                                         "'; expected kind, entry, exit"));
      }
      s.Consume(',');
    }
    if (!s.Expect('}', "to close domain")) return false;
    if (a.domain->kind != "sharding") {
      return s.ErrorAt(position, absl::StrCat("unsupported domain kind '",
                                              a.domain->kind, "'"));
    }
    return true;
  }
  // Called computations.
  if (name == "to_apply") return ParseComputationRef(hlo, 0);
  if (name == "calls") {
    if (opcode == HloOpcode::kAsyncUpdate || opcode == HloOpcode::kAsyncDone) {
      // Inherited from the async-start; only check it matches.
      const size_t p = s.Position();
      std::string callee = s.ReadName();
      if (hlo->called_computations().empty() ||
          hlo->called_computations()[0] == nullptr ||
          hlo->called_computations()[0]->name() != callee) {
        return s.ErrorAt(p, absl::StrCat("calls=%", callee,
                                         " does not match the computation of "
                                         "the async operand"));
      }
      return true;
    }
    return ParseComputationRef(hlo, 0);
  }
  // XLA's callee order: while {body, condition}; select-and-scatter
  // {select, scatter}; conditional {true, false}.
  if (name == "body" || name == "select" || name == "true_computation") {
    return ParseComputationRef(hlo, 0);
  }
  if (name == "condition" || name == "scatter" || name == "false_computation") {
    return ParseComputationRef(hlo, 1);
  }
  if (name == "branch_computations" || name == "called_computations") {
    return ParseComputationRefList(hlo);
  }
  *handled = false;
  return true;
}

}  // namespace parser_internal
}  // namespace xlite
