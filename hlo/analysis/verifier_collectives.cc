// Verifier checks of collectives that need the module's replica and
// partition counts or more than shapes: XLA's group modes and replica-group
// rules, collective-permute pairs and in-place offsets, ragged-all-to-all.

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/analysis/verifier_internal.h"

namespace xlite {
namespace verifier_internal {
namespace {

absl::Status Invalid(absl::string_view message) {
  return absl::InvalidArgumentError(message);
}

// Which devices a replica group's ids name (XLA's CollectiveOpGroupMode).
enum class GroupMode {
  kCrossReplica,
  kCrossPartition,
  kCrossReplicaAndPartition,
  kFlattenedId
};

absl::string_view GroupModeName(GroupMode mode) {
  switch (mode) {
    case GroupMode::kCrossReplica:
      return "cross-replica";
    case GroupMode::kCrossPartition:
      return "cross-partition";
    case GroupMode::kCrossReplicaAndPartition:
      return "cross-replica-and-partition";
    case GroupMode::kFlattenedId:
      return "flattened-id";
  }
  return "";
}

// Opcodes whose use_global_device_ids= takes part in the group mode; the
// others (all-to-all, collective-permute, ragged-all-to-all) decide by
// channel_id alone.
bool HasGlobalDeviceIdsMode(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kReduceScatter:
      return true;
    default:
      return false;
  }
}

absl::StatusOr<GroupMode> ModeOf(const HloInstruction& hlo) {
  const bool channel = hlo.attrs().channel_id.has_value();
  if (!HasGlobalDeviceIdsMode(hlo.opcode())) {
    return channel ? GroupMode::kCrossPartition : GroupMode::kCrossReplica;
  }
  const bool global = hlo.attrs().collective->use_global_device_ids;
  if (!channel) {
    if (global) {
      return Invalid(
          "use_global_device_ids=true needs a channel_id (device ids are "
          "global only across partitions)");
    }
    return GroupMode::kCrossReplica;
  }
  return global ? GroupMode::kFlattenedId
                : GroupMode::kCrossReplicaAndPartition;
}

// XLA's replica-group rules: no empty group, ids 0..n-1 each named once, n
// the number of replicas, partitions or both that the mode addresses (when
// the module sets it), equal group sizes except for all-reduce, and
// explicit groups in flattened-id mode.
absl::Status CheckReplicaGroupsFit(const HloInstruction& hlo, GroupMode mode,
                                   const HloModuleConfig& config) {
  const ReplicaGroups& list = hlo.attrs().collective->replica_groups;
  const std::vector<std::vector<int64_t>> groups = list.Expanded();
  if (groups.empty()) {
    if (mode == GroupMode::kFlattenedId) {
      return Invalid(
          "replica_groups must be given in flattened-id mode "
          "(use_global_device_ids=true)");
    }
    return absl::OkStatus();
  }
  absl::flat_hash_set<int64_t> seen;
  for (const std::vector<int64_t>& group : groups) {
    if (group.empty()) return Invalid("replica_groups has an empty group");
    for (int64_t id : group) {
      if (!seen.insert(id).second) {
        return Invalid(absl::StrCat("replica id ", id,
                                    " appears more than once in "
                                    "replica_groups"));
      }
    }
  }
  const int64_t n = static_cast<int64_t>(seen.size());
  for (int64_t id = 0; id < n; ++id) {
    if (!seen.contains(id)) {
      return Invalid(absl::StrCat("replica_groups name ", n,
                                  " ids, so they must be 0..", n - 1, ", but ",
                                  id, " is missing"));
    }
  }
  int64_t expected = 1;
  absl::string_view what = "replicas";
  switch (mode) {
    case GroupMode::kCrossReplica:
    case GroupMode::kCrossReplicaAndPartition:
      expected = config.replica_count;
      break;
    case GroupMode::kCrossPartition:
      expected = config.num_partitions;
      what = "partitions";
      break;
    case GroupMode::kFlattenedId:
      expected = config.replica_count * config.num_partitions;
      what = "replicas x partitions";
      break;
  }
  // A count of 1 is the default of modules that do not say.
  if (expected != 1 && n != expected) {
    return Invalid(absl::StrCat("replica_groups name ", n, " ids, but in ",
                                GroupModeName(mode), " mode they must name ",
                                expected, " (", what, ")"));
  }
  const bool uniform = hlo.opcode() != HloOpcode::kAllReduce &&
                       hlo.opcode() != HloOpcode::kAllReduceStart;
  if (uniform) {
    for (const std::vector<int64_t>& group : groups) {
      if (group.size() != groups[0].size()) {
        return Invalid("replica groups must all have the same size");
      }
    }
  }
  return absl::OkStatus();
}

// A tuple of offsets for one buffer: either one index array per buffer
// dimension, or a tuple of such per transfer.
absl::Status CheckBufferOffsets(const Shape& buffer, const Shape& offsets,
                                absl::string_view what) {
  if (!offsets.IsTuple()) {
    return Invalid(absl::StrCat("collective-permute ", what,
                                " offsets must be a tuple, got ",
                                offsets.ToString(false)));
  }
  bool all_arrays = true, all_tuples = true;
  for (const Shape& s : offsets.tuple_shapes()) {
    all_arrays = all_arrays && s.IsArray();
    all_tuples = all_tuples && s.IsTuple();
  }
  if (!all_arrays && !all_tuples) {
    return Invalid(absl::StrCat("collective-permute ", what,
                                " offsets must be a tuple of arrays or a "
                                "tuple of tuples"));
  }
  auto check_count = [&](int64_t count) {
    if (count != buffer.rank()) {
      return Invalid(absl::StrCat("collective-permute ", what, " offsets give ",
                                  count, " indices for the rank-",
                                  buffer.rank(), " buffer ",
                                  buffer.ToString(false)));
    }
    return absl::OkStatus();
  };
  if (all_tuples) {
    for (const Shape& s : offsets.tuple_shapes()) {
      absl::Status status = check_count(s.tuple_shapes_size());
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }
  return check_count(offsets.tuple_shapes_size());
}

// The in-place form (input, output, input_offsets, output_offsets) with
// slice_sizes=: buffers and offsets must correspond.
absl::Status CheckInPlacePermute(const HloInstruction& hlo) {
  if (hlo.operand_count() != 4) {
    return Invalid(absl::StrCat(
        "in-place collective-permute (slice_sizes=) takes 4 operands (input, "
        "output, input offsets, output offsets), but has ",
        hlo.operand_count()));
  }
  const Shape& in = hlo.operand(0)->shape();
  const Shape& out = hlo.operand(1)->shape();
  const Shape& in_offsets = hlo.operand(2)->shape();
  const Shape& out_offsets = hlo.operand(3)->shape();
  if (in.IsArray() && out.IsArray()) {
    absl::Status status = CheckBufferOffsets(in, in_offsets, "input");
    if (!status.ok()) return status;
    return CheckBufferOffsets(out, out_offsets, "output");
  }
  if (!in.IsTuple() || !out.IsTuple() ||
      in.tuple_shapes_size() != out.tuple_shapes_size()) {
    return Invalid(
        "collective-permute input and output buffers do not correspond");
  }
  for (auto [buffers, offsets, what] :
       {std::make_tuple(&in, &in_offsets, "input"),
        std::make_tuple(&out, &out_offsets, "output")}) {
    if (!offsets->IsTuple() ||
        offsets->tuple_shapes_size() != buffers->tuple_shapes_size()) {
      return Invalid(absl::StrCat("collective-permute ", what,
                                  " offsets do not match its ",
                                  buffers->tuple_shapes_size(), " buffers"));
    }
    for (int64_t i = 0; i < buffers->tuple_shapes_size(); ++i) {
      absl::Status status = CheckBufferOffsets(buffers->tuple_shapes(i),
                                               offsets->tuple_shapes(i), what);
      if (!status.ok()) return status;
    }
  }
  return absl::OkStatus();
}

// Each source sends and each target receives once (per transfer of the
// in-place form), ids in range of the replicas or partitions addressed.
absl::Status CheckSourceTargetPairs(const HloInstruction& hlo, GroupMode mode,
                                    bool in_place,
                                    const HloModuleConfig& config) {
  const int64_t limit = mode == GroupMode::kCrossReplica
                            ? config.replica_count
                            : config.num_partitions;
  int64_t allowed = 1;
  if (in_place) {
    const Shape& offsets = hlo.operand(2)->shape();
    if (hlo.operand(0)->shape().IsArray()) {
      allowed = offsets.tuple_shapes_size();
    } else if (offsets.tuple_shapes_size() > 0 &&
               offsets.tuple_shapes(0).IsTuple()) {
      allowed = offsets.tuple_shapes(0).tuple_shapes_size();
    }
  }
  absl::flat_hash_map<int64_t, int64_t> sends, receives;
  for (const auto& [source, target] :
       hlo.attrs().collective->source_target_pairs) {
    for (auto [id, role, counts] :
         {std::make_tuple(source, "source", &sends),
          std::make_tuple(target, "target", &receives)}) {
      if (id < 0) {
        return Invalid(
            absl::StrCat("collective-permute ", role, " ", id, " is negative"));
      }
      if (limit != 1 && id >= limit) {
        return Invalid(absl::StrCat(
            "collective-permute ", role, " ", id,
            " is out of range: ", GroupModeName(mode), " mode has ", limit,
            mode == GroupMode::kCrossReplica ? " replicas" : " partitions"));
      }
      if (++(*counts)[id] > allowed) {
        return Invalid(absl::StrCat(
            "collective-permute ", role, " ", id, " appears more than ",
            allowed == 1 ? "once" : absl::StrCat(allowed, " times"),
            " in source_target_pairs"));
      }
    }
  }
  return absl::OkStatus();
}

// Operands 2..5 (offsets and sizes) share one rank-1 or rank-2 shape.
absl::Status CheckRaggedAllToAll(const HloInstruction& hlo) {
  if (hlo.operand_count() != 6) {
    return Invalid(absl::StrCat(
        "ragged-all-to-all takes 6 operands (input, output, input_offsets, "
        "send_sizes, output_offsets, recv_sizes), but has ",
        hlo.operand_count()));
  }
  if (!hlo.operand(1)->shape().IsArray()) {
    return Invalid("ragged-all-to-all output operand must be an array");
  }
  const Shape& first = hlo.operand(2)->shape();
  for (int64_t i = 2; i < 6; ++i) {
    const Shape& s = hlo.operand(i)->shape();
    if (!s.IsArray() || (s.rank() != 1 && s.rank() != 2)) {
      return Invalid(absl::StrCat("ragged-all-to-all operand ", i,
                                  " must have rank 1 or 2, got ",
                                  s.ToString(false)));
    }
    if (!ShapesCompatible(s, first)) {
      return Invalid(absl::StrCat(
          "ragged-all-to-all offsets and sizes must share one shape: operand ",
          i, " is ", s.ToString(false), ", operand 2 is ",
          first.ToString(false)));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckCollective(const HloInstruction& hlo,
                             const HloModuleConfig& config) {
  const HloOpcode op = hlo.opcode();
  switch (op) {
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllToAll:
    case HloOpcode::kRaggedAllToAll: {
      absl::StatusOr<GroupMode> mode = ModeOf(hlo);
      if (!mode.ok()) return mode.status();
      absl::Status status = CheckReplicaGroupsFit(hlo, *mode, config);
      if (!status.ok() || op != HloOpcode::kRaggedAllToAll) return status;
      return CheckRaggedAllToAll(hlo);
    }
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart: {
      absl::StatusOr<GroupMode> mode = ModeOf(hlo);
      if (!mode.ok()) return mode.status();
      const bool in_place =
          !hlo.attrs().collective->permute_slice_sizes.empty();
      if (in_place) {
        absl::Status status = CheckInPlacePermute(hlo);
        if (!status.ok()) return status;
      }
      return CheckSourceTargetPairs(hlo, *mode, in_place, config);
    }
    default:
      return absl::OkStatus();
  }
}

}  // namespace verifier_internal
}  // namespace xlite
