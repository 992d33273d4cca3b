// Collectives across simulated devices (device_group.h): all-reduce,
// all-gather, reduce-scatter, all-to-all, ragged-all-to-all,
// collective-permute, collective-broadcast and collective-reduce with XLA's
// group modes.

#include <algorithm>
#include <cstring>
#include <optional>

#include "absl/strings/str_join.h"
#include "hlo/evaluator/device_group.h"
#include "hlo/evaluator/internal.h"

namespace xlite::eval {
namespace {

// Device id of (replica, partition).
int64_t DeviceId(const Evaluator& e, int64_t replica, int64_t partition) {
  const int64_t partitions = e.group() == nullptr ? 1 : e.group()->partitions();
  return replica * partitions + partition;
}

// The participants of this device's group, in group order, by XLA's mode:
// no channel: replicas of this partition; channel without global ids:
// replicas in the group x every partition; global ids: the ids themselves.
// For collective-permute and all-to-all with a channel the group ranges
// over partitions.
absl::StatusOr<std::vector<int64_t>> Participants(const Evaluator& e,
                                                  const HloInstruction& hlo) {
  const int64_t replicas = e.group() == nullptr ? 1 : e.group()->replicas();
  const int64_t partitions = e.group() == nullptr ? 1 : e.group()->partitions();
  const CollectiveAttributes& c = *hlo.attrs().collective;
  const std::vector<std::vector<int64_t>> groups = c.replica_groups.Expanded();
  const bool channel = hlo.attrs().channel_id.has_value();
  const int64_t me = e.device();
  const int64_t my_replica = e.replica_id();
  const int64_t my_partition = e.partition_id();
  auto in_range = [&](int64_t id, int64_t limit) -> absl::Status {
    if (id < 0 || id >= limit) {
      return InstructionError(
          hlo, absl::StrCat("replica group names id ", id, ", but only ", limit,
                            " exist (run with more devices)"));
    }
    return absl::OkStatus();
  };
  std::vector<int64_t> out;
  if (channel && c.use_global_device_ids) {
    const std::vector<int64_t>* mine = nullptr;
    std::vector<int64_t> all;
    if (groups.empty()) {
      for (int64_t d = 0; d < replicas * partitions; ++d) all.push_back(d);
      mine = &all;
    }
    for (const auto& g : groups) {
      if (std::find(g.begin(), g.end(), me) != g.end()) mine = &g;
    }
    if (mine == nullptr) {
      return InstructionError(
          hlo, absl::StrCat("device ", me, " is in no replica group"));
    }
    for (int64_t id : *mine) {
      absl::Status s = in_range(id, replicas * partitions);
      if (!s.ok()) return s;
    }
    return *mine;
  }
  // Ids in the groups are replica ids, or partition ids when the op talks
  // across partitions (a channel on a module of one replica).
  const bool across_partitions = channel && replicas == 1;
  const int64_t limit = across_partitions ? partitions : replicas;
  const int64_t my_id = across_partitions ? my_partition : my_replica;
  std::vector<int64_t> group;
  if (groups.empty()) {
    for (int64_t i = 0; i < limit; ++i) group.push_back(i);
  } else {
    for (const auto& g : groups) {
      if (std::find(g.begin(), g.end(), my_id) != g.end()) group = g;
    }
    if (group.empty()) {
      return InstructionError(
          hlo, absl::StrCat(across_partitions ? "partition " : "replica ",
                            my_id, " is in no replica group"));
    }
  }
  for (int64_t id : group) {
    absl::Status s = in_range(id, limit);
    if (!s.ok()) return s;
    if (across_partitions) {
      out.push_back(DeviceId(e, my_replica, id));
    } else if (channel) {
      for (int64_t p = 0; p < partitions; ++p)
        out.push_back(DeviceId(e, id, p));
    } else {
      out.push_back(DeviceId(e, id, my_partition));
    }
  }
  return out;
}

// Values of every participant (this device's own value alone when there is
// no device group).
absl::StatusOr<std::vector<Literal>> Gather(Evaluator& e,
                                            const HloInstruction& hlo,
                                            const std::vector<int64_t>& who,
                                            const Literal& value) {
  if (e.group() == nullptr) {
    if (who.size() != 1) {
      return InstructionError(
          hlo, absl::StrCat("the collective has ", who.size(),
                            " participants; evaluate it on that many "
                            "devices (hlo-run --replicas, or the module's "
                            "num_partitions)"));
    }
    return std::vector<Literal>{value};
  }
  const std::string key =
      absl::StrCat(hlo.parent()->name(), "/", hlo.name(), "#", e.NextRun(&hlo),
                   "@", absl::StrJoin(who, ","));
  absl::StatusOr<std::vector<Literal>> values =
      e.group()->Exchange(e.device(), key, who, value);
  if (!values.ok()) return InstructionError(hlo, values.status().message());
  return values;
}

// Concatenates same-shaped literals along `dim`.
Literal Concat(const std::vector<Literal>& parts, int64_t dim,
               const Shape& shape) {
  Literal out(shape);
  const int64_t w = ElementBytes(shape);
  int64_t outer = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= shape.dimensions(d);
  const int64_t block =
      parts.empty() ? 0
                    : parts[0].element_count() / std::max<int64_t>(outer, 1);
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t p = 0; p < parts.size(); ++p) {
      std::memcpy(
          out.mutable_data().data() + ((o * parts.size() + p) * block) * w,
          parts[p].data().data() + o * block * w, block * w);
    }
  }
  return out;
}

// Chunk `index` of `count` equal chunks of `value` along `dim`.
Literal Chunk(const Literal& value, int64_t dim, int64_t count, int64_t index) {
  const Shape& in = value.shape();
  std::vector<int64_t> dims(in.dimensions().begin(), in.dimensions().end());
  dims[dim] /= count;
  Literal out(Shape(in.element_type(), dims));
  const int64_t w = ElementBytes(in);
  int64_t outer = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= in.dimensions(d);
  int64_t inner = 1;
  for (size_t d = dim; d < dims.size(); ++d) inner *= dims[d];
  for (int64_t o = 0; o < outer; ++o) {
    std::memcpy(out.mutable_data().data() + o * inner * w,
                value.data().data() + (o * count + index) * inner * w,
                inner * w);
  }
  return out;
}

// The type XLA:CPU reduces a floating-point all-reduce or reduce-scatter
// in: its all-reduce promotion runs bf16 ones in f32, and float
// normalization runs f8/f4 ones in f16 (f8e8m0fnu in f32). The runtime
// reduces in that type, participant by participant, and converts the
// result back once. nullopt: reduce in the element type.
std::optional<PrimitiveType> CollectiveReduceType(PrimitiveType type) {
  if (!IsFloatingPoint(type)) return std::nullopt;
  if (type == PrimitiveType::kBF16 || type == PrimitiveType::kF8E8M0FNU) {
    return PrimitiveType::kF32;
  }
  if (BitWidth(type) <= 8) return PrimitiveType::kF16;
  return std::nullopt;
}

// The reduction of `values` (one per participant, in participant order)
// with the op's computation. A single binary op reduces in
// CollectiveReduceType's type (XLA:CPU's runtime only reads the op's kind
// off the computation); any other computation runs as written, rounding
// every step to the element type.
absl::StatusOr<Literal> Reduce(Evaluator& e, const HloInstruction& hlo,
                               const std::vector<Literal>& values) {
  Combiner combiner(e, *hlo.to_apply(), 1);
  if (combiner.binary_op().has_value()) {
    const PrimitiveType type = values[0].shape().element_type();
    const std::optional<PrimitiveType> wide = CollectiveReduceType(type);
    Literal acc = wide ? ConvertLiteral(values[0], *wide) : values[0];
    for (size_t p = 1; p < values.size(); ++p) {
      absl::StatusOr<Literal> next = BinaryElementwise(
          *combiner.binary_op(), acc,
          wide ? ConvertLiteral(values[p], *wide) : values[p]);
      if (!next.ok()) return next.status();
      acc = *std::move(next);
    }
    return wide ? ConvertLiteral(acc, type) : acc;
  }
  Literal acc = values[0];
  Literal* accs[] = {&acc};
  for (size_t p = 1; p < values.size(); ++p) {
    const Literal* vals[] = {&values[p]};
    for (int64_t i = 0; i < acc.element_count(); ++i) {
      absl::Status s = combiner.Combine(accs, i, vals, i);
      if (!s.ok()) return s;
    }
  }
  return acc;
}

Literal WithShape(Literal value, const Shape& shape) {
  value.mutable_shape_for_layout() = shape;
  return value;
}

// collective-permute(-start): every source sends its operands to its target;
// a device no pair targets receives zeros. Several operands (XLA's combined
// form) travel together as one tuple and come back as a tuple.
absl::StatusOr<Literal> EvalCollectivePermute(Evaluator& e,
                                              const HloInstruction& hlo,
                                              Operands operands) {
  const HloOpcode op = hlo.opcode();
  const CollectiveAttributes& c = *hlo.attrs().collective;
  if (!c.permute_slice_sizes.empty()) {
    return InstructionError(
        hlo, "the in-place collective-permute (slice_sizes) is not evaluated");
  }
  // Pairs over partitions with a channel, else replicas.
  const bool across_partitions =
      hlo.attrs().channel_id.has_value() &&
      (e.group() == nullptr || e.group()->replicas() == 1 ||
       e.group()->partitions() > 1);
  const int64_t count = e.group() == nullptr
                            ? 1
                            : (across_partitions ? e.group()->partitions()
                                                 : e.group()->replicas());
  const int64_t my_id = across_partitions ? e.partition_id() : e.replica_id();
  std::vector<int64_t> all;
  for (int64_t i = 0; i < count; ++i) {
    all.push_back(across_partitions ? DeviceId(e, e.replica_id(), i)
                                    : DeviceId(e, i, e.partition_id()));
  }
  for (const auto& [source, target] : c.source_target_pairs) {
    if (source < 0 || source >= count || target < 0 || target >= count) {
      return InstructionError(
          hlo, absl::StrCat("source_target_pairs name {", source, ",", target,
                            "}, but only ", count, " exist"));
    }
  }
  const bool combined = operands.size() != 1;
  Literal mine = combined ? Literal::Tuple([&] {
    std::vector<Literal> v;
    for (const Literal* o : operands) v.push_back(*o);
    return v;
  }())
                          : *operands[0];
  const Shape& result_shape = op == HloOpcode::kCollectivePermute
                                  ? hlo.shape()
                                  : hlo.shape().tuple_shapes(1);
  if (combined &&
      (!result_shape.IsTuple() || result_shape.tuple_shapes_size() !=
                                      static_cast<int64_t>(operands.size()))) {
    return InstructionError(
        hlo, absl::StrCat("a collective-permute of ", operands.size(),
                          " operands needs a tuple of as many results, not ",
                          result_shape.ToString(false)));
  }
  absl::StatusOr<std::vector<Literal>> values = Gather(e, hlo, all, mine);
  if (!values.ok()) return values.status();
  auto received = [&](int64_t source) -> Literal {
    if (!combined) return WithShape((*values)[source], result_shape);
    std::vector<Literal> parts = (*values)[source].tuple_elements();
    for (size_t k = 0; k < parts.size(); ++k) {
      parts[k] = WithShape(std::move(parts[k]), result_shape.tuple_shapes(k));
    }
    return Literal::Tuple(std::move(parts));
  };
  Literal result(result_shape);
  for (const auto& [source, target] : c.source_target_pairs) {
    if (target == my_id) result = received(source);
  }
  if (op == HloOpcode::kCollectivePermute) return result;
  std::vector<Literal> elements = {std::move(mine), std::move(result)};
  for (int64_t i = 2; i < hlo.shape().tuple_shapes_size(); ++i) {
    elements.push_back(Literal(hlo.shape().tuple_shapes(i)));
  }
  return Literal::Tuple(std::move(elements));
}

// The operands as one value: the operand itself, or a tuple of several.
Literal Bundle(Operands operands) {
  if (operands.size() == 1) return *operands[0];
  std::vector<Literal> v;
  for (const Literal* o : operands) v.push_back(*o);
  return Literal::Tuple(std::move(v));
}

// What every participant contributed to one collective.
struct Exchanged {
  int64_t n = 0;         // participants
  int64_t position = 0;  // this device's place among them
  size_t operand_count = 0;
  std::vector<Literal> values;  // per participant: its Bundle

  // Operand `k` of participant `p`.
  const Literal& operand_of(int64_t p, size_t k) const {
    return operand_count == 1 ? values[p] : values[p].tuple_elements()[k];
  }
};

// Finds this device's group and exchanges the operands (as one tuple when
// there are several) with every participant.
absl::StatusOr<Exchanged> ExchangeOperands(Evaluator& e,
                                           const HloInstruction& hlo,
                                           Operands operands) {
  absl::StatusOr<std::vector<int64_t>> who = Participants(e, hlo);
  if (!who.ok()) return who.status();
  Exchanged x;
  x.n = who->size();
  x.position = std::find(who->begin(), who->end(), e.device()) - who->begin();
  x.operand_count = operands.size();
  absl::StatusOr<std::vector<Literal>> values =
      Gather(e, hlo, *who, Bundle(operands));
  if (!values.ok()) return values.status();
  x.values = *std::move(values);
  return x;
}

// Applies fn(k, column) to each operand k's column of participant values;
// one result, or a tuple of them for several operands.
template <typename F>
absl::StatusOr<Literal> PerOperand(const Exchanged& x, F fn) {
  std::vector<Literal> results;
  for (size_t k = 0; k < x.operand_count; ++k) {
    std::vector<Literal> column;
    for (int64_t p = 0; p < x.n; ++p) column.push_back(x.operand_of(p, k));
    absl::StatusOr<Literal> r = fn(k, column);
    if (!r.ok()) return r.status();
    results.push_back(*std::move(r));
  }
  if (results.size() == 1) return std::move(results[0]);
  return Literal::Tuple(std::move(results));
}

// Element k of `shape` when it is a tuple, else `shape`.
const Shape& ElementShape(const Shape& shape, size_t k) {
  return shape.IsTuple() ? shape.tuple_shapes(k) : shape;
}

// all-reduce(-start), collective-reduce and reduce-scatter.
absl::StatusOr<Literal> EvalAllReduceFamily(Evaluator& e,
                                            const HloInstruction& hlo,
                                            const Exchanged& x) {
  const bool scatter = hlo.opcode() == HloOpcode::kReduceScatter;
  return PerOperand(
      x,
      [&](size_t k,
          const std::vector<Literal>& column) -> absl::StatusOr<Literal> {
        absl::StatusOr<Literal> r = Reduce(e, hlo, column);
        if (!r.ok()) return r.status();
        if (scatter) {
          return WithShape(Chunk(*r, hlo.dimensions()[0], x.n, x.position),
                           ElementShape(hlo.shape(), k));
        }
        return WithShape(*std::move(r), ElementShape(hlo.shape(), k));
      });
}

// all-gather(-start); the start form returns (operands, gathered).
absl::StatusOr<Literal> EvalAllGather(const HloInstruction& hlo,
                                      const Exchanged& x, Operands operands) {
  const bool start = hlo.opcode() == HloOpcode::kAllGatherStart;
  const Shape& shape = start ? hlo.shape().tuple_shapes(1) : hlo.shape();
  absl::StatusOr<Literal> gathered = PerOperand(
      x,
      [&](size_t k,
          const std::vector<Literal>& column) -> absl::StatusOr<Literal> {
        return Concat(column, hlo.dimensions()[0], ElementShape(shape, k));
      });
  if (!gathered.ok() || !start) return gathered;
  std::vector<Literal> elements;
  elements.push_back(Bundle(operands));
  elements.push_back(*std::move(gathered));
  return Literal::Tuple(std::move(elements));
}

absl::StatusOr<Literal> EvalAllToAll(const HloInstruction& hlo,
                                     const Exchanged& x) {
  if (!hlo.dimensions().empty()) {
    // One array split along the dimension; chunk i goes to participant
    // i; the received chunks concatenate in sender order.
    const int64_t dim = hlo.dimensions()[0];
    std::vector<Literal> received;
    for (int64_t p = 0; p < x.n; ++p) {
      received.push_back(Chunk(x.operand_of(p, 0), dim, x.n, x.position));
    }
    return Concat(received, dim, hlo.shape());
  }
  // Tuple form: operand i goes to participant i, so there is one
  // operand per participant (a single operand when alone in its group).
  if (static_cast<int64_t>(x.operand_count) != x.n) {
    return InstructionError(
        hlo, absl::StrCat("the all-to-all has ", x.operand_count,
                          " operands for ", x.n, " participants"));
  }
  std::vector<Literal> received;
  for (int64_t p = 0; p < x.n; ++p) {
    received.push_back(
        WithShape(x.operand_of(p, x.position), hlo.shape().tuple_shapes(p)));
  }
  return Literal::Tuple(std::move(received));
}

// Operands: input, output, input_offsets, send_sizes, output_offsets,
// recv_sizes. Sender p sends rows [input_offsets[q], +send_sizes[q]) of its
// input to participant q, which writes them at row output_offsets[q] (the
// sender's view) of its output.
absl::StatusOr<Literal> EvalRaggedAllToAll(const HloInstruction& hlo,
                                           const Exchanged& x,
                                           Operands operands) {
  Literal out = WithShape(*operands[1], hlo.shape());
  const Shape& in_shape = operands[0]->shape();
  const int64_t rows_in = in_shape.rank() == 0 ? 1 : in_shape.dimensions(0);
  const int64_t rows_out =
      out.shape().rank() == 0 ? 1 : out.shape().dimensions(0);
  const int64_t row_bytes =
      rows_in == 0 ? 0
                   : static_cast<int64_t>(operands[0]->data().size()) / rows_in;
  const int64_t updates =
      operands[2]->element_count() / std::max<int64_t>(x.n, 1);
  for (int64_t p = 0; p < x.n; ++p) {
    const Literal& input = x.operand_of(p, 0);
    for (int64_t u = 0; u < updates; ++u) {
      const int64_t k = x.position * updates + u;
      const int64_t from = x.operand_of(p, 2).GetAsInt64(k);
      const int64_t size = x.operand_of(p, 3).GetAsInt64(k);
      const int64_t to = x.operand_of(p, 4).GetAsInt64(k);
      if (size < 0 || from < 0 || to < 0 || from + size > rows_in ||
          to + size > rows_out) {
        return InstructionError(
            hlo,
            absl::StrCat("ragged-all-to-all: participant ", p, " sends rows [",
                         from, ", ", from + size, ") to rows [", to, ", ",
                         to + size, ") outside the buffers (", rows_in, " and ",
                         rows_out, " rows)"));
      }
      std::memcpy(out.mutable_data().data() + to * row_bytes,
                  input.data().data() + from * row_bytes, size * row_bytes);
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<Literal> EvalCollective(Evaluator& e, const HloInstruction& hlo,
                                       Operands operands) {
  const HloOpcode op = hlo.opcode();
  if (op == HloOpcode::kCollectivePermute ||
      op == HloOpcode::kCollectivePermuteStart) {
    return EvalCollectivePermute(e, hlo, operands);
  }
  switch (op) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kCollectiveReduce:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllToAll:
    case HloOpcode::kRaggedAllToAll:
    case HloOpcode::kCollectiveBroadcast:
      break;
    default:
      return NotImplemented(hlo);
  }
  absl::StatusOr<Exchanged> x = ExchangeOperands(e, hlo, operands);
  if (!x.ok()) return x.status();
  switch (op) {
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
      return EvalAllGather(hlo, *x, operands);
    case HloOpcode::kAllToAll:
      return EvalAllToAll(hlo, *x);
    case HloOpcode::kRaggedAllToAll:
      return EvalRaggedAllToAll(hlo, *x, operands);
    case HloOpcode::kCollectiveBroadcast:
      return PerOperand(
          *x,
          [&](size_t k,
              const std::vector<Literal>& column) -> absl::StatusOr<Literal> {
            return WithShape(column[0], ElementShape(hlo.shape(), k));
          });
    default:
      return EvalAllReduceFamily(e, hlo, *x);
  }
}

}  // namespace xlite::eval
