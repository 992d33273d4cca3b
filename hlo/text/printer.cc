#include "hlo/text/printer.h"

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/ir/float_types.h"

namespace xlite {
namespace {

// Appends ", key=value" pieces to the output in order.
class AttributeList {
 public:
  explicit AttributeList(std::string* out) : out_(out) {}
  void Add(absl::string_view key, absl::string_view value) {
    absl::StrAppend(out_, ", ", key, "=", value);
  }

 private:
  std::string* out_;
};

std::string Quoted(absl::string_view s) {
  return absl::StrCat("\"", absl::CEscape(s), "\"");
}

std::string Name(const HloInstruction* instruction) {
  return absl::StrCat("%", instruction->name());
}

std::string ComputationName(const HloComputation* computation) {
  return absl::StrCat("%", computation->name());
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

bool AnyNonDefaultPrecision(const std::vector<Precision>& p) {
  return std::any_of(p.begin(), p.end(),
                     [](Precision x) { return x != Precision::kDefault; });
}

void AddPrecision(const HloAttributes& a, AttributeList& out) {
  if (AnyNonDefaultPrecision(a.operand_precision)) {
    out.Add("operand_precision",
            absl::StrCat("{",
                         absl::StrJoin(a.operand_precision, ",",
                                       [](std::string* o, Precision p) {
                                         absl::StrAppend(o, PrecisionString(p));
                                       }),
                         "}"));
  }
}

void AddDotDims(const DotDimensionNumbers& d, AttributeList& out) {
  if (!d.lhs_batch_dimensions.empty()) {
    out.Add("lhs_batch_dims", BracedList(d.lhs_batch_dimensions));
  }
  if (!d.lhs_contracting_dimensions.empty()) {
    out.Add("lhs_contracting_dims", BracedList(d.lhs_contracting_dimensions));
  }
  if (!d.rhs_batch_dimensions.empty()) {
    out.Add("rhs_batch_dims", BracedList(d.rhs_batch_dimensions));
  }
  if (!d.rhs_contracting_dimensions.empty()) {
    out.Add("rhs_contracting_dims", BracedList(d.rhs_contracting_dimensions));
  }
}

void AddConvolutionLike(const HloAttributes& a, AttributeList& out) {
  if (a.window.has_value() && !a.window->dimensions.empty()) {
    out.Add("window", absl::StrCat("{", a.window->ToString(), "}"));
  }
  if (a.conv->dnums.has_value())
    out.Add("dim_labels", a.conv->dnums->ToString());
  if (a.conv->feature_group_count != 1) {
    out.Add("feature_group_count", absl::StrCat(a.conv->feature_group_count));
  }
  if (a.conv->batch_group_count != 1) {
    out.Add("batch_group_count", absl::StrCat(a.conv->batch_group_count));
  }
}

// XLA's collective prefix: channel_id, replica_groups, constrain_layout.
void AddChannelAndGroups(const HloAttributes& a, AttributeList& out) {
  if (a.channel_id.has_value())
    out.Add("channel_id", absl::StrCat(*a.channel_id));
  out.Add("replica_groups", a.collective->replica_groups.ToString());
  if (a.collective->constrain_layout) out.Add("constrain_layout", "true");
}

// XLA writes the strides of every dimension once any stride is not 1.
std::string SliceToString(const std::vector<SliceDimension>& slice) {
  const bool unit_strides =
      std::all_of(slice.begin(), slice.end(),
                  [](const SliceDimension& d) { return d.stride == 1; });
  return absl::StrCat(
      "{",
      absl::StrJoin(slice, ", ",
                    [unit_strides](std::string* out, const SliceDimension& d) {
                      if (unit_strides) {
                        absl::StrAppend(out, "[", d.start, ":", d.limit, "]");
                      } else {
                        absl::StrAppend(out, "[", d.start, ":", d.limit, ":",
                                        d.stride, "]");
                      }
                    }),
      "}");
}

std::string PairsToString(
    const std::vector<std::pair<int64_t, int64_t>>& pairs) {
  return absl::StrCat(
      "{",
      absl::StrJoin(pairs, ",",
                    [](std::string* out, const std::pair<int64_t, int64_t>& p) {
                      absl::StrAppend(out, "{", p.first, ",", p.second, "}");
                    }),
      "}");
}

std::string ListListToString(const std::vector<std::vector<int64_t>>& lists) {
  return absl::StrCat(
      "{",
      absl::StrJoin(lists, ",",
                    [](std::string* out, const std::vector<int64_t>& l) {
                      absl::StrAppend(out, BracedList(l));
                    }),
      "}");
}

std::string FloatToText(float value) {
  return FloatBitsToString(PrimitiveType::kF32,
                           EncodeFromF32(PrimitiveType::kF32, value));
}

// Opcode-specific attributes, in XLA's order.
void AddOpcodeAttributes(const HloInstruction& hlo, const PrintOptions& options,
                         AttributeList& out) {
  const HloAttributes& a = hlo.attrs();
  switch (hlo.opcode()) {
    case HloOpcode::kParameter:
      if (a.parameter_replication.has_value()) {
        out.Add("parameter_replication",
                absl::StrCat("{",
                             absl::StrJoin(*a.parameter_replication, ",",
                                           [](std::string* o, bool b) {
                                             absl::StrAppend(
                                                 o, b ? "true" : "false");
                                           }),
                             "}"));
      }
      break;
    case HloOpcode::kGetTupleElement:
      out.Add("index", absl::StrCat(hlo.tuple_index()));
      break;
    case HloOpcode::kIota:
      out.Add("iota_dimension", absl::StrCat(hlo.iota_dimension()));
      break;
    case HloOpcode::kReshape:
      if (hlo.inferred_dimension() != -1) {
        out.Add("inferred_dimension", absl::StrCat(hlo.inferred_dimension()));
      }
      break;
    case HloOpcode::kSlice:
      out.Add("slice", SliceToString(a.slice));
      break;
    case HloOpcode::kDynamicSlice:
      out.Add("dynamic_slice_sizes", BracedList(a.dynamic_slice_sizes));
      break;
    case HloOpcode::kPad:
      out.Add("padding", a.padding.ToString());
      break;
    case HloOpcode::kCompare:
      out.Add("direction", ComparisonDirectionString(a.direction));
      if (hlo.operand_count() > 0 &&
          a.comparison_type !=
              DefaultComparisonType(hlo.operand(0)->shape().element_type())) {
        out.Add("type", ComparisonTypeString(a.comparison_type));
      }
      break;
    case HloOpcode::kConvolution:
      AddConvolutionLike(a, out);
      if (!a.conv->kind.empty()) out.Add("conv_kind", a.conv->kind);
      AddPrecision(a, out);
      break;
    case HloOpcode::kDot:
    case HloOpcode::kScaledDot:
    case HloOpcode::kRaggedDot:
      AddDotDims(a.dot->dnums, out);
      if (!a.dot->lhs_ragged_dims.empty()) {
        out.Add("lhs_ragged_dims", BracedList(a.dot->lhs_ragged_dims));
      }
      if (!a.dot->rhs_group_dims.empty()) {
        out.Add("rhs_group_dims", BracedList(a.dot->rhs_group_dims));
      }
      AddPrecision(a, out);
      if (!a.dot->algorithm.empty()) out.Add("algorithm", a.dot->algorithm);
      break;
    case HloOpcode::kReduceWindow:
    case HloOpcode::kSelectAndScatter:
      if (a.window.has_value() && !a.window->dimensions.empty()) {
        out.Add("window", absl::StrCat("{", a.window->ToString(), "}"));
      }
      break;
    case HloOpcode::kGather: {
      const GatherDimensionNumbers& g = a.gather_scatter->gather;
      out.Add("offset_dims", BracedList(g.offset_dims));
      out.Add("collapsed_slice_dims", BracedList(g.collapsed_slice_dims));
      out.Add("start_index_map", BracedList(g.start_index_map));
      if (!g.operand_batching_dims.empty()) {
        out.Add("operand_batching_dims", BracedList(g.operand_batching_dims));
      }
      if (!g.start_indices_batching_dims.empty()) {
        out.Add("start_indices_batching_dims",
                BracedList(g.start_indices_batching_dims));
      }
      out.Add("index_vector_dim", absl::StrCat(g.index_vector_dim));
      out.Add("slice_sizes", BracedList(a.gather_scatter->slice_sizes));
      if (a.gather_scatter->indices_are_sorted)
        out.Add("indices_are_sorted", "true");
      break;
    }
    case HloOpcode::kScatter: {
      const ScatterDimensionNumbers& s = a.gather_scatter->scatter;
      out.Add("update_window_dims", BracedList(s.update_window_dims));
      out.Add("inserted_window_dims", BracedList(s.inserted_window_dims));
      out.Add("scatter_dims_to_operand_dims",
              BracedList(s.scatter_dims_to_operand_dims));
      if (!s.input_batching_dims.empty()) {
        out.Add("input_batching_dims", BracedList(s.input_batching_dims));
      }
      if (!s.scatter_indices_batching_dims.empty()) {
        out.Add("scatter_indices_batching_dims",
                BracedList(s.scatter_indices_batching_dims));
      }
      out.Add("index_vector_dim", absl::StrCat(s.index_vector_dim));
      if (a.gather_scatter->indices_are_sorted)
        out.Add("indices_are_sorted", "true");
      if (a.gather_scatter->unique_indices) out.Add("unique_indices", "true");
      break;
    }
    case HloOpcode::kFft:
      out.Add("fft_type", FftTypeString(a.fft_type));
      out.Add("fft_length", BracedList(a.fft_length));
      break;
    case HloOpcode::kRng:
      out.Add("distribution", RandomDistributionString(a.distribution));
      break;
    case HloOpcode::kRngBitGenerator:
      out.Add("algorithm", RandomAlgorithmString(a.rng_algorithm));
      break;
    case HloOpcode::kRngGetAndUpdateState:
      out.Add("delta", absl::StrCat(a.delta));
      break;
    case HloOpcode::kReducePrecision:
      out.Add("exponent_bits", absl::StrCat(a.exponent_bits));
      out.Add("mantissa_bits", absl::StrCat(a.mantissa_bits));
      break;
    case HloOpcode::kBatchNormTraining:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormGrad:
      out.Add("epsilon", FloatToText(a.epsilon));
      out.Add("feature_index", absl::StrCat(a.feature_index));
      break;
    case HloOpcode::kTriangularSolve:
      if (a.left_side) out.Add("left_side", "true");
      if (a.lower) out.Add("lower", "true");
      if (a.unit_diagonal) out.Add("unit_diagonal", "true");
      if (a.transpose_a != TriangularSolveTranspose::kInvalid) {
        out.Add("transpose_a", TriangularSolveTransposeString(a.transpose_a));
      }
      break;
    case HloOpcode::kCholesky:
      if (a.lower) out.Add("lower", "true");
      break;
    case HloOpcode::kSort:
      out.Add("dimensions", BracedList(hlo.dimensions()));
      if (a.is_stable) out.Add("is_stable", "true");
      break;
    case HloOpcode::kTopK:
      out.Add("k", absl::StrCat(a.k));
      out.Add("largest", a.largest ? "true" : "false");
      break;
    case HloOpcode::kFusion:
      out.Add("kind", FusionKindString(a.fusion_kind));
      if (!a.output_to_operand_aliasing.empty()) {
        out.Add("output_to_operand_aliasing",
                OutputOperandAliasingToString(a.output_to_operand_aliasing));
      }
      break;
    case HloOpcode::kCall:
      break;  // to_apply, then is_composite (AddCalledComputations).
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
      AddChannelAndGroups(a, out);
      out.Add("dimensions", BracedList(hlo.dimensions()));
      if (a.collective->use_global_device_ids)
        out.Add("use_global_device_ids", "true");
      break;
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kCollectiveReduce:
      AddChannelAndGroups(a, out);
      if (a.collective->use_global_device_ids)
        out.Add("use_global_device_ids", "true");
      if (hlo.has_dimensions())
        out.Add("dimensions", BracedList(hlo.dimensions()));
      if (!a.collective->mode.empty()) out.Add("mode", a.collective->mode);
      break;
    case HloOpcode::kAllToAll:
    case HloOpcode::kRaggedAllToAll:
      AddChannelAndGroups(a, out);
      if (hlo.has_dimensions())
        out.Add("dimensions", BracedList(hlo.dimensions()));
      break;
    case HloOpcode::kCollectiveBroadcast:
      AddChannelAndGroups(a, out);
      break;
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
      if (a.channel_id.has_value()) {
        out.Add("channel_id", absl::StrCat(*a.channel_id));
      }
      out.Add("source_target_pairs",
              PairsToString(a.collective->source_target_pairs));
      if (!a.collective->permute_slice_sizes.empty()) {
        out.Add("slice_sizes",
                ListListToString(a.collective->permute_slice_sizes));
      }
      break;
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
      if (a.channel_id.has_value()) {
        out.Add("channel_id", absl::StrCat(*a.channel_id));
      }
      if (a.is_host_transfer) out.Add("is_host_transfer", "true");
      break;
    case HloOpcode::kInfeed:
      if (!a.feed->infeed_config.empty())
        out.Add("infeed_config", Quoted(a.feed->infeed_config));
      break;
    case HloOpcode::kOutfeed:
      if (a.feed->outfeed_shape.has_value()) {
        out.Add("outfeed_shape", a.feed->outfeed_shape->ToString(true));
      }
      if (!a.feed->outfeed_config.empty()) {
        out.Add("outfeed_config", Quoted(a.feed->outfeed_config));
      }
      break;
    case HloOpcode::kCustomCall:
      // XLA's order: the convolution-like fields, then the target.
      AddConvolutionLike(a, out);
      AddPrecision(a, out);
      if (a.conv->padding_type != PaddingType::kInvalid) {
        out.Add("padding_type", PaddingTypeString(a.conv->padding_type));
      }
      out.Add("custom_call_target", Quoted(a.custom_call->target));
      if (a.custom_call->operand_layout_constraints.has_value()) {
        std::vector<std::string> shapes;
        for (const Shape& s : *a.custom_call->operand_layout_constraints) {
          shapes.push_back(s.ToString(true));
        }
        out.Add("operand_layout_constraints",
                absl::StrCat("{", absl::StrJoin(shapes, ", "), "}"));
      }
      if (a.custom_call->has_side_effect) {
        out.Add("custom_call_has_side_effect", "true");
      }
      if (a.literal.has_value()) {
        out.Add("literal", a.literal->ToStringWithLayout());
      }
      if (!a.output_to_operand_aliasing.empty()) {
        out.Add("output_to_operand_aliasing",
                OutputOperandAliasingToString(a.output_to_operand_aliasing));
      }
      if (a.custom_call->schedule != CustomCallSchedule::kNone) {
        out.Add("schedule", CustomCallScheduleString(a.custom_call->schedule));
      }
      if (a.custom_call->api_version != CustomCallApiVersion::kOriginal) {
        out.Add("api_version",
                CustomCallApiVersionString(a.custom_call->api_version));
      }
      break;
    case HloOpcode::kAsyncStart:
      if (a.async_execution_thread() != "main") {
        out.Add("async_execution_thread", Quoted(a.async_execution_thread()));
      }
      if (!a.output_to_operand_aliasing.empty()) {
        out.Add("output_to_operand_aliasing",
                OutputOperandAliasingToString(a.output_to_operand_aliasing));
      }
      break;
    case HloOpcode::kCopyStart:
      if (a.cross_program_prefetch_index.has_value()) {
        out.Add("cross_program_prefetch_index",
                absl::StrCat(*a.cross_program_prefetch_index));
      }
      break;
    case HloOpcode::kScan:
      out.Add("dimensions", BracedList(hlo.dimensions()));
      out.Add("num_carries", absl::StrCat(a.num_carries));
      if (a.is_reverse) out.Add("is_reverse", "true");
      // XLA's parser always sets it, so XLA prints it either way.
      out.Add("is_associative", a.is_associative ? "true" : "false");
      break;
    case HloOpcode::kDomain:
      out.Add("domain",
              absl::StrCat(
                  "{kind=", Quoted(a.domain->kind), ", entry=",
                  a.domain->entry ? a.domain->entry->ToString() : "{}",
                  ", exit=", a.domain->exit ? a.domain->exit->ToString() : "{}",
                  "}"));
      break;
    default:
      if (hlo.has_dimensions())
        out.Add("dimensions", BracedList(hlo.dimensions()));
      break;
  }
  (void)options;
}

// "{%a, %b}".
std::string ComputationList(const std::vector<HloComputation*>& called) {
  return absl::StrCat(
      "{",
      absl::StrJoin(called, ", ",
                    [](std::string* o, const HloComputation* c) {
                      absl::StrAppend(o, ComputationName(c));
                    }),
      "}");
}

void AddCalledComputations(const HloInstruction& hlo, AttributeList& out) {
  const auto& called = hlo.called_computations();
  if (called.empty()) return;
  switch (hlo.opcode()) {
    case HloOpcode::kWhile:
      if (called.size() > 1) out.Add("condition", ComputationName(called[1]));
      out.Add("body", ComputationName(called[0]));
      return;
    case HloOpcode::kConditional:
      if (hlo.operand_count() > 0 &&
          hlo.operand(0)->shape().element_type() == PrimitiveType::kPred &&
          called.size() == 2) {
        out.Add("true_computation", ComputationName(called[0]));
        out.Add("false_computation", ComputationName(called[1]));
      } else {
        out.Add("branch_computations", ComputationList(called));
      }
      return;
    case HloOpcode::kSelectAndScatter:
      out.Add("select", ComputationName(called[0]));
      if (called.size() > 1) out.Add("scatter", ComputationName(called[1]));
      return;
    case HloOpcode::kFusion:
    case HloOpcode::kAsyncStart:
      out.Add("calls", ComputationName(called[0]));
      return;
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
      return;  // Inherited from the async-start.
    case HloOpcode::kCustomCall:
      // XLA prints the list form even for one callee (to_apply= reads too).
      out.Add("called_computations", ComputationList(called));
      return;
    default:
      if (hlo.to_apply() != nullptr) {
        out.Add("to_apply", ComputationName(called[0]));
        if (hlo.opcode() == HloOpcode::kCall && hlo.attrs().is_composite) {
          out.Add("is_composite", "true");
        }
      } else {
        out.Add("calls",
                absl::StrJoin(called, ", ",
                              [](std::string* o, const HloComputation* c) {
                                absl::StrAppend(o, ComputationName(c));
                              }));
      }
      return;
  }
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
  if (wrapped != nullptr) {
    AddOpcodeAttributes(*wrapped, options, attrs);
    AddCalledComputations(*wrapped, attrs);
    AddOpcodeAttributes(hlo, options, attrs);
  } else {
    AddOpcodeAttributes(hlo, options, attrs);
    if (!(hlo.async_sugar().has_value() &&
          hlo.opcode() != HloOpcode::kAsyncStart)) {
      AddCalledComputations(hlo, attrs);
    }
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
