// Reference implementations of XLA:GPU's GEMM custom calls
// (`__cublas$gemm`, `__cublas$lt$matmul`, `__cublas$lt$matmul$f8`), with
// the meaning hlo/ir/gemm_config.h gives them. The dot is the evaluator's
// own (so a rewritten plain dot gives bit for bit what the dot gave); each
// epilogue step then rounds to the compute type, as the HLO the GEMM
// rewriter folds into the call does (cuBLASLt keeps f32 between steps: the
// two differ by roundings of the result type). The workspace output is
// zeros (its content is unspecified).

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>

#include "hlo/evaluator/gemm_call.h"
#include "hlo/evaluator/internal.h"
#include "hlo/ir/gemm_config.h"

namespace xlite::eval {
namespace {

absl::Status Invalid(absl::string_view what) {
  return absl::InvalidArgumentError(what);
}

bool IsF8(PrimitiveType t) {
  return t == PrimitiveType::kF8E4M3FN || t == PrimitiveType::kF8E5M2 ||
         t == PrimitiveType::kF8E4M3FNUZ || t == PrimitiveType::kF8E5M2FNUZ;
}

// The largest finite value of an f8 type cuBLASLt saturates to.
double F8Max(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::kF8E4M3FN:
      return 448;
    case PrimitiveType::kF8E4M3FNUZ:
      return 240;
    case PrimitiveType::kF8E5M2:
    case PrimitiveType::kF8E5M2FNUZ:
      return 57344;
    default:
      return std::numeric_limits<double>::infinity();
  }
}

// x[i] = f(x[i], i), rounded to x's type (complex types through the
// complex overload).
template <typename F>
void Map(Literal& x, F f) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    x.SetFromDouble(i, f(x.GetAsDouble(i), i));
  }
}

template <typename F>
void MapComplex(Literal& x, F f) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    x.SetFromComplex(i, f(x.GetAsComplex(i), i));
  }
}

double Activate(GemmActivation activation, double v) {
  switch (activation) {
    case GemmActivation::kNone:
      return v;
    case GemmActivation::kRelu:
      return std::isnan(v) ? v : std::max(v, 0.0);
    case GemmActivation::kGelu: {
      // The tanh approximation (jax.nn.gelu(approximate=True)).
      const double k = std::sqrt(2.0 / M_PI);
      return 0.5 * v * (1.0 + std::tanh(k * (v + 0.044715 * v * v * v)));
    }
    case GemmActivation::kSilu:
      return v / (1.0 + std::exp(-v));
  }
  return v;
}

// alpha * x (+ beta * c), bias and activation, in x's (the compute) type.
absl::Status ApplyEpilogue(const GemmBackendConfig& config,
                           const GemmCallLayout& layout,
                           absl::Span<const Literal* const> operands,
                           int64_t columns, Literal& x, Literal* aux) {
  const PrimitiveType t = x.shape().element_type();
  auto scalar = [&](int64_t index) {
    return index < 0 ? 1.0 : operands[index]->GetAsDouble(0);
  };
  if (IsComplex(t)) {
    const std::complex<double> alpha(config.alpha_real, config.alpha_imag);
    if (alpha != 1.0) MapComplex(x, [&](std::complex<double> v, int64_t) {
      return alpha * v;
    });
    if (layout.c >= 0) {
      const Literal& c = *operands[layout.c];
      MapComplex(x, [&](std::complex<double> v, int64_t i) {
        return v + config.beta * c.GetAsComplex(i);
      });
    }
    if (config.epilogue != GemmEpilogue::kDefault) {
      return Invalid("complex GEMMs take no epilogue");
    }
    return absl::OkStatus();
  }
  if (config.alpha_imag != 0) {
    return Invalid("alpha_imag must be 0 for a real GEMM");
  }
  if (IsInteger(t)) {
    if (config.alpha_real != 1 || (config.beta != 0 && config.beta != 1) ||
        config.epilogue != GemmEpilogue::kDefault) {
      return Invalid("an integer GEMM takes alpha 1, beta 0 or 1 and no "
                     "epilogue");
    }
  }
  if (config.alpha_real != 1) {
    Map(x, [&](double v, int64_t) { return config.alpha_real * v; });
  }
  for (int64_t s : {layout.a_scale, layout.b_scale}) {
    if (s >= 0) Map(x, [&](double v, int64_t) { return v * scalar(s); });
  }
  if (layout.c >= 0) {
    const Literal& c = *operands[layout.c];
    const double c_scale = scalar(layout.c_scale);
    Map(x, [&](double v, int64_t i) {
      double cv = c.GetAsDouble(i) * c_scale;
      if (config.beta != 1) cv *= config.beta;
      return v + cv;
    });
  }
  if (layout.bias >= 0) {
    const Literal& bias = *operands[layout.bias];
    Map(x, [&](double v, int64_t i) {
      return v + bias.GetAsDouble(i % columns);
    });
  }
  if (aux != nullptr) *aux = x;
  const GemmActivation activation = EpilogueActivation(config.epilogue);
  if (activation != GemmActivation::kNone) {
    Map(x, [&](double v, int64_t) { return Activate(activation, v); });
  }
  return absl::OkStatus();
}

// d = convert(x * d_scale), saturating for an f8 result.
Literal ToOutput(const Literal& x, const Shape& d_shape, double d_scale) {
  const PrimitiveType t = d_shape.element_type();
  if (!IsF8(t) && d_scale == 1) return ConvertLiteral(x, t);
  Literal d(d_shape);
  const double limit = F8Max(t);
  for (int64_t i = 0; i < x.element_count(); ++i) {
    double v = x.GetAsDouble(i) * d_scale;
    if (!std::isnan(v)) v = std::clamp(v, -limit, limit);
    d.SetFromDouble(i, v);
  }
  return d;
}

double Amax(const Literal& x) {
  double m = 0;
  for (int64_t i = 0; i < x.element_count(); ++i) {
    const double v = std::fabs(x.GetAsDouble(i));
    if (std::isnan(v)) return v;
    m = std::max(m, v);
  }
  return m;
}

absl::StatusOr<Literal> GemmCall(const HloInstruction& call,
                                 absl::Span<const Literal* const> operands) {
  const std::optional<GemmTarget> target =
      GemmTargetFromName(call.attrs().custom_call->target);
  if (!target) return Invalid("not a GEMM call");
  absl::StatusOr<GemmBackendConfig> config =
      ParseGemmBackendConfig(call.backend_config());
  if (!config.ok()) {
    return Invalid(absl::StrCat("backend_config: ", config.status().message()));
  }
  return EvaluateGemmCall(*target, *config, operands, call.shape());
}

}  // namespace

absl::StatusOr<Literal> EvaluateGemmCall(
    GemmTarget target, const GemmBackendConfig& config,
    absl::Span<const Literal* const> operands, const Shape& result) {
  std::vector<const Shape*> shapes;
  for (const Literal* o : operands) shapes.push_back(&o->shape());
  absl::StatusOr<GemmCallLayout> layout =
      GemmCallLayoutFor(target, config, shapes, result);
  if (!layout.ok()) return layout.status();
  const Shape& d_shape = GemmOutputShape(result);
  const bool f8 = target == GemmTarget::kCublasLtMatmulF8;
  Shape acc_shape = d_shape;
  if (f8) acc_shape.set_element_type(PrimitiveType::kF32);
  const Literal* a = operands[0];
  const Literal* b = operands[1];
  Literal a32, b32;
  if (f8) {
    a32 = ConvertLiteral(*a, PrimitiveType::kF32);
    b32 = ConvertLiteral(*b, PrimitiveType::kF32);
    a = &a32;
    b = &b32;
  }
  absl::StatusOr<Literal> x = DotLiterals(*a, *b, config.dnums, acc_shape);
  if (!x.ok()) return x.status();
  const int64_t columns =
      layout->bias >= 0 ? operands[layout->bias]->element_count() : 1;
  Literal aux;
  if (absl::Status s = ApplyEpilogue(config, *layout, operands, columns, *x,
                                     layout->aux >= 0 ? &aux : nullptr);
      !s.ok()) {
    return s;
  }
  const double d_scale =
      layout->d_scale >= 0 ? operands[layout->d_scale]->GetAsDouble(0) : 1.0;
  Literal d = ToOutput(*x, d_shape, d_scale);
  if (!result.IsTuple()) return d;
  std::vector<Literal> elements;
  elements.push_back(std::move(d));
  for (int64_t i = 1; i < result.tuple_shapes_size(); ++i) {
    const Shape& s = result.tuple_shapes(i);
    if (i == layout->aux) {
      elements.push_back(ConvertLiteral(aux, s.element_type()));
    } else if (i == layout->amax) {
      Literal amax(s);
      amax.SetFromDouble(0, Amax(*x));
      elements.push_back(std::move(amax));
    } else {
      elements.push_back(Literal(s));  // the workspace
    }
  }
  return Literal::Tuple(std::move(elements));
}

void RegisterGemmCustomCalls(CustomCallRegistry& registry) {
  for (absl::string_view target :
       {kCublasGemmTarget, kCublasLtMatmulTarget, kCublasLtMatmulF8Target}) {
    registry.Register(std::string(target), GemmCall);
  }
}

}  // namespace xlite::eval
