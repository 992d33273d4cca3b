// block-scaling-rewriter and block-scaled-dot-global-scale-fusion.

#include "passes/block_scaling.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "hlo/ir/block_scaled_config.h"
#include "hlo/ir/float_types.h"
#include "hlo/ir/primitive_type.h"
#include "passes/block_scaling_internal.h"
#include "passes/hlo_util.h"

namespace xlite {
namespace block_scaling_internal {

absl::Status Error(const HloInstruction* h, absl::string_view message) {
  const absl::string_view what = h->opcode() == HloOpcode::kCustomCall
                                     ? h->attrs().custom_call->target
                                     : HloOpcodeString(h->opcode());
  return absl::InvalidArgumentError(
      absl::StrCat(h->name(), " (", what, "): ", message));
}

bool DefaultLayout(const Shape& s) {
  return !s.has_layout() || s.layout() == xlite::DefaultLayout(s.rank());
}

}  // namespace block_scaling_internal

namespace {

using block_scaling_internal::Builder;
using block_scaling_internal::DefaultLayout;
using block_scaling_internal::DotParts;
using block_scaling_internal::Error;
using block_scaling_internal::Last;
using block_scaling_internal::RoundUp;

constexpr char kBlockScaledDot[] = "__op$block_scaled_dot";
constexpr char kCudnnBlockScaledDot[] = "__cudnn$blockScaledDot";
constexpr char kQuantize[] = "__op$quantize";
constexpr char kDequantize[] = "__op$dequantize";

HloInstruction* AddParameter(HloComputation* c, int64_t number,
                             const Shape& shape, absl::string_view name) {
  std::unique_ptr<HloInstruction> p =
      HloInstruction::Create(HloOpcode::kParameter, shape);
  p->set_index(number);
  p->set_name(c->parent()->NewInstructionName(name));
  return c->AddInstruction(std::move(p));
}

bool IsCall(const HloInstruction* h, absl::string_view target) {
  return h->opcode() == HloOpcode::kCustomCall &&
         h->attrs().custom_call->target == target;
}

// The explicit block size (hlo/ir/block_scaled_config.h, shared with the
// evaluator so hlo-run and the rewritten module agree).
absl::StatusOr<std::optional<int64_t>> ConfiguredBlockSize(
    const HloInstruction* h) {
  absl::StatusOr<std::optional<int64_t>> block =
      BlockSizeFromBackendConfig(h->backend_config());
  if (!block.ok()) return Error(h, block.status().message());
  return block;
}

// The layout of the broadcast that adds the block dimension after the
// scale's last dimension: the operand's order with the new (most-numbered)
// dimension placed immediately minor to the scale's last dimension.
Layout BlockBroadcastLayout(const Shape& scale) {
  const int64_t rank = scale.rank();
  std::vector<int64_t> m2m;
  for (int64_t d : scale.layout().minor_to_major()) {
    if (d == rank - 1) m2m.push_back(rank);
    m2m.push_back(d);
  }
  return Layout(m2m);
}

// convert(data) * reshape(broadcast(convert(scale))) in type `t`, the
// scale first sliced to [rows, ceil(K/B)] if it was pre-padded.
HloInstruction* Dequantize(Builder& b, HloInstruction* data,
                           HloInstruction* scale, int64_t block,
                           PrimitiveType t) {
  const Shape& ds = data->shape();
  const int64_t k = Last(ds);
  const int64_t blocks = (k + block - 1) / block;
  std::vector<int64_t> needed(ds.dimensions().begin(), ds.dimensions().end());
  needed.back() = blocks;
  scale = b.Slice(scale, needed);
  HloInstruction* wide_scale = b.Convert(scale, t);
  std::vector<int64_t> expanded = needed;
  expanded.push_back(block);
  std::vector<int64_t> keep;
  for (int64_t i = 0; i < scale->shape().rank(); ++i) keep.push_back(i);
  Shape bshape = b.S(t, expanded);
  if (scale->shape().has_layout() && !DefaultLayout(scale->shape())) {
    bshape.set_layout(BlockBroadcastLayout(scale->shape()));
  }
  HloInstruction* bcast =
      AddBroadcast(b.computation(), wide_scale, bshape, keep);
  std::vector<int64_t> flat = needed;
  flat.back() = blocks * block;
  HloInstruction* wide_data = b.Convert(data, t);
  Shape rshape = b.S(t, flat);
  if (wide_data->shape().has_layout()) {
    rshape.set_layout(wide_data->shape().layout());
  }
  HloInstruction* per_element = AddReshape(b.computation(), bcast, rshape);
  std::vector<int64_t> data_dims(ds.dimensions().begin(),
                                 ds.dimensions().end());
  per_element = b.Slice(per_element, data_dims);
  return b.Binary(HloOpcode::kMultiply, wide_data, per_element);
}

HloInstruction* ContractLast(Builder& b, HloInstruction* lhs,
                             HloInstruction* rhs, const Shape& result) {
  const int64_t rank = lhs->shape().rank();
  HloInstruction* dot = AddNew(b.computation(), HloOpcode::kDot, result,
                               {lhs, rhs});
  DotDimensionNumbers& d = dot->mutable_attrs().dot->dnums;
  d.lhs_contracting_dimensions = {rank - 1};
  d.rhs_contracting_dimensions = {rank - 1};
  if (rank == 3) {
    d.lhs_batch_dimensions = {0};
    d.rhs_batch_dimensions = {0};
  }
  return dot;
}


absl::StatusOr<DotParts> Inspect(HloInstruction* h) {
  const int64_t n = h->operand_count();
  if (n < 3 || n > 5) {
    return Error(h, absl::StrCat("takes 3 to 5 operands, got ", n));
  }
  DotParts p{h->mutable_operand(0), h->mutable_operand(1),
             h->mutable_operand(2)};
  if (n >= 4) p.rhs_scale = h->mutable_operand(3);
  if (n == 5) p.global = h->mutable_operand(4);
  const int64_t rank = p.lhs->shape().rank();
  if ((rank != 2 && rank != 3) || p.rhs->shape().rank() != rank ||
      !h->shape().IsArray() || h->shape().rank() != rank) {
    return Error(h, "operands and result must be rank 2 or 3 alike");
  }
  if (p.global != nullptr &&
      (p.global->shape().rank() != 0 ||
       p.global->shape().element_type() != h->shape().element_type())) {
    return Error(h, "the global scale must be a scalar of the result type");
  }
  absl::StatusOr<std::optional<int64_t>> configured_or =
      ConfiguredBlockSize(h);
  if (!configured_or.ok()) return configured_or.status();
  const std::optional<int64_t> configured = *configured_or;
  auto block_of = [&](HloInstruction* data,
                      HloInstruction* scale) -> absl::StatusOr<int64_t> {
    if (scale->shape().rank() != rank) {
      return Error(h, "scales must have the data's rank");
    }
    if (configured.has_value()) {
      return *configured;
    }
    const int64_t k = Last(data->shape()), sk = Last(scale->shape());
    if (sk == 0 || k % sk != 0) {
      return Error(h, absl::StrCat("the block size K / scale_K = ", k, " / ",
                                   sk, " is not a whole number"));
    }
    return k / sk;
  };
  absl::StatusOr<int64_t> lb = block_of(p.lhs, p.lhs_scale);
  if (!lb.ok()) return lb.status();
  p.lhs_block = *lb;
  if (p.rhs_scale != nullptr) {
    absl::StatusOr<int64_t> rb = block_of(p.rhs, p.rhs_scale);
    if (!rb.ok()) return rb.status();
    p.rhs_block = *rb;
  }
  return p;
}

// The expansion: a call of a new computation doing the math in HLO.
absl::Status Expand(HloInstruction* h, const DotParts& p) {
  HloComputation* caller = h->parent();
  HloModule& module = *caller->parent();
  auto body = std::make_unique<HloComputation>(
      module.NewComputationName("block_scaled_dot"));
  HloComputation* c = module.AddComputation(std::move(body));
  static const char* const kNames[] = {"lhs", "rhs", "lhs_scale", "rhs_scale",
                                       "global_scale"};
  std::vector<HloInstruction*> params;
  for (int64_t i = 0; i < h->operand_count(); ++i) {
    params.push_back(AddParameter(c, i, h->operand(i)->shape(), kNames[i]));
  }
  Builder b(c, h);
  const PrimitiveType t = h->shape().element_type();
  HloInstruction* lhs = Dequantize(b, params[0], params[2], p.lhs_block, t);
  HloInstruction* rhs = p.rhs_scale != nullptr
                            ? Dequantize(b, params[1], params[3], p.rhs_block, t)
                            : b.Convert(params[1], t);
  HloInstruction* result = ContractLast(b, lhs, rhs, h->shape());
  if (p.global != nullptr) {
    HloInstruction* g = AddBroadcast(c, params[4], h->shape(), {});
    result = b.Binary(HloOpcode::kMultiply, result, g);
  }
  c->set_root_instruction(result);
  HloInstruction* call = AddNew(caller, HloOpcode::kCall, h->shape(),
                                h->operands());
  call->AppendCalledComputation(c);
  call->set_metadata(h->metadata());
  return ReplaceInstruction(h, call, /*always_remove=*/true);
}

// 128x4 tile swizzle of a [B?, R, Ks] scale (R % 128 == 0, Ks % 4 == 0).
HloInstruction* Swizzle(Builder& b, HloInstruction* scale) {
  const Shape& s = scale->shape();
  const bool batched = s.rank() == 3;
  const int64_t rows = s.dimensions(s.rank() - 2), ks = Last(s);
  std::vector<int64_t> tiled;
  if (batched) tiled.push_back(s.dimensions(0));
  for (int64_t d : {rows / 128, int64_t{4}, int64_t{32}, ks / 4, int64_t{4}}) {
    tiled.push_back(d);
  }
  HloInstruction* r = b.Reshape(scale, tiled);
  std::vector<int64_t> perm = batched ? std::vector<int64_t>{0, 1, 4, 3, 2, 5}
                                      : std::vector<int64_t>{0, 3, 2, 1, 4};
  std::vector<int64_t> permuted;
  for (int64_t d : perm) permuted.push_back(tiled[d]);
  HloInstruction* t = AddNew(b.computation(), HloOpcode::kTranspose,
                             b.S(s.element_type(), permuted), {r});
  *t->mutable_dimensions() = perm;
  t->set_has_dimensions(true);
  std::vector<int64_t> back(s.dimensions().begin(), s.dimensions().end());
  return b.Reshape(t, back);
}

enum class Family { kNone, kMxfp8, kNvfp4 };

Family FamilyOf(PrimitiveType data, PrimitiveType scale) {
  if ((data == PrimitiveType::kF8E4M3FN || data == PrimitiveType::kF8E5M2) &&
      scale == PrimitiveType::kF8E8M0FNU) {
    return Family::kMxfp8;
  }
  if (data == PrimitiveType::kF4E2M1FN && scale == PrimitiveType::kF8E4M3FN) {
    return Family::kNvfp4;
  }
  return Family::kNone;
}

}  // namespace

namespace block_scaling_internal {

bool CudnnEligible(HloInstruction* h, const DotParts& p,
                   const BlockScalingTarget& target) {
  if (!target.cudnn.AtLeast(9, 10) || target.compute_capability_major < 10 ||
      p.rhs_scale == nullptr) {
    return false;
  }
  const PrimitiveType lt = p.lhs->shape().element_type();
  const PrimitiveType rt = p.rhs->shape().element_type();
  const Family lf = FamilyOf(lt, p.lhs_scale->shape().element_type());
  const Family rf = FamilyOf(rt, p.rhs_scale->shape().element_type());
  if (lf == Family::kNone || lf != rf) return false;  // MXFP8 x NVFP4 too
  if (lt == PrimitiveType::kF8E5M2 && rt == PrimitiveType::kF8E5M2) {
    return false;
  }
  const int64_t block = lf == Family::kMxfp8 ? 32 : 16;
  if (p.lhs_block != block || p.rhs_block != block) return false;
  const PrimitiveType out = h->shape().element_type();
  if (out != PrimitiveType::kF32 && out != PrimitiveType::kF16 &&
      out != PrimitiveType::kBF16) {
    return false;
  }
  for (const HloInstruction* o : h->operands()) {
    if (!DefaultLayout(o->shape())) return false;
  }
  if (!DefaultLayout(h->shape())) return false;
  if (Last(p.lhs->shape()) % block != 0) return false;
  // Pre-padded scales must at least cover the data.
  for (auto [data, scale] : {std::pair{p.lhs, p.lhs_scale},
                             std::pair{p.rhs, p.rhs_scale}}) {
    const Shape& ds = data->shape();
    const Shape& ss = scale->shape();
    if (ss.dimensions(ss.rank() - 2) < ds.dimensions(ds.rank() - 2) ||
        Last(ss) < Last(ds) / block) {
      return false;
    }
  }
  return true;
}

HloInstruction* BuildCudnnCall(HloInstruction* h, const DotParts& p,
                               const BlockScalingTarget& target) {
  HloComputation* c = h->parent();
  Builder b(c, h);
  const int64_t rank = h->shape().rank();
  auto pad_side = [&](HloInstruction* data, HloInstruction* scale,
                      bool* padded) {
    const Shape& ds = data->shape();
    const Shape& ss = scale->shape();
    const int64_t rows = std::max(ds.dimensions(rank - 2),
                                  ss.dimensions(rank - 2));
    const int64_t sk = Last(ss);
    if (rows % 128 == 0 && sk % 4 == 0 &&
        ds.dimensions(rank - 2) == ss.dimensions(rank - 2)) {
      return std::pair{data, scale};
    }
    std::vector<int64_t> ddims(ds.dimensions().begin(), ds.dimensions().end());
    ddims[rank - 2] = RoundUp(rows, 128);
    std::vector<int64_t> sdims(ss.dimensions().begin(), ss.dimensions().end());
    sdims[rank - 2] = RoundUp(rows, 128);
    sdims[rank - 1] = RoundUp(sk, 4);
    *padded |= ddims[rank - 2] != ds.dimensions(rank - 2);
    return std::pair{b.PadTo(data, ddims), b.PadTo(scale, sdims)};
  };
  bool padded = false;
  auto [lhs, ls] = pad_side(p.lhs, p.lhs_scale, &padded);
  auto [rhs, rs] = pad_side(p.rhs, p.rhs_scale, &padded);
  std::vector<int64_t> out_dims(h->shape().dimensions().begin(),
                                h->shape().dimensions().end());
  std::vector<int64_t> padded_dims = out_dims;
  padded_dims[rank - 2] = lhs->shape().dimensions(rank - 2);
  padded_dims[rank - 1] = rhs->shape().dimensions(rank - 2);
  const PrimitiveType t = h->shape().element_type();
  const bool scale_inside = p.global != nullptr && target.cudnn.AtLeast(9, 13);
  std::vector<HloInstruction*> operands = {lhs, rhs, Swizzle(b, ls),
                                           Swizzle(b, rs)};
  if (scale_inside) operands.push_back(p.global);
  Shape tuple = Shape::Tuple({b.S(t, padded_dims),
                              b.S(PrimitiveType::kU8, {0})});
  // A custom call keeps its other attributes; a scaled-dot becomes one.
  std::unique_ptr<HloInstruction> call_owner =
      h->opcode() == HloOpcode::kCustomCall
          ? h->CloneWithNewOperands(tuple, operands)
          : HloInstruction::Create(HloOpcode::kCustomCall, tuple, operands);
  call_owner->set_metadata(h->metadata());
  call_owner->set_name(c->parent()->NewInstructionName("cudnn-block-scaled-dot"));
  call_owner->mutable_attrs().custom_call->target = kCudnnBlockScaledDot;
  call_owner->set_backend_config("");
  HloInstruction* call = c->AddInstruction(std::move(call_owner));
  HloInstruction* result = AddNew(c, HloOpcode::kGetTupleElement,
                                  tuple.tuple_shapes(0), {call});
  result->set_index(0);
  if (p.global != nullptr && !scale_inside) {
    // cuDNN 9.10-9.12 would ignore the scale: multiply outside.
    HloInstruction* g = AddBroadcast(c, p.global, result->shape(), {});
    result = b.Binary(HloOpcode::kMultiply, result, g);
  }
  return b.Slice(result, out_dims);
}

}  // namespace block_scaling_internal

namespace {

// dequantize(data, scale) -> its expansion in place.
absl::Status ExpandDequantize(HloInstruction* h) {
  if (h->operand_count() != 2) return Error(h, "takes (data, scale)");
  absl::StatusOr<std::optional<int64_t>> configured = ConfiguredBlockSize(h);
  if (!configured.ok()) return configured.status();
  std::optional<int64_t> block = *configured;
  const int64_t k = Last(h->operand(0)->shape());
  const int64_t sk = Last(h->operand(1)->shape());
  if (!block.has_value()) {
    if (sk == 0 || k % sk != 0) {
      return Error(h, "the block size K / scale_K is not a whole number");
    }
    block = k / sk;
  }
  Builder b(h->parent(), h);
  HloInstruction* out =
      Dequantize(b, h->mutable_operand(0), h->mutable_operand(1), *block,
                 h->shape().element_type());
  return ReplaceKeepingShape(h, out);
}

// The largest power of two not above the type's largest finite value
// (256 for f8e4m3fn).
double OverflowPower(PrimitiveType type) {
  double max = 0;
  const FloatFormat* f = GetFloatFormat(type);
  for (uint64_t v = 0; f != nullptr && v < (uint64_t{1} << f->total_bits());
       ++v) {
    const double x = DecodeToF64(type, v);
    if (std::isfinite(x)) max = std::max(max, x);
  }
  return max > 0 ? std::exp2(std::floor(std::log2(max))) : 1.0;
}

HloComputation* MaxComputation(HloModule& module, PrimitiveType t) {
  auto c = std::make_unique<HloComputation>(module.NewComputationName("max"));
  HloComputation* raw = module.AddComputation(std::move(c));
  Shape s(t, {});
  HloInstruction* a = AddParameter(raw, 0, s, "a");
  HloInstruction* b2 = AddParameter(raw, 1, s, "b");
  raw->set_root_instruction(AddNew(raw, HloOpcode::kMaximum, s, {a, b2}));
  return raw;
}

// quantize(x) -> (data, scale) expanded: per block abs-max / 2^(emax-1)
// as the scale, data = x / scale.
absl::Status ExpandQuantize(HloInstruction* h) {
  if (h->operand_count() != 1 || !h->shape().IsTuple() ||
      h->shape().tuple_shapes_size() != 2) {
    return Error(h, "takes x and returns (data, scale)");
  }
  HloInstruction* x = h->mutable_operand(0);
  const Shape& ds = h->shape().tuple_shapes(0);
  const Shape& ss = h->shape().tuple_shapes(1);
  const int64_t k = Last(x->shape());
  const int64_t sk = Last(ss);
  absl::StatusOr<std::optional<int64_t>> configured = ConfiguredBlockSize(h);
  if (!configured.ok()) return configured.status();
  std::optional<int64_t> block = *configured;
  if (!block.has_value()) {
    if (sk == 0 || k % sk != 0) {
      return Error(h, "the block size K / scale_K is not a whole number");
    }
    block = k / sk;
  }
  if (*block * sk != k) return Error(h, "blocks must tile K exactly");
  HloComputation* c = h->parent();
  Builder b(c, h);
  const PrimitiveType t = x->shape().element_type();
  std::vector<int64_t> dims(x->shape().dimensions().begin(),
                            x->shape().dimensions().end());
  std::vector<int64_t> blocked = dims;
  blocked.back() = sk;
  blocked.push_back(*block);
  HloInstruction* xb = b.Reshape(x, blocked);
  HloInstruction* abs = AddNew(c, HloOpcode::kAbs, xb->shape(), {xb});
  Literal zero = Literal::Scalar(t, 0);
  zero.mutable_shape_for_layout() = b.S(t, {});
  HloInstruction* init = AddConstant(c, std::move(zero));
  std::vector<int64_t> sdims = dims;
  sdims.back() = sk;
  HloInstruction* absmax =
      AddNew(c, HloOpcode::kReduce, b.S(t, sdims), {abs, init});
  *absmax->mutable_dimensions() = {static_cast<int64_t>(blocked.size()) - 1};
  absmax->set_has_dimensions(true);
  absmax->AppendCalledComputation(MaxComputation(*c->parent(), t));
  HloInstruction* divisor =
      AddFilledLike(c, absmax->shape(), OverflowPower(ds.element_type()), h);
  HloInstruction* wide_scale = b.Binary(HloOpcode::kDivide, absmax, divisor);
  HloInstruction* scale = b.Convert(wide_scale, ss.element_type());
  HloInstruction* stored = b.Convert(scale, t);
  std::vector<int64_t> keep;
  for (size_t i = 0; i < sdims.size(); ++i) keep.push_back(i);
  HloInstruction* sb = AddBroadcast(c, stored, xb->shape(), keep);
  HloInstruction* q = b.Binary(HloOpcode::kDivide, xb, sb);
  HloInstruction* data = b.Convert(b.Reshape(q, dims), ds.element_type());
  HloInstruction* tuple = AddNew(c, HloOpcode::kTuple, h->shape(),
                                 {data, scale});
  return ReplaceKeepingShape(h, tuple);
}

}  // namespace

absl::StatusOr<bool> RunBlockScalingRewriter(HloModule& module,
                                             const BlockScalingTarget& target) {
  bool changed = false;
  for (HloComputation* c : module.MakeComputationPostOrder()) {
    for (HloInstruction* h : c->MakeInstructionPostOrder()) {
      absl::Status s = absl::OkStatus();
      if (h->opcode() == HloOpcode::kScaledDot) {
        s = block_scaling_internal::RewriteScaledDot(h, target);
      } else if (h->opcode() != HloOpcode::kCustomCall) {
        continue;
      } else if (IsCall(h, kBlockScaledDot)) {
        absl::StatusOr<DotParts> parts = Inspect(h);
        if (!parts.ok()) return parts.status();
        s = CudnnEligible(h, *parts, target)
                ? ReplaceKeepingShape(h, BuildCudnnCall(h, *parts, target))
                : Expand(h, *parts);
      } else if (IsCall(h, kDequantize)) {
        s = ExpandDequantize(h);
      } else if (IsCall(h, kQuantize)) {
        s = ExpandQuantize(h);
      } else {
        continue;
      }
      if (!s.ok()) return s;
      changed = true;
    }
  }
  return changed;
}

absl::Status ExpandScaledDot(HloInstruction* scaled_dot) {
  // No cuDNN: the expansion.
  return block_scaling_internal::RewriteScaledDot(scaled_dot,
                                                  BlockScalingTarget{});
}

absl::StatusOr<bool> RunBlockScaledDotGlobalScaleFusion(HloModule& module) {
  bool changed = false;
  for (HloComputation* c : module.computations()) {
    for (HloInstruction* m : c->MakeInstructionPostOrder()) {
      if (m->opcode() != HloOpcode::kMultiply) continue;
      for (int side : {0, 1}) {
        HloInstruction* dot = m->mutable_operand(side);
        HloInstruction* bcast = m->mutable_operand(1 - side);
        if (!IsCall(dot, kBlockScaledDot) || dot->operand_count() >= 5 ||
            dot->operand_count() < 3 || dot->user_count() != 1 ||
            HasControlDeps(dot) || bcast->opcode() != HloOpcode::kBroadcast ||
            bcast->operand(0)->shape().rank() != 0 ||
            bcast->operand(0)->shape().element_type() !=
                dot->shape().element_type() ||
            !ShapesCompatible(m->shape(), dot->shape())) {
          continue;
        }
        HloInstruction* scalar = bcast->mutable_operand(0);
        std::vector<HloInstruction*> operands = dot->operands();
        if (operands.size() == 3) {
          // A 3-operand call quantizes only lhs; a 5-operand call needs an
          // rhs scale, so the fold does not apply.
          continue;
        }
        operands.push_back(scalar);
        std::unique_ptr<HloInstruction> fused =
            dot->CloneWithNewOperands(m->shape(), operands);
        fused->set_name(module.NewInstructionName(dot->name()));
        HloInstruction* raw = c->AddInstruction(std::move(fused));
        absl::Status s = ReplaceInstruction(m, raw);
        if (!s.ok()) return s;
        changed = true;
        break;
      }
    }
  }
  return changed;
}

}  // namespace xlite
