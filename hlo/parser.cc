// The HLO text parser: module header, computations, instructions, operands
// and the attribute table. Value grammars are in parser_values.cc.

#include "hlo/parser.h"

#include <algorithm>
#include <functional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "hlo/parser_impl.h"
#include "hlo/shape_inference.h"

namespace xlite {
namespace parser_internal {
namespace {

constexpr int kMaxInstructionNesting = 100;

// Attributes any instruction may carry.
bool IsCommonAttribute(absl::string_view name) {
  return name == "sharding" || name == "frontend_attributes" ||
         name == "metadata" || name == "backend_config" ||
         name == "control-predecessors" || name == "statistics" ||
         name == "statistics_viz" || name == "origin" ||
         name == "original_value" || name == "result_accuracy";
}

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

bool Allowed(HloOpcode opcode, absl::string_view name) {
  const auto& allowed = AttributeSpec(opcode).allowed;
  return std::find(allowed.begin(), allowed.end(), name) != allowed.end();
}

// Number of called-computation slots an opcode has before attributes fill
// them (while: condition, body).
int CalledSlots(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kWhile:
    case HloOpcode::kSelectAndScatter:
      return 2;
    case HloOpcode::kFusion:
    case HloOpcode::kCall:
    case HloOpcode::kMap:
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kSort:
    case HloOpcode::kScatter:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kCollectiveReduce:
    case HloOpcode::kScan:
    case HloOpcode::kAsyncStart:
      return 1;
    default:
      return 0;
  }
}

}  // namespace

Parser::Parser(absl::string_view text, const ParseOptions& options)
    : scanner_(text, options.filename, options.line_offset), options_(options) {}

// ----------------------------------------------------------------- module

absl::StatusOr<std::unique_ptr<HloModule>> Parser::ParseModule() {
  auto module = std::make_unique<HloModule>("module");
  module->set_source_name(options_.filename);
  module_ = module.get();
  TextScanner& s = scanner_;
  if (s.AtEnd()) {
    s.Error("empty input: expected 'HloModule name'");
    return s.status();
  }
  const size_t header_pos = s.Position();
  bool has_header = false;
  if (s.PeekIdentifier() == "HloModule") {
    s.ReadIdentifier();
    has_header = true;
    if (!ParseModuleHeader(module.get())) return s.status();
  }
  if (!ParseStackFrameIndex(module.get())) return s.status();
  while (!s.AtEnd() && !s.has_error()) {
    if (!ParseComputation(module.get())) return s.status();
  }
  if (s.has_error()) return s.status();
  if (pending_computations_.empty()) {
    s.ErrorAt(header_pos, "module has no computations");
    return s.status();
  }
  // Add computations in file order; the ENTRY one (or the last) is the entry.
  HloComputation* entry = nullptr;
  for (auto& c : pending_computations_) {
    HloComputation* raw = module->AddComputation(std::move(c));
    if (!entry_name_.empty() && raw->name() == entry_name_) entry = raw;
  }
  pending_computations_.clear();
  if (entry == nullptr) {
    // No ENTRY: the last non-wrapper computation.
    for (HloComputation* c : module->computations()) {
      if (!c->is_sugared_async_wrapper()) entry = c;
    }
  }
  module->set_entry_computation(entry);
  if (!has_header) module->set_name(absl::StrCat("module_", entry->name()));
  if (!ResolveComputationRefs(module.get())) return s.status();
  if (!CheckCallGraphAcyclic(module.get())) return s.status();
  // Like XLA, a module always has an entry computation layout: when the
  // header does not give one, it is the entry's parameter and root shapes.
  HloModuleConfig& config = module->config();
  if (!config.entry_parameter_layouts.has_value()) {
    config.entry_parameter_layouts = module->EntryParameterLayouts();
  }
  if (!config.entry_result_layout.has_value()) {
    config.entry_result_layout = module->EntryResultLayout();
  }
  return module;
}

bool Parser::ParseModuleHeader(HloModule* module) {
  TextScanner& s = scanner_;
  const size_t name_pos = s.Position();
  std::string name = s.ReadName();
  if (name.empty() || name == "ENTRY") {
    return s.ErrorAt(name_pos, "expected a module name after HloModule");
  }
  module->set_name(name);
  HloModuleConfig& config = module->config();
  absl::flat_hash_set<std::string> seen;
  while (s.Consume(',')) {
    const size_t p = s.Position();
    std::string key = s.ReadIdentifier();
    if (key.empty()) return s.ErrorAt(p, "expected a module attribute name");
    if (!s.Expect('=', What("after module attribute ", key))) return false;
    if (!seen.insert(key).second) {
      return s.ErrorAt(p, absl::StrCat("module attribute '", key,
                                       "' appears more than once"));
    }
    if (key == "is_scheduled") {
      if (!s.ReadBool(&config.is_scheduled, "for is_scheduled")) return false;
    } else if (key == "alias_passthrough_params") {
      if (!s.ReadBool(&config.alias_passthrough_params,
                      "for alias_passthrough_params")) {
        return false;
      }
    } else if (key == "replica_count") {
      if (!s.ReadInt64(&config.replica_count, "for replica_count")) return false;
      if (config.replica_count < 1) return s.ErrorAt(p, "replica_count must be >= 1");
    } else if (key == "num_partitions") {
      if (!s.ReadInt64(&config.num_partitions, "for num_partitions")) return false;
      if (config.num_partitions < 1) {
        return s.ErrorAt(p, "num_partitions must be >= 1");
      }
    } else if (key == "entry_computation_layout") {
      std::vector<Shape> params;
      Shape result;
      if (!s.Expect('{', "to start entry_computation_layout") ||
          !s.Expect('(', "before the parameter layouts")) {
        return false;
      }
      if (!s.Consume(')')) {
        do {
          Shape shape;
          if (!ParseShape(&shape)) return false;
          params.push_back(std::move(shape));
        } while (s.Consume(','));
        if (!s.Expect(')', "after the parameter layouts")) return false;
      }
      if (!s.ConsumeString("->")) return s.Error("expected '->' in entry_computation_layout");
      if (!ParseShape(&result) ||
          !s.Expect('}', "to close entry_computation_layout")) {
        return false;
      }
      config.entry_parameter_layouts = std::move(params);
      config.entry_result_layout = std::move(result);
    } else if (key == "input_output_alias") {
      if (!s.Expect('{', "to start input_output_alias")) return false;
      if (!s.Consume('}')) {
        do {
          InputOutputAlias alias;
          if (!ParseShapeIndex(&alias.output_index) ||
              !s.Expect(':', "in input_output_alias") ||
              !s.Expect('(', "in input_output_alias") ||
              !s.ReadInt64(&alias.parameter_number, "as the parameter number") ||
              !s.Expect(',', "in input_output_alias") ||
              !ParseShapeIndex(&alias.parameter_index)) {
            return false;
          }
          if (s.Consume(',')) {
            const size_t q = s.Position();
            std::string kind = s.ReadIdentifier();
            if (kind == "must-alias") {
              alias.must_alias = true;
            } else if (kind != "may-alias") {
              return s.ErrorAt(q, "expected may-alias or must-alias");
            }
          }
          if (!s.Expect(')', "in input_output_alias")) return false;
          config.input_output_alias.push_back(std::move(alias));
        } while (s.Consume(','));
        if (!s.Expect('}', "to close input_output_alias")) return false;
      }
    } else if (key == "buffer_donor") {
      if (!s.Expect('{', "to start buffer_donor")) return false;
      if (!s.Consume('}')) {
        do {
          BufferDonor donor;
          if (!s.Expect('(', "in buffer_donor") ||
              !s.ReadInt64(&donor.parameter_number, "as the parameter number") ||
              !s.Expect(',', "in buffer_donor") ||
              !ParseShapeIndex(&donor.parameter_index) ||
              !s.Expect(')', "in buffer_donor")) {
            return false;
          }
          config.buffer_donor.push_back(std::move(donor));
        } while (s.Consume(','));
        if (!s.Expect('}', "to close buffer_donor")) return false;
      }
    } else if (key == "allow_spmd_sharding_propagation_to_parameters") {
      if (!ParseBoolList(&config.allow_spmd_sharding_propagation_to_parameters,
                         true)) {
        return false;
      }
    } else if (key == "allow_spmd_sharding_propagation_to_output") {
      if (!ParseBoolList(&config.allow_spmd_sharding_propagation_to_output,
                         true)) {
        return false;
      }
    } else if (key == "frontend_attributes") {
      if (!ParseFrontendAttributes(&config.frontend_attributes)) return false;
    } else if (key == "origin_recovery_table") {
      std::string raw;
      if (!ParseRawValue(&raw)) return false;
      config.kept_attributes.push_back({key, raw});
    } else {
      return s.ErrorAt(p, absl::StrCat(
                              "unknown module attribute '", key,
                              "'; expected is_scheduled, input_output_alias, "
                              "buffer_donor, alias_passthrough_params, "
                              "entry_computation_layout, "
                              "allow_spmd_sharding_propagation_to_parameters, "
                              "allow_spmd_sharding_propagation_to_output, "
                              "replica_count, num_partitions, "
                              "frontend_attributes"));
    }
  }
  return true;
}

bool Parser::ParseStackFrameIndex(HloModule* module) {
  TextScanner& s = scanner_;
  if (s.PeekIdentifier() != "FileNames") return true;
  const size_t start = s.Position();
  s.ReadIdentifier();
  // FileNames / FunctionNames: "N "string"" lines; FileLocations and
  // StackFrames: "N {k=v ...}" lines. Kept verbatim.
  auto skip_entries = [&](bool braced) {
    while (true) {
      const size_t p = s.Position();
      int64_t index;
      const char c = s.Peek();
      if (!(c >= '0' && c <= '9')) return true;
      if (!s.ReadInt64(&index, "in the stack frame index")) return false;
      std::string ignored;
      if (braced ? !s.ReadBalancedBraces(&ignored, "in the stack frame index")
                 : !s.ReadQuotedString(&ignored, "in the stack frame index")) {
        return s.ErrorAt(p, "malformed stack frame index entry");
      }
    }
  };
  if (!skip_entries(false)) return false;
  for (const char* section : {"FunctionNames", "FileLocations", "StackFrames"}) {
    if (s.ReadIdentifier() != section) {
      return s.Error(absl::StrCat("expected '", section,
                                  "' in the stack frame index"));
    }
    if (!skip_entries(std::string(section) != "FunctionNames")) return false;
  }
  module->config().stack_frame_index =
      std::string(s.Slice(start, s.RawPosition()));
  return true;
}

// ------------------------------------------------------------ computation

bool Parser::ParseComputation(HloModule* module) {
  TextScanner& s = scanner_;
  (void)module;
  const bool is_entry = s.PeekIdentifier() == "ENTRY";
  const size_t entry_pos = s.Position();
  if (is_entry) s.ReadIdentifier();
  const size_t name_pos = s.Position();
  std::string name = s.ReadName();
  if (name.empty()) {
    return s.ErrorAt(name_pos, is_entry ? "expected a computation name after ENTRY"
                                        : "expected a computation name");
  }
  if (name == "HloModule" && !is_entry) {
    return s.ErrorAt(name_pos,
                     "a second 'HloModule' in one input; separate modules with "
                     "a line '// -----' and use --split-input-file");
  }
  if (computations_by_name_.contains(name)) {
    auto [line, col] = s.LineColumn(computation_positions_[name]);
    return s.ErrorAt(name_pos, absl::StrCat("computation '", name,
                                            "' is already defined at line ",
                                            line, ":", col));
  }
  if (is_entry && !entry_name_.empty()) {
    return s.ErrorAt(entry_pos, absl::StrCat("more than one ENTRY computation "
                                             "(the first is '",
                                             entry_name_, "')"));
  }
  auto computation = std::make_unique<HloComputation>(name);
  {
    auto [line, col] = s.LineColumn(name_pos);
    computation->set_location({line, col});
  }
  // Optional signature "(p: shape, ...) -> shape".
  std::optional<Shape> declared_result;
  size_t signature_pos = 0;
  if (s.Peek() == '(') {
    signature_pos = s.Position();
    s.Consume('(');
    if (!s.Consume(')')) {
      do {
        const size_t p = s.Position();
        std::string param = s.ReadName();
        if (param.empty()) return s.ErrorAt(p, "expected a parameter name");
        if (!s.Expect(':', "after a parameter name")) return false;
        Shape ignored;
        if (!ParseShape(&ignored)) return false;
      } while (s.Consume(','));
      if (!s.Expect(')', "to close the parameter list")) return false;
    }
    if (!s.ConsumeString("->")) {
      return s.Error("expected '->' after the computation's parameter list");
    }
    Shape result;
    if (!ParseShape(&result)) return false;
    declared_result = std::move(result);
  }
  if (!s.Expect('{', What("to start the body of computation ", name))) {
    return false;
  }
  names_.clear();
  anonymous_.clear();
  HloComputation* raw = computation.get();
  // Register early so instructions can call it (a cycle is diagnosed later).
  computations_by_name_[name] = raw;
  computation_positions_[name] = name_pos;
  if (is_entry) entry_name_ = name;
  pending_computations_.push_back(std::move(computation));

  HloInstruction* root = nullptr;
  size_t root_pos = 0;
  HloInstruction* last = nullptr;
  while (s.Peek() != '}') {
    if (s.AtEnd()) {
      return s.Error(absl::StrCat("unexpected end of input in computation ",
                                  name, "; expected '}'"));
    }
    const size_t p = s.Position();
    bool is_root = false;
    HloInstruction* instruction = nullptr;
    if (!ParseInstruction(raw, &is_root, &instruction)) return false;
    last = instruction;
    if (is_root) {
      if (root != nullptr) {
        auto [line, col] = s.LineColumn(root_pos);
        return s.ErrorAt(p, absl::StrCat("computation ", name,
                                         " has a second ROOT (the first is at "
                                         "line ",
                                         line, ":", col, ")"));
      }
      root = instruction;
      root_pos = p;
    }
  }
  s.Consume('}');
  if (last == nullptr) {
    return s.ErrorAt(name_pos, absl::StrCat("computation ", name,
                                            " has no instructions"));
  }
  raw->set_root_instruction(root != nullptr ? root : last);
  // Parameters must be numbered 0..n-1.
  for (int64_t i = 0; i < raw->num_parameters(); ++i) {
    if (raw->parameter_instruction(i) == nullptr) {
      return s.ErrorAt(name_pos, absl::StrCat("computation ", name,
                                              " has no parameter(", i,
                                              ") but has parameter(",
                                              raw->num_parameters() - 1, ")"));
    }
  }
  if (declared_result.has_value() &&
      !ShapesCompatible(*declared_result, raw->root_instruction()->shape())) {
    return s.ErrorAt(signature_pos,
                     absl::StrCat("computation ", name, " declares result ",
                                  declared_result->ToString(false),
                                  " but its root ",
                                  raw->root_instruction()->name(), " has shape ",
                                  raw->root_instruction()->shape().ToString(false)));
  }
  // ", execution_thread="...""
  const size_t after = s.RawPosition();
  if (s.Consume(',')) {
    const size_t p = s.Position();
    std::string key = s.ReadIdentifier();
    if (key != "execution_thread") {
      // Not ours: a computation attribute we do not know.
      return s.ErrorAt(p, absl::StrCat("unknown computation attribute '", key,
                                       "'; expected execution_thread"));
    }
    std::string thread;
    if (!s.Expect('=', "after execution_thread") ||
        !s.ReadQuotedString(&thread, "for execution_thread")) {
      return false;
    }
    raw->set_execution_thread(thread);
  } else {
    s.Reset(after);
  }
  return true;
}

// ------------------------------------------------------------ instructions

bool Parser::ParseInstruction(HloComputation* computation, bool* is_root,
                              HloInstruction** instruction) {
  TextScanner& s = scanner_;
  if (s.PeekIdentifier() == "ROOT") {
    s.ReadIdentifier();
    *is_root = true;
  }
  const size_t name_pos = s.Position();
  std::string name = s.ReadName();
  if (name.empty()) {
    return s.ErrorAt(name_pos, "expected an instruction name (or '}' to end the "
                               "computation)");
  }
  if (!s.Expect('=', What("after instruction name ", name))) return false;
  *instruction = ParseInstructionRhs(computation, name, name_pos, true);
  return *instruction != nullptr;
}

std::string Parser::UniqueAnonymousName(HloComputation* computation,
                                        absl::string_view base) {
  (void)computation;
  while (true) {
    std::string name = anonymous_counter_ == 0
                           ? absl::StrCat(base, ".anon")
                           : absl::StrCat(base, ".anon.", anonymous_counter_);
    ++anonymous_counter_;
    if (!names_.contains(name)) return name;
  }
}

HloInstruction* Parser::AddNamedInstruction(
    HloComputation* computation, std::unique_ptr<HloInstruction> instruction,
    std::string name, size_t position) {
  TextScanner& s = scanner_;
  const bool anonymous = name.empty();
  if (anonymous) {
    name = UniqueAnonymousName(computation, HloOpcodeString(instruction->opcode()));
  }
  auto it = names_.find(name);
  if (it != names_.end()) {
    HloInstruction* existing = it->second.first;
    if (anonymous_.contains(existing)) {
      // A generated name collides with a written one: rename the generated.
      std::string fresh = UniqueAnonymousName(
          computation, HloOpcodeString(existing->opcode()));
      existing->set_name(fresh);
      names_[fresh] = it->second;
      names_.erase(name);
    } else {
      auto [line, col] = s.LineColumn(it->second.second);
      s.ErrorAt(position, absl::StrCat("instruction name '", name,
                                       "' is already used in this computation "
                                       "(line ",
                                       line, ":", col, ")"));
      return nullptr;
    }
  }
  instruction->set_name(name);
  auto [line, col] = s.LineColumn(position);
  instruction->set_location({line, col});
  HloInstruction* raw = computation->AddInstruction(std::move(instruction));
  names_[name] = {raw, position};
  positions_[raw] = position;
  if (anonymous) anonymous_.insert(raw);
  return raw;
}

// True if `name` is defined by an instruction line later in the current
// computation body (used to say "used before its definition").
static bool DefinedLater(absl::string_view text, size_t from,
                         absl::string_view name) {
  size_t pos = text.find('\n', from);
  while (pos != absl::string_view::npos) {
    size_t line_start = pos + 1;
    size_t line_end = text.find('\n', line_start);
    absl::string_view line = text.substr(
        line_start, line_end == absl::string_view::npos ? absl::string_view::npos
                                                        : line_end - line_start);
    absl::string_view trimmed = absl::StripLeadingAsciiWhitespace(line);
    if (absl::StartsWith(trimmed, "}")) return false;
    absl::ConsumePrefix(&trimmed, "ROOT ");
    trimmed = absl::StripLeadingAsciiWhitespace(trimmed);
    absl::ConsumePrefix(&trimmed, "%");
    if (absl::ConsumePrefix(&trimmed, name)) {
      trimmed = absl::StripLeadingAsciiWhitespace(trimmed);
      if (absl::StartsWith(trimmed, "=")) return true;
    }
    pos = line_end;
  }
  return false;
}

bool Parser::ParseOperands(HloComputation* computation,
                           std::vector<HloInstruction*>* operands) {
  TextScanner& s = scanner_;
  if (!s.Expect('(', "to start the operand list")) return false;
  if (s.Consume(')')) return true;
  do {
    const size_t p = s.Position();
    std::optional<Shape> written_shape;
    if (AtShape()) {
      Shape shape;
      if (!ParseShape(&shape)) return false;
      written_shape = std::move(shape);
    }
    // An inline instruction: [shape] opcode '(' ...
    const size_t after_shape = s.Position();
    std::string id = s.PeekIdentifier();
    bool inline_instruction = false;
    if (!id.empty() && s.text()[after_shape] != '%') {
      s.ReadIdentifier();
      const bool paren = s.Peek() == '(';
      s.Reset(after_shape);
      const bool is_op = StringToHloOpcode(id).has_value() ||
                         absl::EndsWith(id, "-start") ||
                         absl::EndsWith(id, "-done") ||
                         absl::EndsWith(id, "-update");
      inline_instruction = paren && is_op;
    }
    if (inline_instruction) {
      s.Reset(p);
      HloInstruction* inner = ParseInstructionRhs(computation, "", p, false);
      if (inner == nullptr) return false;
      operands->push_back(inner);
      continue;
    }
    const size_t name_pos = s.Position();
    std::string name = s.ReadName();
    if (name.empty()) {
      return s.ErrorAt(name_pos, "expected an operand name");
    }
    auto it = names_.find(name);
    if (it == names_.end()) {
      if (DefinedLater(s.text(), name_pos, name)) {
        return s.ErrorAt(name_pos, absl::StrCat("instruction '", name,
                                                "' is used before its "
                                                "definition"));
      }
      return s.ErrorAt(name_pos, absl::StrCat("instruction '", name,
                                              "' is not defined"));
    }
    HloInstruction* operand = it->second.first;
    if (written_shape.has_value() &&
        !ShapesCompatible(*written_shape, operand->shape())) {
      return s.ErrorAt(p, absl::StrCat("operand '", name, "' is written as ",
                                       written_shape->ToString(false),
                                       " but its shape is ",
                                       operand->shape().ToString(false)));
    }
    operands->push_back(operand);
  } while (s.Consume(','));
  return s.Expect(')', "to close the operand list");
}

HloInstruction* Parser::ParseInstructionRhs(HloComputation* computation,
                                            const std::string& name,
                                            size_t name_position,
                                            bool allow_attributes) {
  TextScanner& s = scanner_;
  if (++recursion_depth_ > kMaxInstructionNesting) {
    --recursion_depth_;
    s.Error("instructions nested too deeply");
    return nullptr;
  }
  struct DepthGuard {
    int* depth;
    ~DepthGuard() { --*depth; }
  } guard{&recursion_depth_};

  std::optional<Shape> shape;
  if (AtShape()) {
    Shape parsed;
    if (!ParseShape(&parsed)) return nullptr;
    shape = std::move(parsed);
  }
  const size_t opcode_pos = s.Position();
  const std::string opcode_text = s.ReadIdentifier();
  if (opcode_text.empty()) {
    s.ErrorAt(opcode_pos, shape.has_value() ? "expected an opcode after the shape"
                                            : "expected a shape or an opcode");
    return nullptr;
  }
  std::optional<HloOpcode> opcode = StringToHloOpcode(opcode_text);
  std::optional<HloOpcode> async_wrapped;
  if (!opcode.has_value() && !shape.has_value() && s.Peek() == '[') {
    s.ErrorAt(opcode_pos, absl::StrCat("unknown element type '", opcode_text,
                                       "'"));
    return nullptr;
  }
  if (!opcode.has_value()) {
    for (auto [suffix, async_op] :
         {std::pair<absl::string_view, HloOpcode>{"-start", HloOpcode::kAsyncStart},
          {"-update", HloOpcode::kAsyncUpdate},
          {"-done", HloOpcode::kAsyncDone}}) {
      if (absl::EndsWith(opcode_text, suffix)) {
        auto wrapped = StringToHloOpcode(
            opcode_text.substr(0, opcode_text.size() - suffix.size()));
        if (wrapped.has_value()) {
          opcode = async_op;
          async_wrapped = wrapped;
        }
        break;
      }
    }
  }
  if (!opcode.has_value()) {
    s.ErrorAt(opcode_pos, absl::StrCat("unknown opcode '", opcode_text, "'"));
    return nullptr;
  }
  if (!shape.has_value() && !CanInferShape(*opcode)) {
    s.ErrorAt(opcode_pos, absl::StrCat("the result shape of ", opcode_text,
                                       " cannot be inferred; write it before "
                                       "the opcode"));
    return nullptr;
  }

  std::unique_ptr<HloInstruction> instruction;
  std::vector<HloInstruction*> operands;
  const size_t operands_pos = s.Position();
  if (*opcode == HloOpcode::kParameter) {
    int64_t number;
    if (!s.Expect('(', "before the parameter number") ||
        !s.ReadInt64(&number, "as the parameter number")) {
      return nullptr;
    }
    if (number < 0) {
      s.ErrorAt(operands_pos, "parameter number must be >= 0");
      return nullptr;
    }
    if (!s.Expect(')', "after the parameter number")) return nullptr;
    if (number < computation->num_parameters() &&
        computation->parameter_instruction(number) != nullptr) {
      s.ErrorAt(operands_pos,
                absl::StrCat("parameter number ", number, " is already used by ",
                             computation->parameter_instruction(number)->name()));
      return nullptr;
    }
    instruction = HloInstruction::Create(HloOpcode::kParameter, *shape);
    instruction->set_index(number);
  } else if (*opcode == HloOpcode::kConstant) {
    if (!s.Expect('(', "before the constant's literal")) return nullptr;
    // The literal may repeat the shape: constant(f32[2] {1, 2}).
    if (AtShape() && !(shape->IsTuple() && s.Peek() == '(')) {
      const size_t p = s.Position();
      Shape written;
      if (!ParseShape(&written)) return nullptr;
      if (!ShapesCompatible(written, *shape)) {
        s.ErrorAt(p, absl::StrCat("the literal's shape ", written.ToString(false),
                                  " does not match the instruction's shape ",
                                  shape->ToString(false)));
        return nullptr;
      }
    }
    Literal literal;
    if (!ParseLiteralValue(*shape, &literal) ||
        !s.Expect(')', "after the constant's literal")) {
      return nullptr;
    }
    instruction = HloInstruction::Create(HloOpcode::kConstant, *shape);
    literal.mutable_shape_for_layout() = *shape;
    instruction->mutable_attrs().literal = std::move(literal);
  } else {
    if (!ParseOperands(computation, &operands)) return nullptr;
    const int arity = HloOpcodeArity(*opcode);
    if (!async_wrapped.has_value() && arity != kVariadic &&
        static_cast<int>(operands.size()) != arity) {
      s.ErrorAt(operands_pos, absl::StrCat(opcode_text, " expects ", arity,
                                           " operand", arity == 1 ? "" : "s",
                                           ", but has ", operands.size()));
      return nullptr;
    }
    instruction = HloInstruction::Create(*opcode, shape.value_or(Shape()),
                                         operands);
  }

  HloInstruction* wrapped = nullptr;
  if (async_wrapped.has_value()) {
    instruction->set_async_sugar(async_wrapped);
    if (*opcode == HloOpcode::kAsyncStart) {
      if (!shape->IsTuple() || shape->tuple_shapes_size() < 2 ||
          !shape->tuple_shapes(0).IsTuple()) {
        s.ErrorAt(opcode_pos, absl::StrCat(opcode_text,
                                           " expects a shape ((operands), "
                                           "result[, state])"));
        return nullptr;
      }
      std::string base = name.empty() ? opcode_text : name;
      std::string wrapper_name = absl::StrCat(base, ".wrapped");
      for (int i = 1; computations_by_name_.contains(wrapper_name); ++i) {
        wrapper_name = absl::StrCat(base, ".wrapped.", i);
      }
      auto wrapper = std::make_unique<HloComputation>(wrapper_name);
      wrapper->set_sugared_async_wrapper(true);
      std::vector<HloInstruction*> params;
      for (size_t i = 0; i < operands.size(); ++i) {
        auto param = HloInstruction::Create(HloOpcode::kParameter,
                                            operands[i]->shape());
        param->set_index(static_cast<int64_t>(i));
        param->set_name(absl::StrCat("async_param.", i));
        params.push_back(wrapper->AddInstruction(std::move(param)));
      }
      auto inner = HloInstruction::Create(*async_wrapped, shape->tuple_shapes(1),
                                          params);
      inner->set_name("async_op");
      inner->ResizeCalledComputations(CalledSlots(*async_wrapped));
      wrapped = wrapper->AddInstruction(std::move(inner));
      wrapper->set_root_instruction(wrapped);
      computations_by_name_[wrapper_name] = wrapper.get();
      computation_positions_[wrapper_name] = opcode_pos;
      instruction->AppendCalledComputation(wrapper.get());
      pending_computations_.push_back(std::move(wrapper));
    } else {
      HloInstruction* start = operands.size() == 1 ? operands[0] : nullptr;
      if (start == nullptr || (start->opcode() != HloOpcode::kAsyncStart &&
                               start->opcode() != HloOpcode::kAsyncUpdate)) {
        s.ErrorAt(operands_pos, absl::StrCat(opcode_text,
                                             " expects a single async-start or "
                                             "async-update operand"));
        return nullptr;
      }
      HloComputation* callee = start->async_wrapped_computation();
      if (callee == nullptr || callee->root_instruction() == nullptr ||
          callee->root_instruction()->opcode() != *async_wrapped) {
        s.ErrorAt(opcode_pos,
                  absl::StrCat(opcode_text, " does not match its operand ",
                               start->name(), ", which wraps ",
                               callee && callee->root_instruction()
                                   ? HloOpcodeString(
                                         callee->root_instruction()->opcode())
                                   : "nothing"));
        return nullptr;
      }
      instruction->AppendCalledComputation(callee);
    }
  } else {
    instruction->ResizeCalledComputations(CalledSlots(*opcode));
    if ((*opcode == HloOpcode::kAsyncUpdate || *opcode == HloOpcode::kAsyncDone) &&
        operands.size() == 1 &&
        (operands[0]->opcode() == HloOpcode::kAsyncStart ||
         operands[0]->opcode() == HloOpcode::kAsyncUpdate)) {
      instruction->AppendCalledComputation(
          operands[0]->async_wrapped_computation());
    }
  }

  HloInstruction* raw = instruction.get();
  if (allow_attributes) {
    if (!ParseAttributes(raw, wrapped, opcode_pos)) return nullptr;
  } else {
    absl::flat_hash_set<std::string> none;
    if (!CheckRequiredAttributes(raw, none, opcode_pos)) return nullptr;
  }
  if (wrapped != nullptr) {
    wrapped->set_metadata(raw->metadata());
    wrapped->set_backend_config(raw->backend_config());
    if (raw->has_frontend_attributes()) {
      wrapped->set_frontend_attributes(raw->frontend_attributes());
    }
  }
  if (!FinishInstruction(raw, opcode_pos)) return nullptr;
  if (wrapped != nullptr && !FinishInstruction(wrapped, opcode_pos)) {
    return nullptr;
  }
  if (!shape.has_value() && !InferMissingShape(raw, opcode_pos)) return nullptr;
  return AddNamedInstruction(computation, std::move(instruction), name,
                             name.empty() ? opcode_pos : name_position);
}

// -------------------------------------------------------------- attributes

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
      return s.ErrorAt(p, absl::StrCat("attribute '", name,
                                       "' is given more than once"));
    }
    if (!ParseOneAttribute(instruction, wrapped, name, p)) return false;
  }
  if (!CheckRequiredAttributes(wrapped != nullptr ? wrapped : instruction, seen,
                               start)) {
    return false;
  }
  if (wrapped != nullptr && !CheckRequiredAttributes(instruction, seen, start)) {
    return false;
  }
  return true;
}

bool Parser::CheckRequiredAttributes(HloInstruction* instruction,
                                     const absl::flat_hash_set<std::string>& seen,
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
    if (opcode == HloOpcode::kAsyncStart && instruction->async_sugar()) continue;
    return s.ErrorAt(position, absl::StrCat(HloOpcodeString(opcode),
                                            " requires attribute '", required,
                                            "'"));
  }
  if (opcode == HloOpcode::kConditional &&
      !seen.contains("branch_computations") &&
      !(seen.contains("true_computation") && seen.contains("false_computation"))) {
    return s.ErrorAt(position,
                     "conditional requires branch_computations= or both "
                     "true_computation= and false_computation=");
  }
  return true;
}

bool Parser::ParseComputationRef(HloInstruction* instruction, int64_t slot) {
  TextScanner& s = scanner_;
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
      return s.ErrorAt(p, absl::StrCat("instruction '", name,
                                       "' is not defined"));
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
    if (!ParseInstructionNames(instruction->parent(), &predecessors)) return false;
    for (HloInstruction* predecessor : predecessors) {
      absl::Status status = predecessor->AddControlDependencyTo(instruction);
      if (!status.ok()) return s.ErrorAt(position, status.message());
    }
    return true;
  }
  if (IsKeptAttribute(name)) {
    std::string raw;
    if (!ParseRawValue(&raw)) return false;
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
    return s.ErrorAt(position, absl::StrCat("unexpected attribute '", name,
                                            "' for ", op,
                                            " (it takes only common attributes "
                                            "like metadata, sharding, "
                                            "backend_config)"));
  }
  return s.ErrorAt(position, absl::StrCat("unexpected attribute '", name, "' for ",
                                          op, "; valid: ",
                                          absl::StrJoin(valid, ", ")));
}

bool Parser::ParseOpcodeAttribute(HloInstruction* hlo, const std::string& name,
                                  size_t position, bool* handled) {
  TextScanner& s = scanner_;
  *handled = true;
  const HloOpcode opcode = hlo->opcode();
  auto ints = [&](std::vector<int64_t>* out) {
    return ParseBracedInts(out, name);
  };
  auto int64 = [&](int64_t* out) { return s.ReadInt64(out, What("for ", name)); };
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
    a.window = std::move(window);
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
  if (name == "operand_precision") return ParsePrecisionList(&a.operand_precision);
  if (name == "algorithm") {
    if (opcode == HloOpcode::kRngBitGenerator) {
      return ParseEnum(&a.rng_algorithm, &ParseRandomAlgorithm,
                       "rng algorithm (rng_default, rng_three_fry, rng_philox)");
    }
    const size_t p = s.Position();
    a.dot->algorithm = s.ReadIdentifier();
    if (a.dot->algorithm.empty()) return s.ErrorAt(p, "expected a dot algorithm name");
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
  if (name == "start_index_map") return ints(&a.gather_scatter->gather.start_index_map);
  if (name == "operand_batching_dims") {
    return ints(&a.gather_scatter->gather.operand_batching_dims);
  }
  if (name == "start_indices_batching_dims") {
    return ints(&a.gather_scatter->gather.start_indices_batching_dims);
  }
  if (name == "index_vector_dim") {
    int64_t v;
    if (!int64(&v)) return false;
    a.gather_scatter->gather.index_vector_dim = v;
    a.gather_scatter->scatter.index_vector_dim = v;
    return true;
  }
  if (name == "slice_sizes") {
    if (opcode == HloOpcode::kGather) return ints(&a.gather_scatter->slice_sizes);
    return ParseBracedIntLists(&a.collective->permute_slice_sizes, "slice_sizes");
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
  if (name == "indices_are_sorted") return boolean(&a.gather_scatter->indices_are_sorted);
  if (name == "unique_indices") return boolean(&a.gather_scatter->unique_indices);
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
    return ParseEnum(&a.fft_type, &ParseFftType, "fft type (FFT, IFFT, RFFT, IRFFT)");
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
  if (name == "replica_groups") return ParseReplicaGroups(&a.collective->replica_groups);
  if (name == "channel_id") {
    int64_t v;
    if (!int64(&v)) return false;
    a.channel_id = v;
    return true;
  }
  if (name == "constrain_layout") return boolean(&a.collective->constrain_layout);
  if (name == "use_global_device_ids") return boolean(&a.collective->use_global_device_ids);
  if (name == "source_target_pairs") {
    std::vector<std::vector<int64_t>> pairs;
    const size_t p = s.Position();
    if (!ParseBracedIntLists(&pairs, "source_target_pairs")) return false;
    for (const auto& pair : pairs) {
      if (pair.size() != 2) {
        return s.ErrorAt(p, "source_target_pairs must be a list of {source,target}");
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
    Shape shape;
    Literal literal;
    if (!ParseShape(&shape) || !ParseLiteralValue(shape, &literal)) return false;
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
    std::string thread;
    if (!quoted(&thread)) return false;
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
        (key == "entry" ? a.domain->entry : a.domain->exit) = std::move(sharding);
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

bool Parser::FinishInstruction(HloInstruction* hlo, size_t position) {
  TextScanner& s = scanner_;
  switch (hlo->opcode()) {
    case HloOpcode::kCompare:
      if (!explicit_comparison_type_.contains(hlo)) {
        hlo->mutable_attrs().comparison_type =
            DefaultComparisonType(hlo->operand(0)->shape().element_type());
      }
      break;
    case HloOpcode::kBroadcast:
      if (!hlo->has_dimensions()) {
        if (hlo->operand(0)->shape().rank() != 0) {
          return s.ErrorAt(position,
                           "broadcast of a non-scalar requires dimensions=");
        }
        hlo->set_has_dimensions(true);
      }
      break;
    default:
      break;
  }
  // Opcodes whose dimensions= is always printed.
  switch (hlo->opcode()) {
    case HloOpcode::kTranspose:
    case HloOpcode::kReverse:
    case HloOpcode::kReduce:
    case HloOpcode::kConcatenate:
    case HloOpcode::kSort:
    case HloOpcode::kGetDimensionSize:
    case HloOpcode::kSetDimensionSize:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kScan:
      hlo->set_has_dimensions(true);
      break;
    default:
      break;
  }
  return true;
}

bool Parser::InferMissingShape(HloInstruction* hlo, size_t position) {
  absl::StatusOr<Shape> shape = InferShape(*hlo);
  if (!shape.ok()) {
    return scanner_.ErrorAt(position,
                            absl::StrCat("cannot infer the shape of ",
                                         HloOpcodeString(hlo->opcode()), ": ",
                                         shape.status().message()));
  }
  *hlo->mutable_shape() = *std::move(shape);
  if (options_.fill_missing_layouts) hlo->mutable_shape()->FillMissingLayouts();
  return true;
}

bool Parser::ResolveComputationRefs(HloModule* module) {
  TextScanner& s = scanner_;
  for (const ComputationRef& ref : refs_) {
    HloComputation* callee = module->GetComputationWithName(ref.name);
    if (callee == nullptr) {
      return s.ErrorAt(ref.position, absl::StrCat("computation '", ref.name,
                                                  "' is not defined"));
    }
    ref.instruction->set_called_computation(ref.slot, callee);
  }
  for (HloComputation* computation : module->computations()) {
    for (HloInstruction* instruction : computation->instructions()) {
      for (HloComputation* callee : instruction->called_computations()) {
        if (callee == nullptr) {
          auto it = positions_.find(instruction);
          return s.ErrorAt(it == positions_.end() ? 0 : it->second,
                           absl::StrCat(HloOpcodeString(instruction->opcode()),
                                        " ", instruction->name(),
                                        " is missing a called computation"));
        }
      }
    }
  }
  return true;
}

bool Parser::CheckCallGraphAcyclic(HloModule* module) {
  // Colors: 0 unvisited, 1 on the stack, 2 done.
  absl::flat_hash_map<const HloComputation*, int> color;
  std::vector<const HloComputation*> path;
  const HloInstruction* culprit = nullptr;
  std::function<bool(const HloComputation*)> visit =
      [&](const HloComputation* c) -> bool {
    color[c] = 1;
    path.push_back(c);
    for (HloInstruction* instruction : c->instructions()) {
      for (HloComputation* callee : instruction->called_computations()) {
        int& state = color[callee];
        if (state == 1) {
          culprit = instruction;
          path.push_back(callee);
          return false;
        }
        if (state == 0 && !visit(callee)) return false;
      }
    }
    path.pop_back();
    color[c] = 2;
    return true;
  };
  for (HloComputation* c : module->computations()) {
    if (color[c] != 0) continue;
    path.clear();
    if (!visit(c)) {
      std::vector<std::string> names;
      // Report the cycle only (from the callee's first appearance).
      size_t first = 0;
      while (first < path.size() && path[first] != path.back()) ++first;
      for (size_t i = first; i < path.size(); ++i) names.push_back(path[i]->name());
      auto it = positions_.find(culprit);
      return scanner_.ErrorAt(
          it == positions_.end() ? 0 : it->second,
          absl::StrCat("computations call each other in a cycle: ",
                       absl::StrJoin(names, " -> ")));
    }
  }
  return true;
}

absl::StatusOr<Shape> Parser::ParseShapeOnly() {
  Shape shape;
  if (!ParseShape(&shape)) return scanner_.status();
  if (!scanner_.AtEnd()) {
    scanner_.Error("unexpected text after the shape");
    return scanner_.status();
  }
  return shape;
}

// A literal that carries its own shapes: "f32[2] {1, 2}", or a tuple of
// such literals "(f32[] 1, (s32[] 2, pred[] true))", or a tuple shape
// followed by an untyped tuple value "(f32[], s32[]) (1, 2)".
bool Parser::ParseSelfDescribingLiteral(Literal* literal) {
  TextScanner& s = scanner_;
  if (++recursion_depth_ > 200) {
    --recursion_depth_;
    return s.Error("literal nested too deeply");
  }
  struct Guard {
    int* depth;
    ~Guard() { --*depth; }
  } guard{&recursion_depth_};
  if (s.Peek() == '(') {
    // Find the matching ')' to see what follows it.
    const size_t open = s.Position();
    int depth = 0;
    size_t close = absl::string_view::npos;
    for (size_t i = open; i < s.text().size(); ++i) {
      if (s.text()[i] == '(') ++depth;
      if (s.text()[i] == ')' && --depth == 0) {
        close = i;
        break;
      }
    }
    if (close == absl::string_view::npos) return s.Error("unbalanced '('");
    s.Reset(close + 1);
    const bool shape_then_value = s.Peek() == '(';
    s.Reset(open);
    if (!shape_then_value) {
      s.Consume('(');
      std::vector<Literal> elements;
      if (!s.Consume(')')) {
        do {
          Literal element;
          if (!ParseSelfDescribingLiteral(&element)) return false;
          elements.push_back(std::move(element));
        } while (s.Consume(','));
        if (!s.Expect(')', "to close a tuple literal")) return false;
      }
      *literal = Literal::Tuple(std::move(elements));
      return true;
    }
  }
  Shape shape;
  return ParseShape(&shape) && ParseLiteralValue(shape, literal);
}

absl::StatusOr<Literal> Parser::ParseLiteralOnly() {
  TextScanner& s = scanner_;
  Literal literal;
  if (!ParseSelfDescribingLiteral(&literal)) return s.status();
  if (!s.AtEnd()) {
    s.Error("unexpected text after the literal");
    return s.status();
  }
  return literal;
}

}  // namespace parser_internal

absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(
    absl::string_view text, const ParseOptions& options) {
  parser_internal::Parser parser(text, options);
  return parser.ParseModule();
}

absl::StatusOr<Shape> ParseShape(absl::string_view text,
                                 const ParseOptions& options) {
  parser_internal::Parser parser(text, options);
  return parser.ParseShapeOnly();
}

absl::StatusOr<Literal> ParseLiteral(absl::string_view text,
                                     const ParseOptions& options) {
  parser_internal::Parser parser(text, options);
  return parser.ParseLiteralOnly();
}

std::vector<SplitPiece> SplitInputFile(absl::string_view text) {
  std::vector<SplitPiece> pieces;
  SplitPiece current;
  int line = 0;
  for (absl::string_view raw_line : absl::StrSplit(text, '\n')) {
    absl::string_view trimmed = absl::StripAsciiWhitespace(raw_line);
    if (trimmed == "// -----") {
      pieces.push_back(std::move(current));
      current = SplitPiece();
      current.line_offset = line + 1;
    } else {
      absl::StrAppend(&current.text, raw_line, "\n");
    }
    ++line;
  }
  pieces.push_back(std::move(current));
  return pieces;
}

}  // namespace xlite
