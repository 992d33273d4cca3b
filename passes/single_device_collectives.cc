#include "passes/single_device_collectives.h"

#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/ir/opcode.h"
#include "passes/hlo_util.h"

namespace xlite {
namespace {

bool IsOneDeviceCollective(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kCollectiveReduce:
    case HloOpcode::kAllGather:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kCollectivePermute:
      return true;
    default:
      return false;
  }
}

bool IsDeviceId(HloOpcode op) {
  return op == HloOpcode::kReplicaId || op == HloOpcode::kPartitionId;
}

// The device other than 0 that a collective's groups or pairs name.
std::optional<int64_t> OtherDevice(const HloInstruction& hlo) {
  const CollectiveAttributes& c = *hlo.attrs().collective;
  for (const std::vector<int64_t>& group : c.replica_groups.Expanded()) {
    for (int64_t id : group) {
      if (id != 0) return id;
    }
  }
  for (const auto& [source, target] : c.source_target_pairs) {
    if (source != 0) return source;
    if (target != 0) return target;
  }
  return std::nullopt;
}

// Why the result leaves of `hlo` are not its operands' shapes (one array
// operand for an array result, one operand per element of a tuple), or
// empty.
std::string LeavesUnlikeOperands(const HloInstruction& hlo) {
  const Shape& shape = hlo.shape();
  if (shape.IsArray() && hlo.operand_count() == 1) {
    if (ShapesCompatible(hlo.operand(0)->shape(), shape)) return "";
    return absl::StrCat("from ", hlo.operand(0)->shape().ToString(false),
                        " to ", shape.ToString(false),
                        " changes the shape, which needs more than one "
                        "device (or the SPMD partitioner first)");
  }
  if (!shape.IsTuple() || shape.tuple_shapes_size() != hlo.operand_count()) {
    return "needs one operand per result (one array, or a tuple)";
  }
  for (int64_t i = 0; i < hlo.operand_count(); ++i) {
    if (!shape.tuple_shapes(i).IsArray() ||
        !ShapesCompatible(hlo.operand(i)->shape(), shape.tuple_shapes(i))) {
      return absl::StrCat("result ", i, " is not shaped like operand ", i,
                          ", which needs more than one device");
    }
  }
  return "";
}

// Does any pair of a collective-permute send to device 0?
bool ReceivesOnDeviceZero(const HloInstruction& hlo) {
  for (const auto& [source, target] :
       hlo.attrs().collective->source_target_pairs) {
    if (target == 0) return true;
  }
  return false;
}

// What one device computes for `hlo` (OneDeviceRefusal is empty).
HloInstruction* OneDeviceResult(HloInstruction* hlo) {
  HloComputation* c = hlo->parent();
  const Shape& shape = hlo->shape();
  if (IsDeviceId(hlo->opcode())) return AddFilledLike(c, shape, 0, hlo);
  const bool zeros = hlo->opcode() == HloOpcode::kCollectivePermute &&
                     !ReceivesOnDeviceZero(*hlo);
  auto leaf = [&](const Shape& leaf_shape, int64_t i) {
    if (zeros) return AddFilledLike(c, leaf_shape, 0, hlo);
    return AddNew(c, HloOpcode::kCopy, leaf_shape, {hlo->mutable_operand(i)});
  };
  if (shape.IsArray()) return leaf(shape, 0);
  std::vector<HloInstruction*> leaves;
  for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
    leaves.push_back(leaf(shape.tuple_shapes(i), i));
  }
  return AddNew(c, HloOpcode::kTuple, shape, leaves);
}

}  // namespace

std::string OneDeviceRefusal(const HloModule& module,
                             const HloInstruction& hlo) {
  const HloModuleConfig& config = module.config();
  if (config.replica_count != 1 || config.num_partitions != 1) {
    return absl::StrCat("the module runs on ", config.replica_count,
                        " replicas x ", config.num_partitions,
                        " partitions, and this backend runs one device");
  }
  if (IsDeviceId(hlo.opcode())) return "";
  if (hlo.opcode() == HloOpcode::kRaggedAllToAll) {
    return "ragged-all-to-all moves rows even within one device";
  }
  if (!IsOneDeviceCollective(hlo.opcode())) {
    return "not a collective one device computes";
  }
  if (std::optional<int64_t> id = OtherDevice(hlo)) {
    return absl::StrCat("names device ", *id,
                        ", but the module runs on one device");
  }
  if (hlo.opcode() == HloOpcode::kCollectivePermute &&
      !hlo.attrs().collective->permute_slice_sizes.empty()) {
    return "the in-place collective-permute";
  }
  for (const HloInstruction* operand : hlo.operands()) {
    if (!operand->shape().IsArray()) return "a tuple-shaped operand";
  }
  // The tuple all-to-all sends operand i to participant i.
  if (hlo.opcode() == HloOpcode::kAllToAll && hlo.operand_count() > 1) {
    return absl::StrCat("sends its ", hlo.operand_count(),
                        " operands to as many devices, but the module runs "
                        "on one device");
  }
  return LeavesUnlikeOperands(hlo);
}

absl::StatusOr<bool> RewriteSingleDeviceCollectives(HloModule& module) {
  bool changed = false;
  for (HloComputation* c : module.computations()) {
    for (HloInstruction* hlo : c->MakeInstructionPostOrder()) {
      if (!IsOneDeviceCollective(hlo->opcode()) &&
          !IsDeviceId(hlo->opcode())) {
        continue;
      }
      if (!OneDeviceRefusal(module, *hlo).empty()) continue;
      HloInstruction* result = OneDeviceResult(hlo);
      if (absl::Status s =
              ReplaceInstruction(hlo, result, /*always_remove=*/true);
          !s.ok()) {
        return s;
      }
      changed = true;
    }
  }
  return changed;
}

}  // namespace xlite
