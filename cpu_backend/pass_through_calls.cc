// Instructions that, on one device, pass their operands through: the
// sharding annotations (Sharding, SPMDFullToShardShape,
// SPMDShardToFullShape, xla.sdy.*) and host-placement annotations
// (MoveToHost, MoveToDevice, annotate_device_placement), whose one-device
// form is the identity; AllocateBuffer (zeros, as the evaluator gives);
// and the collectives of a module with one replica and one partition,
// which XLA defines for a group of one: all-reduce, collective-reduce,
// all-gather, reduce-scatter, all-to-all and collective-broadcast return
// their operands, collective-permute
// its operand where a pair targets device 0 and zeros elsewhere. The GPU
// backend rewrites the same instructions into copies before emission
// (passes/annotation_calls.h, passes/single_device_collectives.h).

#include <optional>

#include "absl/strings/str_cat.h"
#include "codegen/elemental.h"
#include "codegen/loops.h"
#include "codegen/scalar_ops.h"
#include "cpu_backend/library_calls.h"
#include "hlo/ir/opcode.h"
#include "passes/single_device_collectives.h"

namespace xlite::cpu {

using codegen::Index;
using codegen::IrArray;

namespace {

absl::Status EmitZeros(llvm::IRBuilderBase& b, const IrArray& out) {
  llvm::Value* zero = llvm::Constant::getNullValue(
      codegen::ValueType(out.shape().element_type(), b.getContext()));
  return codegen::EmitLoopNest(b, out.shape(), [&](const Index& index) {
    out.EmitWrite(b, index, zero);
    return absl::OkStatus();
  });
}

// Result leaf `leaf` ({} for an array result) of `hlo` and the operand that
// fills it: operand i for leaf i, or the only operand for an array.
struct Leaf {
  ShapeIndex index;
  const HloInstruction* operand;
};

absl::StatusOr<std::vector<Leaf>> Leaves(const HloInstruction* hlo) {
  const Shape& shape = hlo->shape();
  std::vector<Leaf> leaves;
  if (shape.IsTuple() && shape.tuple_shapes_size() == 0) return leaves;
  if (shape.IsArray() && hlo->operand_count() == 1) {
    leaves.push_back({{}, hlo->operand(0)});
  } else if (shape.IsTuple() &&
             shape.tuple_shapes_size() == hlo->operand_count()) {
    for (int64_t i = 0; i < hlo->operand_count(); ++i) {
      if (!shape.tuple_shapes(i).IsArray()) {
        return codegen::Unsupported(hlo, "nested tuple results");
      }
      leaves.push_back({{i}, hlo->operand(i)});
    }
  } else {
    return codegen::Unsupported(
        hlo, "needs one operand per result (one array, or a tuple)");
  }
  for (const Leaf& l : leaves) {
    if (!l.operand->shape().IsArray() ||
        !ShapesCompatible(l.operand->shape(),
                          *shape.Subshape(l.index))) {
      return codegen::Unsupported(
          hlo, absl::StrCat("from ", l.operand->shape().ToString(false), " to ",
                            shape.Subshape(l.index)->ToString(false),
                            " changes the shape, which needs more than one "
                            "device (or the SPMD partitioner first)"));
    }
  }
  return leaves;
}

// collective-permute on one device: does any pair send to device 0?
bool ReceivesOnOneDevice(const HloInstruction* hlo) {
  for (const auto& [source, target] :
       hlo->attrs().collective->source_target_pairs) {
    if (target == 0) return true;
  }
  return false;
}

}  // namespace

absl::Status EmitPassThrough(EmitterContext& ctx, llvm::IRBuilderBase& b,
                             const HloInstruction* hlo) {
  const HloOpcode op = hlo->opcode();
  const bool allocate = op == HloOpcode::kCustomCall &&
                        hlo->attrs().custom_call->target == "AllocateBuffer";
  // What one device computes, and what it refuses, are the GPU's too
  // (passes/single_device_collectives.h).
  if (op != HloOpcode::kCustomCall) {
    if (std::string why = OneDeviceRefusal(ctx.module(), *hlo); !why.empty()) {
      return codegen::Unsupported(hlo, why);
    }
  }
  bool zeros = allocate || (op == HloOpcode::kCollectivePermute &&
                            !ReceivesOnOneDevice(hlo));
  std::vector<Leaf> leaves;
  if (allocate) {
    if (hlo->shape().IsArray()) {
      leaves.push_back({{}, nullptr});
    } else {
      for (int64_t i = 0; i < hlo->shape().tuple_shapes_size(); ++i) {
        if (hlo->shape().tuple_shapes(i).IsArray()) leaves.push_back({{i}, nullptr});
      }
    }
  } else {
    absl::StatusOr<std::vector<Leaf>> l = Leaves(hlo);
    if (!l.ok()) return l.status();
    leaves = *std::move(l);
  }
  for (const Leaf& leaf : leaves) {
    absl::StatusOr<IrArray> out = ctx.ArrayFor(b, hlo, leaf.index);
    if (!out.ok()) return out.status();
    if (zeros) {
      if (absl::Status s = EmitZeros(b, *out); !s.ok()) return s;
      continue;
    }
    absl::StatusOr<runtime::Slice> to = ctx.assignment().GetSlice(hlo, leaf.index);
    absl::StatusOr<runtime::Slice> from =
        ctx.assignment().GetSlice(leaf.operand, {});
    if (to.ok() && from.ok() && *to == *from) continue;
    absl::StatusOr<IrArray> in = ctx.ArrayFor(b, leaf.operand);
    if (!in.ok()) return in.status();
    if (absl::Status s = EmitArrayCopy(b, *in, *out); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace xlite::cpu
