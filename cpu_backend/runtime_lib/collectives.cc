// The collective functions: decode the plan, find this device's group as
// the evaluator does, meet the group in the exchange, compute this device's
// results from everyone's (row-major) operands, and write them back in the
// results' layouts once everyone has finished reading.

#include "cpu_backend/runtime_lib/collectives.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "cpu_backend/runtime_lib/collective_exchange.h"

namespace xlite::cpu {
namespace {

struct ArrayDesc {
  int64_t bytes = 0;  // per element
  std::vector<int64_t> dims;
  std::vector<int64_t> minor_to_major;

  int64_t count() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
  bool row_major() const {
    for (size_t i = 0; i < minor_to_major.size(); ++i) {
      if (minor_to_major[i] != static_cast<int64_t>(dims.size() - 1 - i)) {
        return false;
      }
    }
    return true;
  }
};

struct Plan {
  int64_t dimension = -1;
  int64_t mode = 0;
  std::vector<std::vector<int64_t>> groups;  // or source-target pairs
  std::vector<ArrayDesc> operands;
  std::vector<ArrayDesc> results;
};

Plan Decode(const int64_t* plan) {
  Plan p;
  p.dimension = plan[kPlanDimension];
  p.mode = plan[kPlanMode];
  const int64_t* at = plan + kPlanIds;
  for (int64_t g = 0; g < plan[kPlanGroups]; ++g) {
    p.groups.emplace_back(at, at + plan[kPlanGroupSize]);
    at += plan[kPlanGroupSize];
  }
  auto read = [&](int64_t count, std::vector<ArrayDesc>& out) {
    for (int64_t i = 0; i < count; ++i) {
      ArrayDesc a;
      a.bytes = *at++;
      const int64_t rank = *at++;
      a.dims.assign(at, at + rank);
      at += rank;
      a.minor_to_major.assign(at, at + rank);
      at += rank;
      out.push_back(std::move(a));
    }
  };
  read(plan[kPlanOperands], p.operands);
  read(plan[kPlanResults], p.results);
  return p;
}

// Copies between the row-major order of `a`'s elements and its layout.
void Relayout(const ArrayDesc& a, const uint8_t* from, uint8_t* to,
              bool to_physical) {
  const int64_t rank = a.dims.size();
  std::vector<int64_t> stride(rank, 1);
  for (int64_t k = 1; k < rank; ++k) {
    stride[a.minor_to_major[k]] =
        stride[a.minor_to_major[k - 1]] * a.dims[a.minor_to_major[k - 1]];
  }
  std::vector<int64_t> index(rank, 0);
  const int64_t n = a.count();
  for (int64_t i = 0; i < n; ++i) {
    int64_t physical = 0;
    for (int64_t d = 0; d < rank; ++d) physical += index[d] * stride[d];
    const uint8_t* src = from + (to_physical ? i : physical) * a.bytes;
    uint8_t* dst = to + (to_physical ? physical : i) * a.bytes;
    std::memcpy(dst, src, a.bytes);
    for (int64_t d = rank - 1; d >= 0 && ++index[d] == a.dims[d]; --d) {
      index[d] = 0;
    }
  }
}

struct Failure {
  std::string message;
};

// The participants of this device's group, in group order (see the
// evaluator's Participants): global ids as given; else ids are replica
// ids, or partition ids for a channel op on a module of one replica.
std::vector<int64_t> Participants(const Plan& plan, int64_t replicas,
                                  int64_t partitions, int64_t replica,
                                  int64_t partition, Failure& failure) {
  const int64_t me = replica * partitions + partition;
  auto in_range = [&](const std::vector<int64_t>& ids, int64_t limit) {
    for (int64_t id : ids) {
      if (id < 0 || id >= limit) {
        failure.message = "replica group names id " + std::to_string(id) +
                          ", but only " + std::to_string(limit) +
                          " exist (run with more devices)";
        return false;
      }
    }
    return true;
  };
  if (plan.mode == kModeGlobalIds) {
    std::vector<int64_t> mine;
    if (plan.groups.empty()) {
      for (int64_t d = 0; d < replicas * partitions; ++d) mine.push_back(d);
    }
    for (const auto& g : plan.groups) {
      if (std::find(g.begin(), g.end(), me) != g.end()) mine = g;
    }
    if (mine.empty()) {
      failure.message = "device " + std::to_string(me) + " is in no group";
    }
    if (!in_range(mine, replicas * partitions)) return {};
    return mine;
  }
  const bool across = plan.mode == kModeChannel && replicas == 1;
  const int64_t limit = across ? partitions : replicas;
  const int64_t my_id = across ? partition : replica;
  std::vector<int64_t> group;
  if (plan.groups.empty()) {
    for (int64_t i = 0; i < limit; ++i) group.push_back(i);
  }
  for (const auto& g : plan.groups) {
    if (std::find(g.begin(), g.end(), my_id) != g.end()) group = g;
  }
  if (group.empty()) {
    failure.message = std::string(across ? "partition " : "replica ") +
                      std::to_string(my_id) + " is in no replica group";
    return {};
  }
  if (!in_range(group, limit)) return {};
  std::vector<int64_t> out;
  for (int64_t id : group) {
    if (across) {
      out.push_back(replica * partitions + id);
    } else if (plan.mode == kModeChannel) {
      for (int64_t p = 0; p < partitions; ++p) {
        out.push_back(id * partitions + p);
      }
    } else {
      out.push_back(id * partitions + partition);
    }
  }
  return out;
}

// One device's operands, row-major (the contribution it publishes).
using Operands = std::vector<const uint8_t*>;

// What a collective computes for this device, row-major per result.
struct Meeting {
  const Plan& plan;
  std::vector<const Operands*> all;  // per participant
  int64_t position = 0;              // this device's among them
  const XliteCpuCombine* combiners = nullptr;
  std::vector<std::vector<uint8_t>>& out;

  int64_t n() const { return all.size(); }
};

// [outer, dim size, inner] around `dim` of `a`, in elements.
void Around(const ArrayDesc& a, int64_t dim, int64_t& outer, int64_t& inner) {
  outer = 1;
  inner = 1;
  for (int64_t d = 0; d < static_cast<int64_t>(a.dims.size()); ++d) {
    if (d < dim) outer *= a.dims[d];
    if (d > dim) inner *= a.dims[d];
  }
}

void AllReduce(Meeting& m) {
  for (size_t k = 0; k < m.plan.operands.size(); ++k) {
    std::vector<const void*> inputs;
    for (const Operands* o : m.all) inputs.push_back((*o)[k]);
    m.combiners[k](inputs.data(), m.n(), m.out[k].data(),
                   m.plan.operands[k].count());
  }
}

void ReduceScatter(Meeting& m) {
  for (size_t k = 0; k < m.plan.operands.size(); ++k) {
    const ArrayDesc& a = m.plan.operands[k];
    int64_t outer, inner;
    Around(a, m.plan.dimension, outer, inner);
    const int64_t block = a.dims[m.plan.dimension] / m.n() * inner;
    std::vector<const void*> inputs(m.n());
    for (int64_t o = 0; o < outer; ++o) {
      const int64_t from = (o * m.n() + m.position) * block * a.bytes;
      for (int64_t p = 0; p < m.n(); ++p) inputs[p] = (*m.all[p])[k] + from;
      m.combiners[k](inputs.data(), m.n(),
                     m.out[k].data() + o * block * a.bytes, block);
    }
  }
}

void AllGather(Meeting& m) {
  for (size_t k = 0; k < m.plan.operands.size(); ++k) {
    const ArrayDesc& a = m.plan.operands[k];
    int64_t outer, inner;
    Around(a, m.plan.dimension, outer, inner);
    const int64_t block = a.dims[m.plan.dimension] * inner * a.bytes;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t p = 0; p < m.n(); ++p) {
        std::memcpy(m.out[k].data() + (o * m.n() + p) * block,
                    (*m.all[p])[k] + o * block, block);
      }
    }
  }
}

bool AllToAll(Meeting& m, Failure& failure) {
  if (m.plan.dimension < 0) {
    // Tuple form: operand p goes to participant p.
    if (static_cast<int64_t>(m.plan.operands.size()) != m.n() ||
        m.plan.results.size() != m.plan.operands.size()) {
      failure.message =
          "the all-to-all has " + std::to_string(m.plan.operands.size()) +
          " operands for " + std::to_string(m.n()) + " participants";
      return false;
    }
    for (int64_t p = 0; p < m.n(); ++p) {
      std::memcpy(m.out[p].data(), (*m.all[p])[m.position], m.out[p].size());
    }
    return true;
  }
  // Array form: chunk i of the split dimension goes to participant i; the
  // received chunks concatenate in sender order.
  const ArrayDesc& a = m.plan.operands[0];
  int64_t outer, inner;
  Around(a, m.plan.dimension, outer, inner);
  const int64_t chunk = a.dims[m.plan.dimension] / m.n() * inner * a.bytes;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t p = 0; p < m.n(); ++p) {
      std::memcpy(m.out[0].data() + (o * m.n() + p) * chunk,
                  (*m.all[p])[0] + (o * m.n() + m.position) * chunk, chunk);
    }
  }
  return true;
}

// collective-broadcast: every participant gets the first one's operands.
void Broadcast(Meeting& m) {
  for (size_t k = 0; k < m.out.size(); ++k) {
    std::memcpy(m.out[k].data(), (*m.all[0])[k], m.out[k].size());
  }
}

// Element i of an s32 or s64 (by `bytes`) array.
int64_t IntAt(const uint8_t* data, int64_t bytes, int64_t i) {
  if (bytes == 4) {
    int32_t v;
    std::memcpy(&v, data + i * 4, 4);
    return v;
  }
  int64_t v;
  std::memcpy(&v, data + i * 8, 8);
  return v;
}

// ragged-all-to-all(input, output, input_offsets, send_sizes,
// output_offsets, recv_sizes): the result starts as this device's output
// operand; every participant p sends rows [input_offsets[j],
// + send_sizes[j]) of its input, j running over this device's share of p's
// tables, to rows from output_offsets[j] (p's view) on.
bool RaggedAllToAll(Meeting& m, Failure& failure) {
  const Plan& plan = m.plan;
  if (plan.operands.size() != 6 || m.out.size() != 1) {
    failure.message = "ragged-all-to-all takes 6 operands and has 1 result";
    return false;
  }
  const ArrayDesc& in = plan.operands[0];
  const ArrayDesc& out = plan.results[0];
  std::memcpy(m.out[0].data(), (*m.all[m.position])[1], m.out[0].size());
  const int64_t rows_in = in.dims.empty() ? 1 : in.dims[0];
  const int64_t rows_out = out.dims.empty() ? 1 : out.dims[0];
  const int64_t row_bytes = rows_in == 0 ? 0 : in.count() * in.bytes / rows_in;
  const int64_t updates =
      plan.operands[2].count() / std::max<int64_t>(m.n(), 1);
  for (int64_t p = 0; p < m.n(); ++p) {
    const Operands& theirs = *m.all[p];
    for (int64_t u = 0; u < updates; ++u) {
      const int64_t j = m.position * updates + u;
      const int64_t from = IntAt(theirs[2], plan.operands[2].bytes, j);
      const int64_t size = IntAt(theirs[3], plan.operands[3].bytes, j);
      const int64_t to = IntAt(theirs[4], plan.operands[4].bytes, j);
      if (size < 0 || from < 0 || to < 0 || from + size > rows_in ||
          to + size > rows_out) {
        failure.message =
            "ragged-all-to-all: participant " + std::to_string(p) +
            " sends rows [" + std::to_string(from) + ", " +
            std::to_string(from + size) + ") to rows [" + std::to_string(to) +
            ", " + std::to_string(to + size) + ") outside the buffers (" +
            std::to_string(rows_in) + " and " + std::to_string(rows_out) +
            " rows)";
        return false;
      }
      std::memcpy(m.out[0].data() + to * row_bytes,
                  theirs[0] + from * row_bytes, size * row_bytes);
    }
  }
  return true;
}

enum class Kind {
  kAllReduce,
  kReduceScatter,
  kAllGather,
  kAllToAll,
  kPermute,
  kBroadcast,
  kRaggedAllToAll,
};

// The row of devices a collective-permute's pairs index (the evaluator's:
// partitions with a channel unless the module is replicas only).
std::vector<int64_t> PermuteRow(const Plan& plan, int64_t replicas,
                                int64_t partitions, int64_t replica,
                                int64_t partition, bool lone, int64_t& my_index,
                                Failure& failure) {
  const bool across =
      plan.mode != kModeNoChannel && (lone || replicas == 1 || partitions > 1);
  const int64_t count = across ? partitions : replicas;
  my_index = across ? partition : replica;
  std::vector<int64_t> row;
  for (int64_t i = 0; i < count; ++i) {
    row.push_back(across ? replica * partitions + i
                         : i * partitions + partition);
  }
  for (const auto& pair : plan.groups) {
    for (int64_t id : pair) {
      if (id < 0 || id >= count) {
        failure.message = "source_target_pairs name " + std::to_string(id) +
                          ", but only " + std::to_string(count) + " exist";
        return {};
      }
    }
  }
  return row;
}

void Permute(Meeting& m, int64_t my_index) {
  for (auto& r : m.out) std::fill(r.begin(), r.end(), 0);
  for (const auto& pair : m.plan.groups) {
    if (pair[1] != my_index) continue;
    for (size_t k = 0; k < m.out.size(); ++k) {
      std::memcpy(m.out[k].data(), (*m.all[pair[0]])[k], m.out[k].size());
    }
  }
}

int32_t Run(Kind kind, void* exchange_ptr, int64_t replica, int64_t partition,
            const char* name, const int64_t* encoded, void* const* operands,
            void* const* results, const XliteCpuCombine* combiners) {
  auto* exchange = static_cast<CollectiveExchange*>(exchange_ptr);
  const Plan plan = Decode(encoded);
  const int64_t replicas = exchange ? exchange->replicas() : 1;
  const int64_t partitions = exchange ? exchange->partitions() : 1;
  const int64_t me = replica * partitions + partition;
  Failure failure;
  auto fail = [&](const std::string& message) {
    if (exchange) {
      exchange->Fail("device " + std::to_string(me) + ", %" + name + ": " +
                     message);
    }
    return kStatusCollectiveFailed;
  };
  int64_t my_index = 0;
  const std::vector<int64_t> who =
      kind == Kind::kPermute
          ? PermuteRow(plan, replicas, partitions, replica, partition,
                       exchange == nullptr, my_index, failure)
          : Participants(plan, replicas, partitions, replica, partition,
                         failure);
  if (who.empty()) return fail(failure.message);
  if (exchange == nullptr && who.size() != 1) {
    return fail("the collective has " + std::to_string(who.size()) +
                " participants; run it on that many devices");
  }
  // This device's operands, row-major.
  std::vector<std::vector<uint8_t>> staged(plan.operands.size());
  Operands mine;
  for (size_t k = 0; k < plan.operands.size(); ++k) {
    const ArrayDesc& a = plan.operands[k];
    const auto* data = static_cast<const uint8_t*>(operands[k]);
    if (!a.row_major()) {
      staged[k].resize(a.count() * a.bytes);
      Relayout(a, data, staged[k].data(), /*to_physical=*/false);
      data = staged[k].data();
    }
    mine.push_back(data);
  }
  std::vector<std::vector<uint8_t>> out;
  for (const ArrayDesc& r : plan.results) out.emplace_back(r.count() * r.bytes);
  Meeting m{plan, {}, 0, combiners, out};
  std::shared_ptr<CollectiveExchange::Round> round;
  if (exchange == nullptr) {
    m.all = {&mine};
  } else {
    round = exchange->Arrive(me, name, who, &mine);
    if (round == nullptr) return kStatusCollectiveFailed;
    for (const void* c : CollectiveExchange::Contributions(*round)) {
      m.all.push_back(static_cast<const Operands*>(c));
    }
    m.position = std::find(who.begin(), who.end(), me) - who.begin();
  }
  bool ok = true;
  switch (kind) {
    case Kind::kAllReduce:
      AllReduce(m);
      break;
    case Kind::kReduceScatter:
      ReduceScatter(m);
      break;
    case Kind::kAllGather:
      AllGather(m);
      break;
    case Kind::kAllToAll:
      ok = AllToAll(m, failure);
      break;
    case Kind::kPermute:
      Permute(m, my_index);
      break;
    case Kind::kBroadcast:
      Broadcast(m);
      break;
    case Kind::kRaggedAllToAll:
      ok = RaggedAllToAll(m, failure);
      break;
  }
  if (round != nullptr && !exchange->Leave(*round)) {
    return kStatusCollectiveFailed;
  }
  if (!ok) return fail(failure.message);
  for (size_t k = 0; k < plan.results.size(); ++k) {
    const ArrayDesc& r = plan.results[k];
    if (r.row_major()) {
      std::memcpy(results[k], out[k].data(), out[k].size());
    } else {
      Relayout(r, out[k].data(), static_cast<uint8_t*>(results[k]),
               /*to_physical=*/true);
    }
  }
  return 0;
}

}  // namespace

std::vector<std::pair<const char*, void*>> CollectiveSymbols() {
  return {
      {"xlite_cpu_all_reduce", reinterpret_cast<void*>(&xlite_cpu_all_reduce)},
      {"xlite_cpu_reduce_scatter",
       reinterpret_cast<void*>(&xlite_cpu_reduce_scatter)},
      {"xlite_cpu_all_gather", reinterpret_cast<void*>(&xlite_cpu_all_gather)},
      {"xlite_cpu_all_to_all", reinterpret_cast<void*>(&xlite_cpu_all_to_all)},
      {"xlite_cpu_collective_permute",
       reinterpret_cast<void*>(&xlite_cpu_collective_permute)},
      {"xlite_cpu_collective_broadcast",
       reinterpret_cast<void*>(&xlite_cpu_collective_broadcast)},
      {"xlite_cpu_ragged_all_to_all",
       reinterpret_cast<void*>(&xlite_cpu_ragged_all_to_all)},
  };
}

}  // namespace xlite::cpu

#define XLITE_CPU_COLLECTIVE_DEFINE(op, kind)                              \
  XLITE_CPU_COLLECTIVE(op) {                                               \
    return xlite::cpu::Run(kind, exchange, replica_id, partition_id, name, \
                           plan, operands, results, combiners);            \
  }

extern "C" {
XLITE_CPU_COLLECTIVE_DEFINE(all_reduce, xlite::cpu::Kind::kAllReduce)
XLITE_CPU_COLLECTIVE_DEFINE(reduce_scatter, xlite::cpu::Kind::kReduceScatter)
XLITE_CPU_COLLECTIVE_DEFINE(all_gather, xlite::cpu::Kind::kAllGather)
XLITE_CPU_COLLECTIVE_DEFINE(all_to_all, xlite::cpu::Kind::kAllToAll)
XLITE_CPU_COLLECTIVE_DEFINE(collective_permute, xlite::cpu::Kind::kPermute)
XLITE_CPU_COLLECTIVE_DEFINE(collective_broadcast, xlite::cpu::Kind::kBroadcast)
XLITE_CPU_COLLECTIVE_DEFINE(ragged_all_to_all,
                            xlite::cpu::Kind::kRaggedAllToAll)
}  // extern "C"
