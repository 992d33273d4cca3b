// The f8 half of gemm-rewriter (gemm_rewriter.h): dots fed by dequantized
// f8 values become `__cublas$lt$matmul$f8` calls (compute capability >=
// 8.9), as XLA's GemmRewriter does:
//   dot(s_a * convert(a8), s_b * convert(b8))
//       -> call(a8, b8', s_a, s_b, 1, 1)       (b8' = b8 made K-major)
// with `/ s` for `* s`, a plain convert meaning scale 1, and bitcast /
// broadcast / copy / reshape / slice / transpose between the dequantization
// and the dot moved onto the f8 value. f8 dots that cannot become such a
// call are upcast to f16 (bf16 for a bf16 result) for the ordinary path.
// Output side (FuseF8Output):
//   call * broadcast(s) or call / broadcast(s)      -> a_scale = s or 1/s
//                                                      (a_scale 1 only)
//   convert_f8(clamp(-max, call [* or / broadcast(s)], max))
//                                                   -> f8 result, d_scale
//   + reduce(max, abs(call)) beside it              -> damax_output

#include <algorithm>
#include <numeric>

#include "absl/container/flat_hash_set.h"
#include "passes/gemm_rewriter_internal.h"
#include "passes/hlo_util.h"

namespace xlite::gemm_rewriter {
namespace {

using PT = PrimitiveType;

bool IsF8(PT t) { return IsFloatingPoint(t) && BitWidth(t) == 8; }
bool IsF8(const HloInstruction* h) {
  return h->shape().IsArray() && IsF8(h->shape().element_type());
}

/// An operand of a dot traced back to the f8 value it dequantizes.
struct F8Operand {
  HloInstruction* f8 = nullptr;
  HloInstruction* scale = nullptr;  // scalar; nullptr: scale 1
  bool multiply = true;             // x * scale (else x / scale)
  /// Ops between the dequantization and the dot that commute with it, in
  /// order, each with the operand number the value flows through.
  std::vector<std::pair<HloInstruction*, int64_t>> moved;
};

// Walks operands from `h` up to an f8 value through unary ops, divide,
// pad and dynamic-slice (operand 0), multiply (either side) and select (either
// value); the path from the f8 value down to `h`.
std::optional<std::vector<HloInstruction*>> PathFromF8(
    HloInstruction* h, absl::flat_hash_set<HloInstruction*>& seen) {
  if (!seen.insert(h).second) return std::nullopt;
  if (IsF8(h)) return std::vector<HloInstruction*>{h};
  std::vector<int> tries;
  if (h->operand_count() == 1 || h->opcode() == HloOpcode::kDivide ||
      h->opcode() == HloOpcode::kPad ||
      h->opcode() == HloOpcode::kDynamicSlice) {
    tries = {0};
  } else if (h->opcode() == HloOpcode::kMultiply) {
    tries = {0, 1};
  } else if (h->opcode() == HloOpcode::kSelect) {
    tries = {1, 2};
  }
  for (int i : tries) {
    if (auto path = PathFromF8(h->mutable_operand(i), seen)) {
      path->push_back(h);
      return path;
    }
  }
  return std::nullopt;
}

// `h` is broadcast(x); x.
HloInstruction* BroadcastSource(HloInstruction* h) {
  return h->opcode() == HloOpcode::kBroadcast ? h->mutable_operand(0) : nullptr;
}

// The ops XLA moves in front of the dequantization, the value flowing
// through operand `from`: they commute with convert and scaling. A select
// needs zeros on its other side, and a pad (unlike XLA, which converts any
// padding value) a zero padding value, so the rewrite stays exact.
// Collectives (XLA: SPMD modules only) are not taken.
bool Movable(const HloInstruction* h, int64_t from) {
  switch (h->opcode()) {
    case HloOpcode::kBitcast:
      return h->shape().element_type() == h->operand(0)->shape().element_type();
    case HloOpcode::kBroadcast:
    case HloOpcode::kCopy:
    case HloOpcode::kReshape:
    case HloOpcode::kSlice:
    case HloOpcode::kTranspose:
    case HloOpcode::kDynamicSlice:
      return true;
    case HloOpcode::kPad:
      return IsUniform(h->operand(1), 0);
    case HloOpcode::kSelect:
      return h->operand(3 - from)->opcode() == HloOpcode::kBroadcast &&
             IsUniform(h->operand(3 - from), 0);
    default:
      return false;
  }
}

std::optional<F8Operand> MatchF8Operand(HloInstruction* operand) {
  absl::flat_hash_set<HloInstruction*> seen;
  std::optional<std::vector<HloInstruction*>> path = PathFromF8(operand, seen);
  if (!path) return std::nullopt;
  const std::vector<HloInstruction*>& p = *path;
  F8Operand out;
  out.f8 = p[0];
  size_t start = 1;
  if (p.size() > 1) {
    if (p[1]->opcode() != HloOpcode::kConvert) return std::nullopt;
    start = 2;
    if (p.size() > 2 && (p[2]->opcode() == HloOpcode::kMultiply ||
                         p[2]->opcode() == HloOpcode::kDivide)) {
      const bool mul = p[2]->opcode() == HloOpcode::kMultiply;
      const int self = p[2]->operand(0) == p[1] ? 0 : 1;
      HloInstruction* scale = BroadcastSource(p[2]->mutable_operand(1 - self));
      if (scale != nullptr && (mul || self == 0)) {
        out.scale = scale;
        out.multiply = mul;
        start = 3;
      }
    }
  }
  for (size_t i = start; i < p.size(); ++i) {
    const auto& ops = p[i]->operands();
    const int64_t from =
        std::find(ops.begin(), ops.end(), p[i - 1]) - ops.begin();
    if (!Movable(p[i], from)) return std::nullopt;
    out.moved.push_back({p[i], from});
  }
  return out;
}

// cuBLASLt's f8 type triples: e4m3fn x e4m3fn -> bf16/f16/f32/e4m3fn;
// one e5m2 side -> those and e5m2; never e5m2 x e5m2.
bool F8TypesSupported(PT a, PT b, PT out) {
  auto f8 = [](PT t) { return t == PT::kF8E4M3FN || t == PT::kF8E5M2; };
  if (!f8(a) || !f8(b) || (a == PT::kF8E5M2 && b == PT::kF8E5M2)) {
    return false;
  }
  if (out == PT::kBF16 || out == PT::kF16 || out == PT::kF32 ||
      out == PT::kF8E4M3FN) {
    return true;
  }
  return out == PT::kF8E5M2 && a != b;
}

// The moved ops replayed on the f8 value (same dimensions and layout, f8
// elements; zeros stay zeros).
HloInstruction* ReplayOnF8(
    HloInstruction* x,
    const std::vector<std::pair<HloInstruction*, int64_t>>& moved) {
  for (const auto& [op, from] : moved) {
    HloComputation* c = op->parent();
    const PT t = x->shape().element_type();
    Shape s = op->shape();
    s.set_element_type(t);
    std::vector<HloInstruction*> operands = op->operands();
    operands[from] = x;
    if (op->opcode() == HloOpcode::kPad) {
      operands[1] = AddConstant(c, Literal::Scalar(t, 0));
    } else if (op->opcode() == HloOpcode::kSelect) {
      operands[3 - from] =
          AddBroadcast(c, AddConstant(c, Literal::Scalar(t, 0)), s, {});
    }
    x = c->AddInstruction(op->CloneWithNewOperands(s, operands));
    x->set_name(c->parent()->NewInstructionName(HloOpcodeString(op->opcode())));
  }
  return x;
}

// Swaps the contracting and the free dimension of a matrix operand,
// keeping the layout (so the contracting one becomes the minor one).
HloInstruction* SwapMatrixDims(HloInstruction* x, int64_t contracting,
                               int64_t free) {
  const Shape& s = x->shape();
  std::vector<int64_t> perm(s.rank());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[contracting], perm[free]);
  std::vector<int64_t> dims;
  for (int64_t d : perm) dims.push_back(s.dimensions(d));
  Shape t(s.element_type(), dims);
  if (s.has_layout()) t.set_layout(s.layout());
  HloInstruction* tr = AddNew(x->parent(), HloOpcode::kTranspose, t, {x});
  *tr->mutable_dimensions() = perm;
  tr->set_has_dimensions(true);
  return tr;
}

// Pads the dimensions from `first` on to multiples of 16 (cuBLASLt's f8
// kernels need them).
HloInstruction* PadTo16(HloInstruction* x, int64_t first) {
  const Shape& s = x->shape();
  Shape padded = s;
  PaddingConfig config;
  bool any = false;
  std::vector<int64_t> dims(s.dimensions().begin(), s.dimensions().end());
  for (int64_t i = 0; i < s.rank(); ++i) {
    PaddingDimension d;
    if (i >= first && dims[i] % 16 != 0) {
      d.edge_padding_high = 16 - dims[i] % 16;
      dims[i] += d.edge_padding_high;
      any = true;
    }
    config.dimensions.push_back(d);
  }
  if (!any) return x;
  padded.set_dimensions(dims);
  if (s.has_layout()) padded.set_layout(s.layout());
  HloComputation* c = x->parent();
  HloInstruction* zero = AddConstant(c, Literal::Scalar(s.element_type(), 0));
  HloInstruction* pad = AddNew(c, HloOpcode::kPad, padded, {x, zero});
  pad->mutable_attrs().padding = config;
  return pad;
}

// The scale as cuBLASLt takes it: f32, multiplying.
HloInstruction* F32Scale(HloInstruction* scale, bool invert,
                         HloInstruction* one) {
  HloComputation* c = scale->parent();
  const PT t = scale->shape().element_type();
  if (invert) {
    HloInstruction* unit =
        t == PT::kF32 ? one : AddConstant(c, Literal::Scalar(t, 1));
    scale = AddNew(c, HloOpcode::kDivide, scale->shape(), {unit, scale});
  }
  if (t != PT::kF32) {
    scale = AddNew(c, HloOpcode::kConvert,
                   LayoutLike(Shape(PT::kF32, {}), scale), {scale});
  }
  return scale;
}

// Whether the contracting dimension of operand `x` is more minor than its
// free one.
bool ContractingIsMinor(const Shape& x, int64_t contracting, int64_t free) {
  const std::vector<int64_t> order = MajorToMinor(x);
  return std::find(order.begin(), order.end(), contracting) >
         std::find(order.begin(), order.end(), free);
}

// The dot's shape checks of XLA's f8 path: one contracting dimension,
// matrices with leading (and physically major) batch dimensions.
bool F8DotShapeSupported(const HloInstruction* dot) {
  const DotDimensionNumbers& d = dot->attrs().dot->dnums;
  const int64_t nb = d.lhs_batch_dimensions.size();
  if (!dot->attrs().dot->algorithm.empty() ||
      d.lhs_contracting_dimensions.size() != 1 ||
      d.rhs_contracting_dimensions.size() != 1) {
    return false;
  }
  std::vector<int64_t> leading(nb);
  std::iota(leading.begin(), leading.end(), 0);
  int64_t batch = nb == 0 ? 0 : 1;
  for (const Shape* s :
       {&dot->operand(0)->shape(), &dot->operand(1)->shape(), &dot->shape()}) {
    if (s->rank() != nb + 2 || s->ElementCount() == 0) return false;
    const std::vector<int64_t> order = MajorToMinor(*s);
    if (!std::equal(leading.begin(), leading.end(), order.begin())) {
      return false;
    }
  }
  if (d.lhs_batch_dimensions != leading || d.rhs_batch_dimensions != leading) {
    return false;
  }
  for (int64_t i = 0; i < nb; ++i) batch *= dot->shape().dimensions(i);
  return batch <= 65535;
}

// XLA leaves tiny dots ((rows + cols) * k below the threshold) with a
// float result its emitters handle (f16, bf16, f32) to those emitters.
bool LeftToEmitters(const HloInstruction* dot, const GemmRewriterOptions& o) {
  const PT out = dot->shape().element_type();
  if (out != PT::kF16 && out != PT::kBF16 && out != PT::kF32) return false;
  const DotDimensionNumbers& d = dot->attrs().dot->dnums;
  auto product = [](const Shape& s, const std::vector<int64_t>& batch,
                    const std::vector<int64_t>& contracting, bool free) {
    int64_t n = 1;
    for (int64_t i = 0; i < s.rank(); ++i) {
      const bool is_k = std::count(contracting.begin(), contracting.end(), i);
      const bool is_b = std::count(batch.begin(), batch.end(), i);
      if (free ? !is_k && !is_b : is_k) n *= s.dimensions(i);
    }
    return n;
  };
  const Shape& a = dot->operand(0)->shape();
  const Shape& b = dot->operand(1)->shape();
  const int64_t rows =
      product(a, d.lhs_batch_dimensions, d.lhs_contracting_dimensions, true);
  const int64_t cols =
      product(b, d.rhs_batch_dimensions, d.rhs_contracting_dimensions, true);
  const int64_t k =
      product(a, d.lhs_batch_dimensions, d.lhs_contracting_dimensions, false);
  return (rows + cols) * k < o.size_threshold;
}

}  // namespace

absl::StatusOr<bool> RewriteF8Dot(RewriteState& state, HloInstruction* dot) {
  const GemmRewriterOptions& o = *state.options;
  if (o.compute_capability_major * 10 + o.compute_capability_minor < 89 ||
      !F8DotShapeSupported(dot)) {
    return false;
  }
  std::optional<F8Operand> a = MatchF8Operand(dot->mutable_operand(0));
  std::optional<F8Operand> b = MatchF8Operand(dot->mutable_operand(1));
  if (!a || !b) return false;
  const PT out = dot->shape().element_type();
  if (!F8TypesSupported(a->f8->shape().element_type(),
                        b->f8->shape().element_type(), out)) {
    return false;
  }
  for (const F8Operand* x : {&*a, &*b}) {
    if (x->scale != nullptr && x->scale->shape().rank() != 0) return false;
  }
  if (LeftToEmitters(dot, o)) return false;
  const int64_t nb = dot->attrs().dot->dnums.lhs_batch_dimensions.size();
  DotDimensionNumbers d = dot->attrs().dot->dnums;
  GemmBackendConfig config = ConfigFor(dot, d);
  HloComputation* c = dot->parent();
  HloInstruction* one = AddConstant(c, Literal::Scalar(PT::kF32, 1));
  HloInstruction* x[2] = {ReplayOnF8(a->f8, a->moved),
                          ReplayOnF8(b->f8, b->moved)};
  // cuBLASLt's f8 kernels take both operands K-major ("TN").
  for (int i = 0; i < 2; ++i) {
    std::vector<int64_t>& contracting =
        i == 0 ? d.lhs_contracting_dimensions : d.rhs_contracting_dimensions;
    const int64_t kd = contracting[0];
    const int64_t free = kd == nb ? nb + 1 : nb;
    if (!ContractingIsMinor(x[i]->shape(), kd, free)) {
      x[i] = SwapMatrixDims(x[i], kd, free);
      contracting[0] = free;
    }
    x[i] = PadTo16(x[i], nb);
  }
  config.dnums = d;
  HloInstruction* scales[2];
  for (int i = 0; i < 2; ++i) {
    const F8Operand& op = i == 0 ? *a : *b;
    scales[i] =
        op.scale == nullptr ? one : F32Scale(op.scale, !op.multiply, one);
  }
  Shape padded = dot->shape();
  std::vector<int64_t> dims(padded.dimensions().begin(),
                            padded.dimensions().end());
  for (int64_t i = nb; i < padded.rank(); ++i) {
    dims[i] = (dims[i] + 15) / 16 * 16;
  }
  padded.set_dimensions(dims);
  if (dot->shape().has_layout()) padded.set_layout(dot->shape().layout());
  HloInstruction* call = AddNew(c, HloOpcode::kCustomCall, padded,
                                {x[0], x[1], scales[0], scales[1], one, one});
  call->mutable_attrs().custom_call->target =
      std::string(kCublasLtMatmulF8Target);
  // XLA names f8 calls like legacy ones.
  call->set_name(c->parent()->NewInstructionName(
      nb == 0 ? "cublas-gemm" : "cublas-batch-gemm"));
  state.calls[call] = config;
  HloInstruction* result = call;
  if (padded.dimensions() != dot->shape().dimensions()) {
    result = AddNew(c, HloOpcode::kSlice, dot->shape(), {call});
    for (int64_t i = 0; i < padded.rank(); ++i) {
      result->mutable_attrs().slice.push_back(
          SliceDimension{0, dot->shape().dimensions(i), 1});
    }
  }
  if (absl::Status s = ReplaceInstruction(dot, result); !s.ok()) return s;
  return true;
}

absl::StatusOr<HloInstruction*> UpcastF8Dot(
    HloInstruction* dot, const GemmRewriterOptions& options) {
  // Only dots XLA takes for GEMMs at all: one contracting dimension,
  // matrices or a matrix and a vector.
  const DotDimensionNumbers& d = dot->attrs().dot->dnums;
  const int64_t nb = d.lhs_batch_dimensions.size();
  const int64_t ra = dot->operand(0)->shape().rank();
  const int64_t rb = dot->operand(1)->shape().rank();
  if (!IsF8(dot->operand(0)) || !IsF8(dot->operand(1)) ||
      d.lhs_contracting_dimensions.size() != 1 || ra < nb + 1 || ra > nb + 2 ||
      rb < nb + 1 || rb > nb + 2 || (ra == nb + 1 && rb == nb + 1) ||
      LeftToEmitters(dot, options)) {
    return dot;
  }
  HloComputation* c = dot->parent();
  const PT out = dot->shape().element_type();
  const PT wide = out == PT::kBF16 ? PT::kBF16 : PT::kF16;
  for (int i = 0; i < 2; ++i) {
    Shape s = dot->operand(i)->shape();
    s.set_element_type(wide);
    HloInstruction* cv =
        AddNew(c, HloOpcode::kConvert, s, {dot->mutable_operand(i)});
    if (absl::Status st = dot->ReplaceOperandWithDifferentShape(i, cv);
        !st.ok()) {
      return st;
    }
  }
  if (!IsF8(out)) return dot;
  Shape s = dot->shape();
  s.set_element_type(PT::kF16);
  HloInstruction* wide_dot =
      c->AddInstruction(dot->CloneWithNewOperands(s, dot->operands()));
  wide_dot->set_name(c->parent()->NewInstructionName(dot->name()));
  HloInstruction* back =
      AddNew(c, HloOpcode::kConvert, dot->shape(), {wide_dot});
  if (absl::Status st = ReplaceInstruction(dot, back); !st.ok()) return st;
  return wide_dot;
}

}  // namespace xlite::gemm_rewriter
