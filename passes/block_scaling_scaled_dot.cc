// block-scaling-rewriter on the scaled-dot opcode:
//   scaled-dot(lhs, rhs, lhs_scale, rhs_scale[, input_global_scale,
//              weight_global_scale])
// In the custom call's form ([B?,M,K] x [B?,N,K], K contracted, one scale
// per row and block of K) and where the target's cuDNN takes the types, it
// becomes __cudnn$blockScaledDot like __op$block_scaled_dot does; anything
// else expands as XLA's scaled-dot rewriter expands it: each side
// convert(data) * reshape(broadcast(convert(scale))) over per-dimension
// blocks, then the dot with the instruction's dimension numbers. The NVFP4
// form then divides by weight_global_scale in f32, as XLA's global-scale
// expander does (input_global_scale cancels out of the value).

#include <optional>

#include "absl/strings/str_cat.h"
#include "hlo/ir/block_scaled_config.h"
#include "passes/block_scaling_internal.h"

namespace xlite {
namespace block_scaling_internal {
namespace {

// The parts of a scaled-dot already in the custom call's form, or nullopt.
std::optional<DotParts> CustomCallForm(HloInstruction* h) {
  const Shape& lhs = h->operand(0)->shape();
  const int64_t rank = lhs.rank();
  if ((rank != 2 && rank != 3) || !h->shape().IsArray() ||
      h->shape().rank() != rank) {
    return std::nullopt;
  }
  const DotDimensionNumbers& d = h->attrs().dot->dnums;
  const std::vector<int64_t> contracting = {rank - 1};
  const std::vector<int64_t> batch =
      rank == 3 ? std::vector<int64_t>{0} : std::vector<int64_t>{};
  if (d.lhs_contracting_dimensions != contracting ||
      d.rhs_contracting_dimensions != contracting ||
      d.lhs_batch_dimensions != batch || d.rhs_batch_dimensions != batch) {
    return std::nullopt;
  }
  int64_t blocks[2];
  for (int side : {0, 1}) {
    const Shape& data = h->operand(side)->shape();
    const Shape& scale = h->operand(side + 2)->shape();
    if (data.rank() != rank || scale.rank() != rank || Last(scale) == 0 ||
        Last(data) % Last(scale) != 0) {
      return std::nullopt;
    }
    // One scale per row: blocks only along K.
    for (int64_t i = 0; i + 1 < rank; ++i) {
      if (scale.dimensions(i) != data.dimensions(i)) return std::nullopt;
    }
    blocks[side] = Last(data) / Last(scale);
  }
  DotParts p{h->mutable_operand(0), h->mutable_operand(1),
             h->mutable_operand(2)};
  p.rhs_scale = h->mutable_operand(3);
  p.lhs_block = blocks[0];
  p.rhs_block = blocks[1];
  return p;
}

// data * scale with the scale repeated over blocks of data.dim(i) /
// scale.dim(i) along every dimension i; a scalar scale (XLA's placeholder
// for an unscaled side) leaves the data as it is.
absl::StatusOr<HloInstruction*> DequantizeSide(Builder& b, HloInstruction* h,
                                               int side) {
  HloInstruction* data = h->mutable_operand(side);
  HloInstruction* scale = h->mutable_operand(side + 2);
  const Shape& ds = data->shape();
  const Shape& ss = scale->shape();
  if (ss.rank() == 0) return data;
  if (ss.rank() != ds.rank()) {
    return Error(h, "a scale must have its operand's rank");
  }
  const PrimitiveType t =
      ScaledDotDequantizeType(ds.element_type(), ss.element_type());
  // The scale gets a block dimension after each dimension it tiles.
  std::vector<int64_t> broadcast_dims, expanded;
  for (int64_t i = 0; i < ds.rank(); ++i) {
    const int64_t o = ds.dimensions(i), s = ss.dimensions(i);
    if (s == 0 ? o != 0 : o % s != 0) {
      return Error(h, absl::StrCat("scale dimension ", i,
                                   " does not tile its operand's"));
    }
    broadcast_dims.push_back(expanded.size());
    expanded.push_back(s);
    if (o != s) expanded.push_back(o / s);
  }
  HloInstruction* wide_data = b.Convert(data, t);
  HloInstruction* wide_scale = b.Convert(scale, t);
  HloInstruction* blocked = AddBroadcast(b.computation(), wide_scale,
                                         b.S(t, expanded), broadcast_dims);
  HloInstruction* per_element = b.Reshape(
      blocked, std::vector<int64_t>(ds.dimensions().begin(),
                                    ds.dimensions().end()));
  return b.Binary(HloOpcode::kMultiply, wide_data, per_element);
}

absl::StatusOr<HloInstruction*> Expand(HloInstruction* h) {
  Builder b(h->parent(), h);
  absl::StatusOr<HloInstruction*> lhs = DequantizeSide(b, h, 0);
  if (!lhs.ok()) return lhs.status();
  absl::StatusOr<HloInstruction*> rhs = DequantizeSide(b, h, 1);
  if (!rhs.ok()) return rhs.status();
  HloInstruction* dot =
      AddNew(h->parent(), HloOpcode::kDot, h->shape(), {*lhs, *rhs});
  *dot->mutable_attrs().dot = *h->attrs().dot;
  dot->mutable_attrs().operand_precision = h->attrs().operand_precision;
  dot->set_metadata(h->metadata());
  return dot;
}

// value / weight_global_scale, in f32 whatever the result type.
HloInstruction* DivideByWeightGlobalScale(HloInstruction* h,
                                          HloInstruction* value) {
  Builder b(h->parent(), h);
  HloInstruction* wide = b.Convert(value, PrimitiveType::kF32);
  HloInstruction* divisor = AddBroadcast(
      h->parent(), b.Convert(h->mutable_operand(5), PrimitiveType::kF32),
      wide->shape(), {});
  HloInstruction* scaled = b.Binary(HloOpcode::kDivide, wide, divisor);
  return b.Convert(scaled, h->shape().element_type());
}

}  // namespace

absl::Status RewriteScaledDot(HloInstruction* h,
                              const BlockScalingTarget& target) {
  const int64_t n = h->operand_count();
  if (n != 4 && n != 6) {
    return Error(h, absl::StrCat("takes 4 or 6 operands, got ", n));
  }
  HloInstruction* value = nullptr;
  std::optional<DotParts> parts = CustomCallForm(h);
  if (parts.has_value() && CudnnEligible(h, *parts, target)) {
    value = BuildCudnnCall(h, *parts, target);
  } else {
    absl::StatusOr<HloInstruction*> expanded = Expand(h);
    if (!expanded.ok()) return expanded.status();
    value = *expanded;
  }
  if (n == 6) value = DivideByWeightGlobalScale(h, value);
  return ReplaceKeepingShape(h, value);
}

}  // namespace block_scaling_internal
}  // namespace xlite
