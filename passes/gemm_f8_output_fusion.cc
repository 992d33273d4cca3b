// What folds into the result of an f8 call (gemm_rewriter_f8.cc made it),
// as XLA's GemmRewriter does:
//   call * broadcast(s), call / broadcast(s)  -> a_scale = s or 1/s (when
//       a_scale is 1, the epilogue DEFAULT or RELU, beta 0)
//   convert_f8(clamp(broadcast(lowest), x, broadcast(max)))
//       x = call, call * broadcast(s) or call / broadcast(s)
//                                             -> the call returns f8,
//                                                d_scale = s or 1/s
//   reduce(abs(call), init <= 0, max) as the call's other user
//                                             -> (d, amax), damax_output
//   (no abs under RELU / BIAS_RELU: the values are not negative)

#include <cmath>

#include "passes/gemm_rewriter_internal.h"
#include "passes/hlo_util.h"

namespace xlite::gemm_rewriter {
namespace {

using PT = PrimitiveType;

bool IsF8Call(const RewriteState& state, const HloInstruction* h) {
  return state.IsCall(h) && !h->shape().IsTuple() &&
         h->attrs().custom_call->target == kCublasLtMatmulF8Target;
}

// The scalar under broadcast(scalar); nullptr otherwise.
HloInstruction* BroadcastScalarOf(HloInstruction* h) {
  if (h->opcode() != HloOpcode::kBroadcast) return nullptr;
  HloInstruction* s = h->mutable_operand(0);
  return s->shape().IsArray() && s->shape().rank() == 0 ? s : nullptr;
}

std::optional<double> ScalarConstant(const HloInstruction* h) {
  if (h->opcode() != HloOpcode::kConstant || !h->shape().IsArray() ||
      h->shape().rank() != 0 || !h->attrs().literal.has_value()) {
    return std::nullopt;
  }
  return h->attrs().literal->GetAsDouble(0);
}

// The scale as cuBLASLt multiplies by it: f32, 1/s for a divide.
HloInstruction* F32Scale(HloInstruction* s, bool invert) {
  HloComputation* c = s->parent();
  if (invert) {
    HloInstruction* one =
        AddConstant(c, Literal::Scalar(s->shape().element_type(), 1));
    s = AddNew(c, HloOpcode::kDivide, s->shape(), {one, s});
  }
  if (s->shape().element_type() != PT::kF32) {
    s = AddNew(c, HloOpcode::kConvert, LayoutLike(Shape(PT::kF32, {}), s), {s});
  }
  return s;
}

// h = call * broadcast(s) (either order) or call / broadcast(s); s.
HloInstruction* ScaledCall(const RewriteState& state, HloInstruction* h,
                           HloInstruction** call) {
  const bool mul = h->opcode() == HloOpcode::kMultiply;
  if (!mul && h->opcode() != HloOpcode::kDivide) return nullptr;
  for (int i = 0; i < (mul ? 2 : 1); ++i) {
    HloInstruction* s = BroadcastScalarOf(h->mutable_operand(1 - i));
    if (IsF8Call(state, h->operand(i)) && s != nullptr) {
      *call = h->mutable_operand(i);
      return s;
    }
  }
  return nullptr;
}

// call * s when a_scale is still 1: s becomes a_scale.
absl::StatusOr<bool> FuseDScaleIntoA(RewriteState& state, HloInstruction* h) {
  HloInstruction* call = nullptr;
  HloInstruction* s = ScaledCall(state, h, &call);
  if (s == nullptr || call->user_count() != 1 ||
      h->shape().element_type() != call->shape().element_type() ||
      h->shape().dimensions() != call->shape().dimensions()) {
    return false;
  }
  // A copy: CloneCall adds to state.calls, which moves its entries.
  const GemmBackendConfig config = state.calls[call];
  const HloInstruction* bcast = h->operand(h->operand(0) == call ? 1 : 0);
  if (bcast->user_count() != 1 || ScalarConstant(call->operand(2)) != 1.0 ||
      config.beta != 0 ||
      (config.epilogue != GemmEpilogue::kDefault &&
       config.epilogue != GemmEpilogue::kRelu)) {
    return false;
  }
  std::vector<HloInstruction*> operands = call->operands();
  operands[2] = F32Scale(s, h->opcode() == HloOpcode::kDivide);
  HloInstruction* fused =
      CloneCall(state, call, call->shape(), operands, config);
  state.calls.erase(call);
  if (absl::Status st = ReplaceInstruction(h, fused); !st.ok()) return st;
  return true;
}

// A reduce computing max |call| (or max call under ReLU) from init <= 0.
HloInstruction* AmaxReduce(HloInstruction* user, const GemmBackendConfig& c) {
  HloInstruction* r = user;
  if (user->opcode() == HloOpcode::kAbs) {
    if (user->user_count() != 1) return nullptr;
    r = user->users()[0];
  } else if (c.epilogue != GemmEpilogue::kRelu &&
             c.epilogue != GemmEpilogue::kBiasRelu) {
    return nullptr;
  }
  if (r->opcode() != HloOpcode::kReduce || r->operand_count() != 2 ||
      !r->shape().IsArray() || r->shape().rank() != 0) {
    return nullptr;
  }
  std::optional<double> init = ScalarConstant(r->operand(1));
  const HloComputation* f = r->to_apply();
  if (!init || *init > 0 || f == nullptr) return nullptr;
  const HloInstruction* root = f->root_instruction();
  if (root->opcode() != HloOpcode::kMaximum ||
      root->operand(0)->opcode() != HloOpcode::kParameter ||
      root->operand(1)->opcode() != HloOpcode::kParameter) {
    return nullptr;
  }
  return r;
}

// XLA's clamp bounds: the f8 type's lowest and largest finite values.
bool IsF8Range(PT t, const HloInstruction* lo, const HloInstruction* hi) {
  const double max = t == PT::kF8E4M3FN ? 448 : 57344;
  HloInstruction* l = BroadcastScalarOf(const_cast<HloInstruction*>(lo));
  HloInstruction* u = BroadcastScalarOf(const_cast<HloInstruction*>(hi));
  return l != nullptr && u != nullptr && ScalarConstant(l) == -max &&
         ScalarConstant(u) == max;
}

// convert_f8(clamp(lo, x, hi)) over the call; the f8 result, d_scale and
// amax folded in.
absl::StatusOr<bool> FuseF8Convert(RewriteState& state, HloInstruction* h) {
  const PT t = h->shape().element_type();
  if (h->opcode() != HloOpcode::kConvert ||
      (t != PT::kF8E4M3FN && t != PT::kF8E5M2)) {
    return false;
  }
  HloInstruction* clamp = h->mutable_operand(0);
  if (clamp->opcode() != HloOpcode::kClamp || clamp->user_count() != 1 ||
      !IsF8Range(t, clamp->operand(0), clamp->operand(2))) {
    return false;
  }
  HloInstruction* x = clamp->mutable_operand(1);
  HloInstruction* call = nullptr;
  HloInstruction* d_scale = nullptr;
  if (IsF8Call(state, x)) {
    call = x;
  } else if ((d_scale = ScaledCall(state, x, &call)) == nullptr ||
             x->user_count() != 1) {
    return false;
  }
  if (call->shape().dimensions() != h->shape().dimensions()) return false;
  // cuBLASLt has no e5m2 result for e4m3fn x e4m3fn (XLA does not check
  // this here and would emit a call cuBLASLt refuses).
  if (t == PT::kF8E5M2 &&
      call->operand(0)->shape().element_type() == PT::kF8E4M3FN &&
      call->operand(1)->shape().element_type() == PT::kF8E4M3FN) {
    return false;
  }
  GemmBackendConfig config = state.calls[call];
  HloInstruction* amax = nullptr;
  if (call->user_count() == 2) {
    for (HloInstruction* u : call->users()) {
      if (u != x && u != clamp) amax = AmaxReduce(u, config);
    }
    if (amax == nullptr) return false;
  } else if (call->user_count() > 2) {
    return false;
  }
  std::vector<HloInstruction*> operands = call->operands();
  std::vector<OutputOperandAlias> aliasing =
      call->attrs().output_to_operand_aliasing;
  if (config.beta != 0) {
    // A matrix bias stays only when cuBLASLt takes it beside an f8 d.
    const PT ct = call->operand(2)->shape().element_type();
    if (ct != PT::kBF16 && ct != PT::kF16) return false;
    aliasing.clear();
  }
  if (d_scale != nullptr) {
    operands[config.beta == 0 ? 5 : 6] =
        F32Scale(d_scale, x->opcode() == HloOpcode::kDivide);
  }
  config.damax_output = amax != nullptr;
  const Shape amax_shape = LayoutLike(Shape(PT::kF32, {}), h);
  const Shape shape =
      amax ? Shape::Tuple({h->shape(), amax_shape}) : h->shape();
  HloInstruction* fused = CloneCall(state, call, shape, operands, config);
  fused->mutable_attrs().output_to_operand_aliasing = aliasing;
  state.calls.erase(call);
  if (amax == nullptr) {
    if (absl::Status st = ReplaceInstruction(h, fused); !st.ok()) return st;
    return true;
  }
  HloComputation* c = h->parent();
  HloInstruction* d =
      AddNew(c, HloOpcode::kGetTupleElement, h->shape(), {fused});
  d->set_index(0);
  HloInstruction* m =
      AddNew(c, HloOpcode::kGetTupleElement, amax_shape, {fused});
  m->set_index(1);
  HloInstruction* m_cast = m;
  if (amax->shape().element_type() != PT::kF32) {
    m_cast = AddNew(c, HloOpcode::kConvert, amax->shape(), {m});
  }
  if (absl::Status st = ReplaceInstruction(amax, m_cast); !st.ok()) return st;
  if (absl::Status st = ReplaceInstruction(h, d); !st.ok()) return st;
  return true;
}

}  // namespace

HloInstruction* F8VectorBias(const GemmBackendConfig& config,
                             HloInstruction* bias, PT out) {
  // With a matrix bias already folded, XLA folds no vector bias.
  if (config.beta != 0) return nullptr;
  if (bias->shape().element_type() != PT::kF32) return bias;
  if (bias->opcode() != HloOpcode::kConvert) return nullptr;
  HloInstruction* source = bias->mutable_operand(0);
  const PT t = source->shape().element_type();
  const bool f8_out = out == PT::kF8E4M3FN || out == PT::kF8E5M2;
  if ((t == PT::kBF16 && (f8_out || out == PT::kF32 || out == PT::kBF16)) ||
      (t == PT::kF16 && (f8_out || out == PT::kF16))) {
    return source;
  }
  return nullptr;
}

absl::StatusOr<bool> FuseF8Output(RewriteState& state, HloInstruction* h) {
  absl::StatusOr<bool> done = FuseF8Convert(state, h);
  if (!done.ok() || *done) return done;
  return FuseDScaleIntoA(state, h);
}

}  // namespace xlite::gemm_rewriter
