// What the GEMM rewriter folds into a call it made (gemm_rewriter.h), one
// matcher per pattern:
//   multiply(call, broadcast(c))              -> alpha *= c
//   add(call, broadcast(bias over minor dims)) -> epilogue BIAS, operand bias
//   add(call, matrix)                          -> beta = 1, operand c
//   maximum(call, broadcast(0))                -> RELU / BIAS_RELU
//   multiply(call, 0.5 * (1 + tanh(sqrt(2/pi) * (call + 0.044715 * call^3))))
//                                              -> GELU / BIAS_GELU (_AUX)
// Every folded value has the call as its only user unless noted, as XLA
// requires (a call whose result is used elsewhere cannot change it).

#include <cmath>
#include <limits>

#include "passes/gemm_rewriter_internal.h"
#include "passes/hlo_util.h"

namespace xlite::gemm_rewriter {
namespace {

using PT = PrimitiveType;

bool SupportsEpilogue(PT t) {
  return t == PT::kF16 || t == PT::kBF16 || t == PT::kF32 || t == PT::kF64 ||
         t == PT::kF8E4M3FN || t == PT::kF8E5M2;
}

// A broadcast of a scalar constant; its value.
std::optional<std::complex<double>> BroadcastScalar(const HloInstruction* h) {
  if (h->opcode() != HloOpcode::kBroadcast) return std::nullopt;
  const HloInstruction* c = h->operand(0);
  if (c->opcode() != HloOpcode::kConstant || c->shape().rank() != 0 ||
      !c->attrs().literal.has_value()) {
    return std::nullopt;
  }
  return c->attrs().literal->GetAsComplex(0);
}

bool IsBroadcastOf(const HloInstruction* h, double v) {
  std::optional<std::complex<double>> got = BroadcastScalar(h);
  return got && *got == std::complex<double>(v, 0);
}

// XLA's "near" test for the GELU constants (written rounded in the type).
bool IsBroadcastNear(const HloInstruction* h, double v) {
  std::optional<std::complex<double>> got = BroadcastScalar(h);
  if (!got || got->imag() != 0) return false;
  const PT t = h->shape().element_type();
  const double eps = t == PT::kF16    ? 9.765625e-4
                     : t == PT::kBF16 ? 7.8125e-3
                     : t == PT::kF32  ? 1.1920929e-7
                     : t == PT::kF64  ? 2.220446e-16
                                      : 0;
  return std::fabs(got->real() - v) < std::fabs(got->real() + v) * 128 * eps;
}

// h = op(x, y) in either order with f(x, y).
template <typename F>
bool Commutes(const HloInstruction* h, HloOpcode op, F f) {
  if (h->opcode() != op || h->operand_count() != 2) return false;
  return f(h->mutable_operand(0), h->mutable_operand(1)) ||
         f(h->mutable_operand(1), h->mutable_operand(0));
}

bool OneUser(const HloInstruction* h) { return h->user_count() == 1; }

// Replaces `h` by `replacement` after dropping `old_call` from the state
// (it dies with h: h, or h and the pattern under it, were its users).
absl::Status Replace(RewriteState& state, HloInstruction* old_call,
                     HloInstruction* h, HloInstruction* replacement) {
  if (old_call != replacement) {
    state.calls.erase(old_call);
  }
  return ReplaceInstruction(h, replacement);
}

std::vector<HloInstruction*> Operands(const HloInstruction* call) {
  return call->operands();
}

absl::StatusOr<bool> FuseAlpha(RewriteState& state, HloInstruction* h,
                               HloInstruction* call, HloInstruction* other) {
  std::optional<std::complex<double>> v = BroadcastScalar(other);
  GemmBackendConfig config = state.calls[call];
  // alpha scales the product only: not a bias or an activation already
  // folded in.
  if (!v || !OneUser(call) || !OneUser(other) || config.beta != 0 ||
      config.epilogue != GemmEpilogue::kDefault ||
      call->shape().element_type() == PT::kS32) {
    return false;
  }
  const std::complex<double> alpha =
      std::complex<double>(config.alpha_real, config.alpha_imag) * *v;
  config.alpha_real = alpha.real();
  config.alpha_imag = alpha.imag();
  HloInstruction* fused =
      CloneCall(state, call, call->shape(), Operands(call), config);
  return Replace(state, call, h, fused).ok();
}

absl::StatusOr<bool> FuseVectorBias(RewriteState& state, HloInstruction* h,
                                    HloInstruction* call,
                                    HloInstruction* broadcast) {
  GemmBackendConfig config = state.calls[call];
  if (broadcast->opcode() != HloOpcode::kBroadcast || !state.IsLtCall(call) ||
      !OneUser(call) || config.epilogue != GemmEpilogue::kDefault ||
      !SupportsEpilogue(call->shape().element_type())) {
    return false;
  }
  // The bias spans the result's column dimensions (the rhs's free ones,
  // logically last), which must also be its physically most minor: with
  // another layout (a column-major result) the minor dimension is M, and a
  // bias along M is not the call's per-column bias.
  HloInstruction* bias = broadcast->mutable_operand(0);
  const DotDimensionNumbers& d = config.dnums;
  const int64_t columns = call->operand(1)->shape().rank() -
                          d.rhs_batch_dimensions.size() -
                          d.rhs_contracting_dimensions.size();
  const Shape& out = call->shape();
  if (bias->shape().rank() != columns) return false;
  for (int64_t i = 0; i < columns; ++i) {
    const int64_t minor = out.has_layout() ? out.layout().minor_to_major()[i]
                                           : out.rank() - 1 - i;
    if (minor != out.rank() - 1 - i) return false;
    const auto& dims = broadcast->dimensions();
    auto it = std::find(dims.begin(), dims.end(), minor);
    if (it == dims.end()) return false;
    const int64_t bias_minor = bias->shape().has_layout()
                                   ? bias->shape().layout().minor_to_major()[i]
                                   : bias->shape().rank() - 1 - i;
    if (bias_minor != it - dims.begin()) return false;
  }
  // The call takes the columns in the result's order: [.., N] as a vector.
  if (columns > 1 || bias->shape().rank() != columns) return false;
  if (call->attrs().custom_call->target == kCublasLtMatmulF8Target) {
    bias = F8VectorBias(config, bias, call->shape().element_type());
    if (bias == nullptr) return false;
  }
  config.epilogue = GemmEpilogue::kBias;
  std::vector<HloInstruction*> operands = Operands(call);
  operands.push_back(bias);
  HloInstruction* fused =
      CloneCall(state, call, call->shape(), operands, config);
  return Replace(state, call, h, fused).ok();
}

// The bias may be overwritten (legacy cuBLAS writes d over c): nothing else
// reads it.
bool CanOverwrite(const HloInstruction* bias) {
  if (bias->user_count() > 1) return false;
  if (bias->opcode() != HloOpcode::kParameter) return true;
  const HloComputation* c = bias->parent();
  const HloModule* m = c->parent();
  if (m->entry_computation() != c) return false;
  for (const InputOutputAlias& a : m->config().input_output_alias) {
    if (a.parameter_number == bias->parameter_number() &&
        a.parameter_index.empty()) {
      return true;
    }
  }
  return false;
}

absl::StatusOr<bool> FuseMatrixBias(RewriteState& state, HloInstruction* h,
                                    HloInstruction* call, HloInstruction* c) {
  GemmBackendConfig config = state.calls[call];
  const bool overwrite = CanOverwrite(c);
  if (c->opcode() == HloOpcode::kBroadcast || !OneUser(call) ||
      config.beta != 0 || call->shape().element_type() == PT::kS32 ||
      (config.epilogue != GemmEpilogue::kDefault &&
       config.epilogue != GemmEpilogue::kBias) ||
      c->shape().element_type() != call->shape().element_type() ||
      c->shape().dimensions() != call->shape().dimensions() ||
      // cuBLASLt takes no f8 matrix bias.
      c->shape().element_type() == PT::kF8E4M3FN ||
      c->shape().element_type() == PT::kF8E5M2 ||
      (!state.IsLtCall(call) && !overwrite)) {
    return false;
  }
  config.beta = 1;
  std::vector<HloInstruction*> operands = Operands(call);
  operands.insert(operands.begin() + 2, c);
  HloInstruction* fused =
      CloneCall(state, call, call->shape(), operands, config);
  if (!state.IsLtCall(call) || overwrite) {
    fused->mutable_attrs().output_to_operand_aliasing = {
        OutputOperandAlias{{}, 2, {}}};
  }
  return Replace(state, call, h, fused).ok();
}

absl::StatusOr<bool> FuseRelu(RewriteState& state, HloInstruction* h,
                              HloInstruction* call, HloInstruction* zeros) {
  GemmBackendConfig config = state.calls[call];
  if (!IsBroadcastOf(zeros, 0) || !state.IsLtCall(call) || !OneUser(call) ||
      !SupportsEpilogue(call->shape().element_type())) {
    return false;
  }
  if (config.epilogue == GemmEpilogue::kDefault) {
    config.epilogue = GemmEpilogue::kRelu;
  } else if (config.epilogue == GemmEpilogue::kBias) {
    config.epilogue = GemmEpilogue::kBiasRelu;
  } else {
    return false;
  }
  HloInstruction* fused =
      CloneCall(state, call, call->shape(), Operands(call), config);
  return Replace(state, call, h, fused).ok();
}

// cdf = 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * (x * (x * x))))), each
// intermediate used once.
bool IsGeluCdf(const HloInstruction* cdf, const HloInstruction* x) {
  auto is_x = [x](const HloInstruction* h) { return h == x; };
  auto cube = [&](HloInstruction* h) {
    return OneUser(h) && Commutes(h, HloOpcode::kMultiply,
                                  [&](HloInstruction* p, HloInstruction* q) {
                                    return is_x(p) && OneUser(q) &&
                                           Commutes(q, HloOpcode::kMultiply,
                                                    [&](HloInstruction* r,
                                                        HloInstruction* s) {
                                                      return is_x(r) && is_x(s);
                                                    });
                                  });
  };
  auto inner = [&](HloInstruction* h) {
    return OneUser(h) &&
           Commutes(
               h, HloOpcode::kAdd, [&](HloInstruction* p, HloInstruction* q) {
                 return is_x(p) && OneUser(q) &&
                        Commutes(q, HloOpcode::kMultiply,
                                 [&](HloInstruction* r, HloInstruction* s) {
                                   return IsBroadcastNear(r, 0.044715) &&
                                          cube(s);
                                 });
               });
  };
  auto tanh = [&](HloInstruction* h) {
    if (h->opcode() != HloOpcode::kTanh || !OneUser(h)) return false;
    HloInstruction* arg = h->mutable_operand(0);
    return OneUser(arg) &&
           Commutes(arg, HloOpcode::kMultiply,
                    [&](HloInstruction* r, HloInstruction* s) {
                      return IsBroadcastNear(r, std::sqrt(2.0 / M_PI)) &&
                             inner(s);
                    });
  };
  return OneUser(cdf) &&
         Commutes(cdf, HloOpcode::kMultiply,
                  [&](HloInstruction* half, HloInstruction* sum) {
                    return IsBroadcastOf(half, 0.5) && OneUser(sum) &&
                           Commutes(
                               sum, HloOpcode::kAdd,
                               [&](HloInstruction* one, HloInstruction* t) {
                                 return IsBroadcastOf(one, 1) && tanh(t);
                               });
                  });
}

absl::StatusOr<bool> FuseGelu(RewriteState& state, HloInstruction* h,
                              HloInstruction* call, HloInstruction* cdf) {
  GemmBackendConfig config = state.calls[call];
  if (!state.IsLtCall(call) ||
      !SupportsEpilogue(call->shape().element_type()) ||
      call->shape().IsTuple() || !IsGeluCdf(cdf, call)) {
    return false;
  }
  const bool aux = call->user_count() > 4;  // the pattern reads it 4 times
  // gemm_config.h: an f8 call has no aux output.
  if (aux && call->attrs().custom_call->target == kCublasLtMatmulF8Target) {
    return false;
  }
  std::optional<GemmEpilogue> e = std::nullopt;
  if (config.epilogue == GemmEpilogue::kDefault ||
      config.epilogue == GemmEpilogue::kBias) {
    e = MakeEpilogue(config.epilogue == GemmEpilogue::kBias,
                     GemmActivation::kGelu, aux);
  }
  if (!e) return false;
  config.epilogue = *e;
  const Shape& s = call->shape();
  HloInstruction* fused = CloneCall(state, call, aux ? Shape::Tuple({s, s}) : s,
                                    Operands(call), config);
  if (!aux) return Replace(state, call, h, fused).ok();
  HloComputation* c = call->parent();
  HloInstruction* d = AddNew(c, HloOpcode::kGetTupleElement, s, {fused});
  d->set_index(0);
  HloInstruction* pre = AddNew(c, HloOpcode::kGetTupleElement, s, {fused});
  pre->set_index(1);
  if (absl::Status st = ReplaceInstruction(h, d); !st.ok()) return st;
  state.calls.erase(call);
  if (absl::Status st = ReplaceInstruction(call, pre); !st.ok()) return st;
  return true;
}

}  // namespace

absl::StatusOr<bool> FuseEpilogue(RewriteState& state, HloInstruction* h) {
  if (h->operand_count() != 2) return false;
  for (int i = 0; i < 2; ++i) {
    HloInstruction* call = h->mutable_operand(i);
    HloInstruction* other = h->mutable_operand(1 - i);
    if (!state.IsCall(call) || call->shape().IsTuple() ||
        h->shape().dimensions() != call->shape().dimensions() ||
        h->shape().element_type() != call->shape().element_type()) {
      continue;
    }
    absl::StatusOr<bool> done = false;
    switch (h->opcode()) {
      case HloOpcode::kMultiply:
        done = FuseAlpha(state, h, call, other);
        if (done.ok() && !*done) done = FuseGelu(state, h, call, other);
        break;
      case HloOpcode::kAdd:
        done = FuseVectorBias(state, h, call, other);
        if (done.ok() && !*done) done = FuseMatrixBias(state, h, call, other);
        break;
      case HloOpcode::kMaximum:
        done = FuseRelu(state, h, call, other);
        break;
      default:
        return false;
    }
    if (!done.ok() || *done) return done;
  }
  return false;
}

}  // namespace xlite::gemm_rewriter
