#include "passes/gemm_call_expansion.h"

#include <algorithm>
#include <cmath>
#include <complex>

#include "absl/strings/str_cat.h"
#include "hlo/ir/gemm_config.h"
#include "passes/hlo_util.h"

namespace xlite {
namespace {

absl::Status CallError(const HloInstruction* call, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("%", call->name(), ": ", what));
}

// Builds the expansion of one call in its computation.
class Expander {
 public:
  Expander(HloInstruction* call, const GemmBackendConfig& config,
           const GemmCallLayout& layout, PrimitiveType compute)
      : call_(call),
        comp_(call->parent()),
        config_(config),
        layout_(layout),
        compute_(compute),
        d_shape_(GemmOutputShape(call->shape())) {}

  absl::StatusOr<HloInstruction*> Build();

 private:
  Shape Like(PrimitiveType t, absl::Span<const int64_t> dims) const {
    return LayoutLike(Shape(t, dims), call_);
  }
  Shape Compute() const { return Like(compute_, d_shape_.dimensions()); }
  HloInstruction* Operand(int64_t i) const { return call_->mutable_operand(i); }
  HloInstruction* Convert(HloInstruction* x, PrimitiveType t) {
    if (x->shape().element_type() == t) return x;
    return AddNew(comp_, HloOpcode::kConvert,
                  Like(t, x->shape().dimensions()), {x});
  }
  HloInstruction* Binary(HloOpcode op, HloInstruction* x, HloInstruction* y) {
    return AddNew(comp_, op, x->shape(), {x, y});
  }
  // A scalar instruction broadcast over the result.
  HloInstruction* Splat(HloInstruction* scalar) {
    return AddBroadcast(comp_, Convert(scalar, compute_), Compute(), {});
  }
  HloInstruction* Filled(double v) {
    return AddFilledLike(comp_, Compute(), v, call_);
  }
  HloInstruction* Dot();
  absl::StatusOr<HloInstruction*> AddBias(HloInstruction* x);
  HloInstruction* Activate(HloInstruction* x);
  HloInstruction* Amax(HloInstruction* x);
  HloInstruction* Output(HloInstruction* x);

  HloInstruction* call_;
  HloComputation* comp_;
  const GemmBackendConfig& config_;
  const GemmCallLayout& layout_;
  PrimitiveType compute_;
  Shape d_shape_;
};

// dot(a, b) in the compute type, reshaped to d's dimensions.
HloInstruction* Expander::Dot() {
  HloInstruction* a = Convert(Operand(0), compute_);
  HloInstruction* b = Convert(Operand(1), compute_);
  const DotDimensionNumbers& d = config_.dnums;
  std::vector<int64_t> dims;
  for (int64_t i : d.lhs_batch_dimensions) dims.push_back(a->shape().dimensions(i));
  auto free = [&](const Shape& s, const std::vector<int64_t>& batch,
                  const std::vector<int64_t>& contracting) {
    for (int64_t i = 0; i < s.rank(); ++i) {
      if (std::find(batch.begin(), batch.end(), i) == batch.end() &&
          std::find(contracting.begin(), contracting.end(), i) ==
              contracting.end()) {
        dims.push_back(s.dimensions(i));
      }
    }
  };
  free(a->shape(), d.lhs_batch_dimensions, d.lhs_contracting_dimensions);
  free(b->shape(), d.rhs_batch_dimensions, d.rhs_contracting_dimensions);
  HloInstruction* dot =
      AddNew(comp_, HloOpcode::kDot, Like(compute_, dims), {a, b});
  dot->mutable_attrs().dot->dnums = d;
  if (dot->shape().dimensions() == d_shape_.dimensions()) return dot;
  return AddReshape(comp_, dot, Compute());
}

// x + bias broadcast over d's leading dimensions (the bias covers the
// trailing ones whose sizes multiply to its length).
absl::StatusOr<HloInstruction*> Expander::AddBias(HloInstruction* x) {
  HloInstruction* bias = Convert(Operand(layout_.bias), compute_);
  const int64_t n = bias->shape().ElementCount();
  const int64_t rank = d_shape_.rank();
  int64_t k = 0, size = 1;
  while (size < n && k < rank) size *= d_shape_.dimensions(rank - 1 - k++);
  if (size != n) {
    return CallError(call_, "the bias does not cover trailing result "
                            "dimensions");
  }
  std::vector<int64_t> trailing(d_shape_.dimensions().end() - k,
                                d_shape_.dimensions().end());
  std::vector<int64_t> positions;
  for (int64_t i = rank - k; i < rank; ++i) positions.push_back(i);
  if (!std::equal(trailing.begin(), trailing.end(),
                  bias->shape().dimensions().begin(),
                  bias->shape().dimensions().end())) {
    bias = AddReshape(comp_, bias, Like(compute_, trailing));
  }
  return Binary(HloOpcode::kAdd, x, AddBroadcast(comp_, bias, Compute(), positions));
}

HloInstruction* Expander::Activate(HloInstruction* x) {
  switch (EpilogueActivation(config_.epilogue)) {
    case GemmActivation::kNone:
      return x;
    case GemmActivation::kRelu:
      return Binary(HloOpcode::kMaximum, x, Filled(0));
    case GemmActivation::kGelu: {
      // 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
      HloInstruction* cube = Binary(HloOpcode::kMultiply, x,
                                    Binary(HloOpcode::kMultiply, x, x));
      HloInstruction* inner = Binary(
          HloOpcode::kAdd, x,
          Binary(HloOpcode::kMultiply, Filled(0.044715), cube));
      HloInstruction* t =
          AddNew(comp_, HloOpcode::kTanh, Compute(),
                 {Binary(HloOpcode::kMultiply, Filled(std::sqrt(2.0 / M_PI)),
                         inner)});
      HloInstruction* cdf = Binary(HloOpcode::kMultiply, Filled(0.5),
                                   Binary(HloOpcode::kAdd, Filled(1), t));
      return Binary(HloOpcode::kMultiply, x, cdf);
    }
    case GemmActivation::kSilu:
      return Binary(HloOpcode::kMultiply, x,
                    AddNew(comp_, HloOpcode::kLogistic, Compute(), {x}));
  }
  return x;
}

// max |x| as an f32 scalar.
HloInstruction* Expander::Amax(HloInstruction* x) {
  HloModule* module = comp_->parent();
  auto max = std::make_unique<HloComputation>(module->NewComputationName("max_abs"));
  HloComputation* reducer = module->AddComputation(std::move(max));
  std::vector<HloInstruction*> params;
  const Shape scalar = Like(PrimitiveType::kF32, {});
  for (int64_t i = 0; i < 2; ++i) {
    std::unique_ptr<HloInstruction> p =
        HloInstruction::Create(HloOpcode::kParameter, scalar);
    p->set_index(i);
    p->set_name(module->NewInstructionName(i == 0 ? "x" : "y"));
    params.push_back(reducer->AddInstruction(std::move(p)));
  }
  reducer->set_root_instruction(
      AddNew(reducer, HloOpcode::kMaximum, scalar, params));
  HloInstruction* abs = Convert(AddNew(comp_, HloOpcode::kAbs, Compute(), {x}),
                                PrimitiveType::kF32);
  HloInstruction* zero = AddConstant(comp_, Literal::Scalar(PrimitiveType::kF32, 0));
  HloInstruction* reduce =
      AddNew(comp_, HloOpcode::kReduce, scalar, {abs, zero});
  std::vector<int64_t> all;
  for (int64_t i = 0; i < d_shape_.rank(); ++i) all.push_back(i);
  *reduce->mutable_dimensions() = all;
  reduce->set_has_dimensions(true);
  reduce->AppendCalledComputation(reducer);
  return reduce;
}

// x * d_scale converted to d's type (clamped to its range for f8).
HloInstruction* Expander::Output(HloInstruction* x) {
  if (layout_.d_scale >= 0) {
    x = Binary(HloOpcode::kMultiply, x, Splat(Operand(layout_.d_scale)));
  }
  const PrimitiveType t = d_shape_.element_type();
  double limit = 0;
  if (t == PrimitiveType::kF8E4M3FN) limit = 448;
  if (t == PrimitiveType::kF8E5M2) limit = 57344;
  if (limit > 0) {
    x = AddNew(comp_, HloOpcode::kClamp, Compute(),
               {Filled(-limit), x, Filled(limit)});
  }
  HloInstruction* d = Convert(x, t);
  *d->mutable_shape() = d_shape_;
  return d;
}

absl::StatusOr<HloInstruction*> Expander::Build() {
  HloInstruction* x = Dot();
  const bool complex = IsComplex(compute_);
  if (config_.alpha_real != 1 || config_.alpha_imag != 0) {
    Literal alpha = Literal::Scalar(compute_, 0);
    alpha.SetFromComplex(0, {config_.alpha_real, config_.alpha_imag});
    x = Binary(HloOpcode::kMultiply, x,
               AddBroadcast(comp_, AddConstant(comp_, std::move(alpha)),
                            Compute(), {}));
  }
  for (int64_t s : {layout_.a_scale, layout_.b_scale}) {
    if (s >= 0) x = Binary(HloOpcode::kMultiply, x, Splat(Operand(s)));
  }
  if (layout_.c >= 0) {
    HloInstruction* c = Convert(Operand(layout_.c), compute_);
    if (layout_.c_scale >= 0) {
      c = Binary(HloOpcode::kMultiply, c, Splat(Operand(layout_.c_scale)));
    }
    if (config_.beta != 1) c = Binary(HloOpcode::kMultiply, c, Filled(config_.beta));
    x = Binary(HloOpcode::kAdd, x, c);
  }
  if (complex && config_.epilogue != GemmEpilogue::kDefault) {
    return CallError(call_, "complex GEMMs take no epilogue");
  }
  if (layout_.bias >= 0) {
    absl::StatusOr<HloInstruction*> biased = AddBias(x);
    if (!biased.ok()) return biased.status();
    x = *biased;
  }
  HloInstruction* pre_activation = x;
  x = Activate(x);
  const Shape& result = call_->shape();
  HloInstruction* d = Output(x);
  if (!result.IsTuple()) return d;
  std::vector<HloInstruction*> elements = {d};
  for (int64_t i = 1; i < result.tuple_shapes_size(); ++i) {
    const Shape& s = result.tuple_shapes(i);
    HloInstruction* e;
    if (i == layout_.aux) {
      e = Convert(pre_activation, s.element_type());
    } else if (i == layout_.amax) {
      e = Convert(Amax(x), s.element_type());
    } else {
      e = AddFilledLike(comp_, s, 0, call_);
    }
    elements.push_back(e);
  }
  return AddNew(comp_, HloOpcode::kTuple, result, elements);
}

}  // namespace

absl::Status ExpandGemmCall(HloInstruction* call) {
  const std::optional<GemmTarget> target =
      GemmTargetFromName(call->attrs().custom_call->target);
  if (!target) return CallError(call, "not a GEMM custom call");
  absl::StatusOr<GemmBackendConfig> config =
      ParseGemmBackendConfig(call->backend_config());
  if (!config.ok()) {
    return CallError(call,
                     absl::StrCat("backend_config: ", config.status().message()));
  }
  std::vector<const Shape*> shapes;
  for (const HloInstruction* o : call->operands()) shapes.push_back(&o->shape());
  absl::StatusOr<GemmCallLayout> layout =
      GemmCallLayoutFor(*target, *config, shapes, call->shape());
  if (!layout.ok()) return CallError(call, layout.status().message());
  const PrimitiveType compute = *target == GemmTarget::kCublasLtMatmulF8
                                    ? PrimitiveType::kF32
                                    : GemmOutputShape(call->shape()).element_type();
  Expander expander(call, *config, *layout, compute);
  absl::StatusOr<HloInstruction*> replacement = expander.Build();
  if (!replacement.ok()) return replacement.status();
  return ReplaceInstruction(call, *replacement);
}

absl::StatusOr<bool> RunGemmCallExpansion(HloModule& module) {
  bool changed = false;
  for (HloComputation* c : module.MakeComputationPostOrder()) {
    for (HloInstruction* h :
         InstructionsWithOpcode(c, HloOpcode::kCustomCall)) {
      if (!GemmTargetFromName(h->attrs().custom_call->target)) continue;
      if (absl::Status s = ExpandGemmCall(h); !s.ok()) return s;
      changed = true;
    }
  }
  return changed;
}

}  // namespace xlite
