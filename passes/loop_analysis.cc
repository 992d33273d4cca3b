#include "passes/loop_analysis.h"

#include <algorithm>

#include "passes/hlo_util.h"

namespace xlite {

// Per-device tracking (device values and classes) keeps a table per
// tracked instruction; above this many devices values that agree only
// within groups count as not replicated.
constexpr int64_t kMaxTrackedDevices = 1024;

std::optional<int64_t> ScalarIntConstant(const HloInstruction* h) {
  if (h->opcode() != HloOpcode::kConstant || h->shape().rank() != 0 ||
      !h->attrs().literal.has_value() || h->attrs().literal->is_unknown() ||
      !IsInteger(h->shape().element_type())) {
    return std::nullopt;
  }
  return h->attrs().literal->GetAsInt64(0);
}

namespace {

bool IsParamElement(const HloInstruction* h, const HloComputation* c,
                    int64_t* index) {
  if (h->opcode() != HloOpcode::kGetTupleElement ||
      h->operand(0) != c->parameter_instruction(0)) {
    return false;
  }
  *index = h->tuple_index();
  return true;
}

}  // namespace

std::optional<CountedLoop> AnalyzeCountedLoop(const HloInstruction& loop) {
  if (loop.opcode() != HloOpcode::kWhile || !loop.shape().IsTuple()) {
    return std::nullopt;
  }
  const HloComputation* body = loop.while_body();
  const HloComputation* cond = loop.while_condition();
  const HloInstruction* compare = cond->root_instruction();
  if (compare->opcode() != HloOpcode::kCompare ||
      body->root_instruction()->opcode() != HloOpcode::kTuple ||
      loop.operand(0)->opcode() != HloOpcode::kTuple) {
    return std::nullopt;
  }
  // compare(gte(param, i), bound) with the bound a constant or an element
  // the body passes through unchanged whose initial value is a constant.
  int64_t index = -1;
  if (!IsParamElement(compare->operand(0), cond, &index)) return std::nullopt;
  const HloInstruction* init_tuple = loop.operand(0);
  std::optional<int64_t> bound = ScalarIntConstant(compare->operand(1));
  int64_t bound_index = -1;
  if (!bound.has_value() &&
      IsParamElement(compare->operand(1), cond, &bound_index)) {
    const HloInstruction* out = body->root_instruction()->operand(bound_index);
    int64_t same = -1;
    if (IsParamElement(out, body, &same) && same == bound_index) {
      bound = ScalarIntConstant(init_tuple->operand(bound_index));
    }
  }
  std::optional<int64_t> init = ScalarIntConstant(init_tuple->operand(index));
  if (!bound.has_value() || !init.has_value()) return std::nullopt;
  // The body's update: add(gte(param, i), constant step).
  const HloInstruction* next = body->root_instruction()->operand(index);
  if (next->opcode() != HloOpcode::kAdd) return std::nullopt;
  std::optional<int64_t> step;
  for (int side : {0, 1}) {
    int64_t i = -1;
    if (IsParamElement(next->operand(side), body, &i) && i == index) {
      step = ScalarIntConstant(next->operand(1 - side));
    }
  }
  if (!step.has_value() || *step == 0) return std::nullopt;
  CountedLoop result{index, *init, *step, *bound, 0};
  const int64_t s = *step;
  int64_t trips = 0;
  switch (compare->attrs().direction) {
    case ComparisonDirection::kLt:
      if (s <= 0) return std::nullopt;
      trips = *bound > *init ? (*bound - *init + s - 1) / s : 0;
      break;
    case ComparisonDirection::kLe:
      if (s <= 0) return std::nullopt;
      trips = *bound >= *init ? (*bound - *init) / s + 1 : 0;
      break;
    case ComparisonDirection::kGt:
      if (s >= 0) return std::nullopt;
      trips = *init > *bound ? (*init - *bound + (-s) - 1) / (-s) : 0;
      break;
    case ComparisonDirection::kNe:
      if ((*bound - *init) % s != 0 || (*bound - *init) / s < 0) {
        return std::nullopt;
      }
      trips = (*bound - *init) / s;
      break;
    default:
      return std::nullopt;
  }
  result.trip_count = trips;
  return result;
}

ReplicationAnalysis ReplicationAnalysis::Run(const HloModule& module) {
  ReplicationAnalysis analysis;
  analysis.replicas_ = std::max<int64_t>(module.config().replica_count, 1);
  analysis.partitions_ = std::max<int64_t>(module.config().num_partitions, 1);
  if (analysis.replicas_ * analysis.partitions_ == 1) {
    // A module that does not say how many replicas it runs on runs on at
    // least as many as its collectives name.
    for (const HloComputation* c : module.computations()) {
      for (const HloInstruction* h : c->instructions()) {
        if (!h->has_attrs()) continue;
        for (const std::vector<int64_t>& g :
             h->attrs().collective->replica_groups.Expanded()) {
          for (int64_t id : g) {
            analysis.replicas_ = std::clamp<int64_t>(id + 1, analysis.replicas_,
                                                     kMaxTrackedDevices);
          }
        }
      }
    }
  }
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) return analysis;
  std::vector<Flags> params;
  for (const HloInstruction* p : entry->parameter_instructions()) {
    const int64_t n = p->shape().IsTuple() ? p->shape().tuple_shapes_size() : 1;
    Flags flags(n, false);
    if (p->has_attrs() && p->attrs().parameter_replication.has_value()) {
      const std::vector<bool>& r = *p->attrs().parameter_replication;
      if (static_cast<int64_t>(r.size()) == n) {
        flags = r;
      } else if (r.size() == 1) {
        flags.assign(n, r[0]);
      }
    }
    params.push_back(flags);
  }
  analysis.VisitComputation(entry, params);
  return analysis;
}

ReplicationAnalysis::Flags ReplicationAnalysis::Elements(
    const HloInstruction* hlo) const {
  auto it = replicated_.find(hlo);
  const int64_t n =
      hlo->shape().IsTuple() ? hlo->shape().tuple_shapes_size() : 1;
  if (it == replicated_.end()) return Flags(n, false);
  if (static_cast<int64_t>(it->second.size()) == n) return it->second;
  const bool all = std::all_of(it->second.begin(), it->second.end(),
                               [](bool b) { return b; });
  return Flags(n, all);
}

void ReplicationAnalysis::Set(const HloInstruction* hlo, Flags flags) {
  replicated_[hlo] = std::move(flags);
}

bool ReplicationAnalysis::IsReplicated(const HloInstruction* hlo) const {
  auto it = replicated_.find(hlo);
  return it != replicated_.end() && !it->second.empty() &&
         std::all_of(it->second.begin(), it->second.end(),
                     [](bool b) { return b; });
}

void ReplicationAnalysis::VisitComputation(const HloComputation* c,
                                           const std::vector<Flags>& params) {
  for (const HloInstruction* h : c->MakeInstructionPostOrder()) {
    switch (h->opcode()) {
      case HloOpcode::kParameter: {
        const int64_t n = h->parameter_number();
        const int64_t width =
            h->shape().IsTuple() ? h->shape().tuple_shapes_size() : 1;
        Set(h, n < static_cast<int64_t>(params.size()) &&
                       static_cast<int64_t>(params[n].size()) == width
                   ? params[n]
                   : Flags(width, false));
        continue;
      }
      case HloOpcode::kTuple: {
        Flags flags;
        for (const HloInstruction* o : h->operands()) {
          flags.push_back(IsReplicated(o));
        }
        Set(h, flags);
        continue;
      }
      case HloOpcode::kGetTupleElement: {
        const Flags flags = Elements(h->operand(0));
        const bool r = h->tuple_index() < static_cast<int64_t>(flags.size()) &&
                       flags[h->tuple_index()];
        Set(h, Flags(h->shape().IsTuple() ? h->shape().tuple_shapes_size() : 1,
                     r));
        continue;
      }
      case HloOpcode::kWhile: {
        // Per-element fixed point: an element stays replicated while its
        // initial value and every iteration's value are.
        Flags state = Elements(h->operand(0));
        for (int round = 0; round <= static_cast<int>(state.size()); ++round) {
          VisitComputation(h->while_body(), {state});
          Flags next = Elements(h->while_body()->root_instruction());
          bool same = true;
          for (size_t i = 0; i < state.size() && i < next.size(); ++i) {
            if (state[i] && !next[i]) {
              state[i] = false;
              same = false;
            }
          }
          if (same) break;
        }
        VisitComputation(h->while_condition(), {state});
        Set(h, state);
        continue;
      }
      case HloOpcode::kCall:
      case HloOpcode::kConditional: {
        bool all =
            h->opcode() == HloOpcode::kCall || IsReplicated(h->operand(0));
        for (size_t k = 0; k < h->called_computations().size(); ++k) {
          const HloComputation* f = h->called_computations()[k];
          std::vector<Flags> args;
          if (h->opcode() == HloOpcode::kCall) {
            for (const HloInstruction* o : h->operands()) {
              args.push_back(Elements(o));
            }
          } else {
            args.push_back(Elements(h->operand(k + 1)));
          }
          VisitComputation(f, args);
          all &= IsReplicated(f->root_instruction());
        }
        Set(h, Flags(h->shape().IsTuple() ? h->shape().tuple_shapes_size() : 1,
                     all));
        continue;
      }
      default:
        Set(h, Flags(h->shape().IsTuple() ? h->shape().tuple_shapes_size() : 1,
                     Compute(h)));
        if (!IsReplicated(h)) ComputeDeviceValues(h);
    }
  }
}

// Whether `h` computes the same result on devices given the same operands:
// no device ids, randomness, feeds or cross-device traffic in it or in what
// it calls.
bool ReplicationAnalysis::SameFunctionEverywhere(const HloInstruction* h) {
  switch (h->opcode()) {
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
    case HloOpcode::kRng:
    case HloOpcode::kRngBitGenerator:
    case HloOpcode::kRngGetAndUpdateState:
    case HloOpcode::kInfeed:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
    case HloOpcode::kCustomCall:
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllGather:
      return false;
    default:
      break;
  }
  if (HasSideEffectDeep(h)) return false;
  // Called computations (fusions, reducers) must not ask for the device.
  std::vector<const HloComputation*> work(h->called_computations().begin(),
                                          h->called_computations().end());
  while (!work.empty()) {
    const HloComputation* f = work.back();
    work.pop_back();
    for (const HloInstruction* i : f->instructions()) {
      if (i->opcode() == HloOpcode::kReplicaId ||
          i->opcode() == HloOpcode::kPartitionId ||
          i->opcode() == HloOpcode::kRng) {
        return false;
      }
      work.insert(work.end(), i->called_computations().begin(),
                  i->called_computations().end());
    }
  }
  return true;
}

bool ReplicationAnalysis::Compute(const HloInstruction* h) {
  switch (h->opcode()) {
    case HloOpcode::kConstant:
    case HloOpcode::kIota:
      return true;
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllGather:
      // Identical within each group of the collective: everywhere when one
      // group holds every device.
      return CollectiveDeviceGroups(*h, replicas_, partitions_).size() <= 1;
    default:
      break;
  }
  if (!SameFunctionEverywhere(h)) return false;
  for (const HloInstruction* o : h->operands()) {
    if (!IsReplicated(o)) return false;
  }
  return true;
}

namespace {

// Keeps `v` in range of integer `type` as a conversion to it would.
int64_t Wrap(PrimitiveType type, int64_t v) {
  switch (type) {
    case PrimitiveType::kPred:
      return v != 0;
    case PrimitiveType::kS8:
      return static_cast<int8_t>(v);
    case PrimitiveType::kS16:
      return static_cast<int16_t>(v);
    case PrimitiveType::kS32:
      return static_cast<int32_t>(v);
    case PrimitiveType::kU8:
      return static_cast<uint8_t>(v);
    case PrimitiveType::kU16:
      return static_cast<uint16_t>(v);
    case PrimitiveType::kU32:
      return static_cast<uint32_t>(v);
    default:
      return v;
  }
}

bool Compare(ComparisonDirection d, int64_t a, int64_t b) {
  switch (d) {
    case ComparisonDirection::kEq:
      return a == b;
    case ComparisonDirection::kNe:
      return a != b;
    case ComparisonDirection::kGe:
      return a >= b;
    case ComparisonDirection::kGt:
      return a > b;
    case ComparisonDirection::kLe:
      return a <= b;
    case ComparisonDirection::kLt:
      return a < b;
  }
  return false;
}

// One element of a binary integer op; nullopt where it has no defined
// value (division by zero) or the op is not one tracked.
std::optional<int64_t> Binary(const HloInstruction* h, int64_t a, int64_t b) {
  switch (h->opcode()) {
    case HloOpcode::kAdd:
      return a + b;
    case HloOpcode::kSubtract:
      return a - b;
    case HloOpcode::kMultiply:
      return a * b;
    case HloOpcode::kDivide:
      if (b == 0) return std::nullopt;
      return a / b;
    case HloOpcode::kRemainder:
      if (b == 0) return std::nullopt;
      return a % b;
    case HloOpcode::kMaximum:
      return std::max(a, b);
    case HloOpcode::kMinimum:
      return std::min(a, b);
    case HloOpcode::kAnd:
      return a & b;
    case HloOpcode::kOr:
      return a | b;
    case HloOpcode::kCompare:
      return Compare(h->attrs().direction, a, b) ? 1 : 0;
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<std::vector<int64_t>> ReplicationAnalysis::DeviceValues(
    const HloInstruction* h) const {
  auto it = device_values_.find(h);
  if (it != device_values_.end()) return it->second;
  // A replicated integer constant is the same known value everywhere.
  if (!IsReplicated(h) || !h->shape().IsArray() ||
      !(IsInteger(h->shape().element_type()) ||
        h->shape().element_type() == PrimitiveType::kPred)) {
    return std::nullopt;
  }
  std::optional<double> v = UniformValue(h);
  if (!v.has_value()) return std::nullopt;
  return std::vector<int64_t>(replicas_ * partitions_,
                              static_cast<int64_t>(*v));
}

void ReplicationAnalysis::ComputeDeviceValues(const HloInstruction* h) {
  // A table per device stays small.
  const int64_t devices = replicas_ * partitions_;
  if (devices <= 1 || devices > kMaxTrackedDevices || !h->shape().IsArray()) {
    return;
  }
  if (std::optional<std::vector<int64_t>> v = KnownValues(h)) {
    device_values_[h] = *std::move(v);
  } else if (std::optional<std::vector<int64_t>> c = DerivedClasses(h)) {
    device_classes_[h] = *std::move(c);
  }
}

std::optional<std::vector<int64_t>> ReplicationAnalysis::DerivedClasses(
    const HloInstruction* h) const {
  const int64_t devices = replicas_ * partitions_;
  std::vector<int64_t> classes(devices);
  if (h->opcode() == HloOpcode::kAllReduce ||
      h->opcode() == HloOpcode::kAllGather) {
    // Equal within each group; devices in no group are on their own.
    for (int64_t d = 0; d < devices; ++d) classes[d] = -1 - d;
    const std::vector<std::vector<int64_t>> groups =
        CollectiveDeviceGroups(*h, replicas_, partitions_);
    for (size_t g = 0; g < groups.size(); ++g) {
      for (int64_t d : groups[g]) {
        if (d >= 0 && d < devices) classes[d] = g;
      }
    }
    return classes;
  }
  if (!SameFunctionEverywhere(h)) return std::nullopt;
  // Devices whose operands fall in the same classes compute the same.
  std::vector<std::vector<int64_t>> operands;
  for (const HloInstruction* o : h->operands()) {
    std::optional<std::vector<int64_t>> c = Classes(o);
    if (!c.has_value()) return std::nullopt;
    operands.push_back(*std::move(c));
  }
  absl::flat_hash_map<std::vector<int64_t>, int64_t> ids;
  for (int64_t d = 0; d < devices; ++d) {
    std::vector<int64_t> key;
    for (const std::vector<int64_t>& c : operands) key.push_back(c[d]);
    classes[d] = ids.try_emplace(key, ids.size()).first->second;
  }
  return classes;
}

std::optional<std::vector<int64_t>> ReplicationAnalysis::Classes(
    const HloInstruction* h) const {
  if (auto it = device_values_.find(h); it != device_values_.end()) {
    return it->second;
  }
  if (auto it = device_classes_.find(h); it != device_classes_.end()) {
    return it->second;
  }
  if (IsReplicated(h)) {
    return std::vector<int64_t>(replicas_ * partitions_, 0);
  }
  return std::nullopt;
}

std::optional<std::vector<int64_t>> ReplicationAnalysis::KnownValues(
    const HloInstruction* h) const {
  // Device-dependent values of integer (or pred) type whose elements all
  // agree on one device.
  const int64_t devices = replicas_ * partitions_;
  const PrimitiveType type = h->shape().element_type();
  if (!IsInteger(type) && type != PrimitiveType::kPred) return std::nullopt;
  std::vector<int64_t> values(devices);
  switch (h->opcode()) {
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
      for (int64_t d = 0; d < devices; ++d) {
        values[d] = h->opcode() == HloOpcode::kReplicaId ? d / partitions_
                                                         : d % partitions_;
      }
      break;
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast:
    case HloOpcode::kCopy:
    case HloOpcode::kBroadcast:
    case HloOpcode::kConvert: {
      // Every element still comes from the one per-device value.
      if (h->opcode() == HloOpcode::kBitcast &&
          h->operand(0)->shape().element_type() != type) {
        return std::nullopt;
      }
      std::optional<std::vector<int64_t>> v = DeviceValues(h->operand(0));
      if (!v.has_value()) return std::nullopt;
      for (int64_t d = 0; d < devices; ++d) values[d] = Wrap(type, (*v)[d]);
      break;
    }
    case HloOpcode::kDynamicSlice: {
      // One element of a constant table at a per-device index.
      const HloInstruction* table = h->operand(0);
      if (h->operand_count() != 2 || h->shape().ElementCount() != 1 ||
          table->opcode() != HloOpcode::kConstant ||
          !table->attrs().literal.has_value() ||
          table->attrs().literal->is_unknown() || table->shape().rank() != 1) {
        return std::nullopt;
      }
      std::optional<std::vector<int64_t>> index = DeviceValues(h->operand(1));
      if (!index.has_value()) return std::nullopt;
      const int64_t n = table->shape().dimensions(0);
      for (int64_t d = 0; d < devices; ++d) {
        const int64_t i = std::clamp<int64_t>((*index)[d], 0, n - 1);
        values[d] = table->attrs().literal->GetAsInt64(i);
      }
      break;
    }
    case HloOpcode::kSelect: {
      std::optional<std::vector<int64_t>> p = DeviceValues(h->operand(0));
      std::optional<std::vector<int64_t>> a = DeviceValues(h->operand(1));
      std::optional<std::vector<int64_t>> b = DeviceValues(h->operand(2));
      if (!p.has_value() || !a.has_value() || !b.has_value())
        return std::nullopt;
      for (int64_t d = 0; d < devices; ++d) {
        values[d] = (*p)[d] != 0 ? (*a)[d] : (*b)[d];
      }
      break;
    }
    default: {
      if (h->operand_count() != 2) return std::nullopt;
      std::optional<std::vector<int64_t>> a = DeviceValues(h->operand(0));
      std::optional<std::vector<int64_t>> b = DeviceValues(h->operand(1));
      if (!a.has_value() || !b.has_value()) return std::nullopt;
      for (int64_t d = 0; d < devices; ++d) {
        std::optional<int64_t> r = Binary(h, (*a)[d], (*b)[d]);
        if (!r.has_value()) return std::nullopt;
        values[d] = Wrap(type, *r);
      }
    }
  }
  return values;
}

std::vector<std::vector<int64_t>> CollectiveDeviceGroups(
    const HloInstruction& collective, int64_t replicas, int64_t partitions) {
  const CollectiveAttributes& c = *collective.attrs().collective;
  const bool channel = collective.attrs().channel_id.has_value();
  std::vector<std::vector<int64_t>> groups = c.replica_groups.Expanded();
  auto all = [](int64_t n) {
    std::vector<int64_t> ids(n);
    for (int64_t i = 0; i < n; ++i) ids[i] = i;
    return ids;
  };
  if (channel && c.use_global_device_ids) {
    // The ids are global device ids already.
    if (groups.empty()) groups.push_back(all(replicas * partitions));
    return groups;
  }
  // A channel on a module of one replica talks across partitions; otherwise
  // the ids are replicas: of this partition alone without a channel, of
  // every partition with one.
  const bool across_partitions = channel && replicas == 1;
  if (groups.empty())
    groups.push_back(all(across_partitions ? partitions : replicas));
  std::vector<std::vector<int64_t>> out;
  for (const std::vector<int64_t>& g : groups) {
    if (across_partitions) {
      out.push_back(g);
    } else if (channel) {
      std::vector<int64_t> devices;
      for (int64_t r : g) {
        for (int64_t p = 0; p < partitions; ++p) {
          devices.push_back(r * partitions + p);
        }
      }
      out.push_back(devices);
    } else {
      for (int64_t p = 0; p < partitions; ++p) {
        std::vector<int64_t> devices;
        for (int64_t r : g) devices.push_back(r * partitions + p);
        out.push_back(devices);
      }
    }
  }
  return out;
}

bool ReplicationAnalysis::IsReplicatedWithin(
    const HloInstruction* hlo, const HloInstruction& collective) const {
  if (IsReplicated(hlo)) return true;
  std::optional<std::vector<int64_t>> classes = Classes(hlo);
  if (!classes.has_value() || !collective.has_attrs()) return false;
  const std::vector<int64_t>& values = *classes;
  for (const std::vector<int64_t>& g :
       CollectiveDeviceGroups(collective, replicas_, partitions_)) {
    for (int64_t d : g) {
      if (d < 0 || d >= static_cast<int64_t>(values.size()) ||
          values[d] != values[g.front()]) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace xlite
