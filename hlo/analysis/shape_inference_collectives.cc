// Shape inference for the collective family. Where a result size depends
// on the number of participants and the replica groups do not give it, the
// declared shape is the result.

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/analysis/shape_inference_internal.h"
#include "hlo/ir/computation.h"

namespace xlite {
namespace shape_inference_internal {
namespace {

// The group size of a collective, or 0 if unknown (empty groups = all).
int64_t GroupSize(const HloInstruction& hlo) {
  const ReplicaGroups& groups = hlo.attrs().collective->replica_groups;
  if (groups.iota) return groups.group_size;
  if (groups.groups.empty()) return 0;
  return static_cast<int64_t>(groups.groups[0].size());
}

absl::Status CheckReplicaGroups(const HloInstruction& hlo) {
  const ReplicaGroups& groups = hlo.attrs().collective->replica_groups;
  if (groups.iota) return absl::OkStatus();
  absl::flat_hash_set<int64_t> seen;
  size_t size = groups.groups.empty() ? 0 : groups.groups[0].size();
  for (const auto& group : groups.groups) {
    if (group.size() != size && hlo.opcode() != HloOpcode::kAllReduce &&
        hlo.opcode() != HloOpcode::kCollectiveBroadcast) {
      return Invalid("replica groups must all have the same size");
    }
    for (int64_t id : group) {
      if (id < 0) return Invalid(absl::StrCat("negative replica id ", id));
      if (!seen.insert(id).second) {
        return Invalid(absl::StrCat("replica id ", id,
                                    " appears in more than one replica group"));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferAllReduce(const HloInstruction& hlo,
                                     const std::vector<Shape>& shapes) {
  for (const Shape& s : shapes) {
    XLITE_RETURN_IF_ERROR(ExpectArray(s, "all-reduce operand"));
  }
  if (!shapes.empty() && !hlo.called_computations().empty()) {
    const PrimitiveType t = shapes[0].element_type();
    XLITE_RETURN_IF_ERROR(CheckCallee(hlo.called_computations()[0],
                                      {Shape(t, {}), Shape(t, {})},
                                      "all-reduce to_apply"));
  }
  return TupleOrSingle(shapes);
}

absl::StatusOr<Shape> InferAllGatherOrReduceScatter(
    const HloInstruction& hlo, const std::vector<Shape>& shapes) {
  const int64_t group = GroupSize(hlo);
  if (hlo.dimensions().size() != 1) {
    return Invalid(
        absl::StrCat(HloOpcodeString(hlo.opcode()), " takes one dimension"));
  }
  const int64_t dim = hlo.dimensions(0);
  std::vector<Shape> results;
  for (const Shape& s : shapes) {
    XLITE_RETURN_IF_ERROR(ExpectArray(s, "collective operand"));
    if (dim < 0 || dim >= s.rank()) {
      return Invalid(
          absl::StrCat("dimension ", dim, " out of range for ", S(s)));
    }
    Shape out = s;
    out.ClearLayouts();
    if (group == 0) return hlo.shape();  // Size depends on the device count.
    if (hlo.opcode() == HloOpcode::kReduceScatter) {
      if (s.dimensions(dim) % group != 0) {
        return Invalid(absl::StrCat("reduce-scatter dimension ", dim, " of ",
                                    S(s),
                                    " is not divisible by the group "
                                    "size ",
                                    group));
      }
      out.set_dimension(dim, s.dimensions(dim) / group);
    } else {
      out.set_dimension(dim, s.dimensions(dim) * group);
    }
    results.push_back(out);
  }
  if (hlo.opcode() == HloOpcode::kAllGatherStart) {
    std::vector<Shape> both = shapes;
    both.insert(both.end(), results.begin(), results.end());
    if (both.size() == 2) return Shape::Tuple(both);
    return Shape::Tuple({Shape::Tuple(shapes), Shape::Tuple(results)});
  }
  return TupleOrSingle(results);
}

absl::StatusOr<Shape> InferAllToAll(const HloInstruction& hlo,
                                    const std::vector<Shape>& shapes) {
  const int64_t group = GroupSize(hlo);
  if (hlo.has_dimensions() && !hlo.dimensions().empty()) {
    const int64_t dim = hlo.dimensions(0);
    if (shapes.size() != 1 || dim < 0 || dim >= shapes[0].rank()) {
      return Invalid("all-to-all split dimension out of range");
    }
    if (group > 0 && shapes[0].dimensions(dim) % group != 0) {
      return Invalid(
          absl::StrCat("all-to-all split dimension of ", S(shapes[0]),
                       " is not divisible by the group size ", group));
    }
    return shapes[0];
  }
  // The tuple form sends operand i to participant i: the operands share
  // one shape and the result is always a tuple, one operand or several.
  for (size_t i = 1; i < shapes.size(); ++i) {
    if (!ShapesCompatible(shapes[i], shapes[0])) {
      return Invalid(absl::StrCat("all-to-all operand ", i, " has shape ",
                                  S(shapes[i]), ", but operand 0 has ",
                                  S(shapes[0])));
    }
  }
  return Shape::Tuple(shapes);
}

absl::StatusOr<Shape> InferCollectivePermute(const HloInstruction& hlo) {
  const HloAttributes& a = hlo.attrs();
  for (const auto& [source, target] : a.collective->source_target_pairs) {
    if (source < 0 || target < 0) {
      return Invalid("collective-permute ids must be >= 0");
    }
  }
  // slice_sizes marks XLA's in-place form (input, output, input and
  // output offsets), which yields the output buffer; without it every
  // operand is an array permuted alongside the others.
  if (!a.collective->permute_slice_sizes.empty()) {
    if (hlo.operand_count() != 4) {
      return Invalid(absl::StrCat(
          "an in-place collective-permute (with slice_sizes) takes 4 "
          "operands, but has ",
          hlo.operand_count()));
    }
    return hlo.operand(1)->shape();
  }
  for (int64_t i = 0; i < hlo.operand_count(); ++i) {
    XLITE_RETURN_IF_ERROR(
        ExpectArray(hlo.operand(i)->shape(), "operand of collective-permute"));
  }
  return TupleOrSingle(OperandShapes(hlo));
}

}  // namespace

absl::StatusOr<Shape> InferCollectiveShape(const HloInstruction& hlo) {
  switch (hlo.opcode()) {
    case HloOpcode::kRaggedAllToAll:
      return hlo.operand(1)->shape();
    case HloOpcode::kCollectivePermute:
      return InferCollectivePermute(hlo);
    case HloOpcode::kCollectiveReduce:
    case HloOpcode::kCollectivePermuteStart:
      return hlo.shape();
    default:
      break;
  }
  XLITE_RETURN_IF_ERROR(CheckReplicaGroups(hlo));
  const std::vector<Shape> shapes = OperandShapes(hlo);
  switch (hlo.opcode()) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
      return InferAllReduce(hlo, shapes);
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kReduceScatter:
      return InferAllGatherOrReduceScatter(hlo, shapes);
    case HloOpcode::kAllToAll:
      return InferAllToAll(hlo, shapes);
    default:  // collective-broadcast
      return TupleOrSingle(shapes);
  }
}

}  // namespace shape_inference_internal
}  // namespace xlite
