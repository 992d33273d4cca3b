// The complex helpers: the evaluator's expressions verbatim (see
// elementwise.cc, XLITE_COMPLEX_UNARY and Binary's complex branch).

#include "codegen/scalar_runtime.h"

#include <complex>

namespace {

template <typename R, typename F>
void Unary(const R* in, R* out, F f) {
  const std::complex<R> r = f(std::complex<R>(in[0], in[1]));
  out[0] = r.real();
  out[1] = r.imag();
}

template <typename R, typename F>
void Binary(const R* x, const R* y, R* out, F f) {
  const std::complex<R> r =
      f(std::complex<R>(x[0], x[1]), std::complex<R>(y[0], y[1]));
  out[0] = r.real();
  out[1] = r.imag();
}

}  // namespace

#define XLITE_UNARY(name, expr)                            \
  void xlite_c64_##name(const float* in, float* out) {     \
    using C = std::complex<float>;                         \
    Unary<float>(in, out, [](C x) -> C { return expr; });  \
  }                                                        \
  void xlite_c128_##name(const double* in, double* out) {  \
    using C = std::complex<double>;                        \
    Unary<double>(in, out, [](C x) -> C { return expr; }); \
  }
#define XLITE_BINARY(name, expr)                                          \
  void xlite_c64_##name(const float* x, const float* y, float* out) {     \
    using C = std::complex<float>;                                        \
    Binary<float>(x, y, out, [](C x, C y) -> C { return expr; });         \
  }                                                                       \
  void xlite_c128_##name(const double* x, const double* y, double* out) { \
    using C = std::complex<double>;                                       \
    Binary<double>(x, y, out, [](C x, C y) -> C { return expr; });        \
  }

extern "C" {

void xlite_c64_abs(const float* in, float* out) {
  out[0] = std::abs(std::complex<float>(in[0], in[1]));
}
void xlite_c128_abs(const double* in, double* out) {
  out[0] = std::abs(std::complex<double>(in[0], in[1]));
}

XLITE_UNARY(sign, x == C(0) ? C(0) : x / std::abs(x))
XLITE_UNARY(exp, std::exp(x))
XLITE_UNARY(expm1, std::exp(x) - C(1))
XLITE_UNARY(log, std::log(x))
XLITE_UNARY(log1p, std::log(x + C(1)))
XLITE_UNARY(sqrt, std::sqrt(x))
XLITE_UNARY(rsqrt, C(1) / std::sqrt(x))
XLITE_UNARY(sin, std::sin(x))
XLITE_UNARY(cos, std::cos(x))
XLITE_UNARY(tan, std::tan(x))
XLITE_UNARY(tanh, std::tanh(x))
XLITE_UNARY(logistic, C(1) / (C(1) + std::exp(-x)))
XLITE_BINARY(multiply, x* y)
XLITE_BINARY(divide, x / y)
XLITE_BINARY(power, x == C(0) && y == C(0) ? C(1) : std::pow(x, y))

}  // extern "C"

#undef XLITE_UNARY
#undef XLITE_BINARY

namespace xlite::codegen {

const std::vector<RuntimeSymbol>& ScalarRuntimeSymbols() {
  static const std::vector<RuntimeSymbol>* const symbols = [] {
    auto* table = new std::vector<RuntimeSymbol>;
#define XLITE_ENTRY(name)                                                \
  table->push_back(                                                      \
      {"xlite_c64_" #name, reinterpret_cast<void*>(&xlite_c64_##name)}); \
  table->push_back(                                                      \
      {"xlite_c128_" #name, reinterpret_cast<void*>(&xlite_c128_##name)})
    XLITE_ENTRY(abs);
    XLITE_ENTRY(sign);
    XLITE_ENTRY(exp);
    XLITE_ENTRY(expm1);
    XLITE_ENTRY(log);
    XLITE_ENTRY(log1p);
    XLITE_ENTRY(sqrt);
    XLITE_ENTRY(rsqrt);
    XLITE_ENTRY(sin);
    XLITE_ENTRY(cos);
    XLITE_ENTRY(tan);
    XLITE_ENTRY(tanh);
    XLITE_ENTRY(logistic);
    XLITE_ENTRY(multiply);
    XLITE_ENTRY(divide);
    XLITE_ENTRY(power);
#undef XLITE_ENTRY
    return table;
  }();
  return *symbols;
}

}  // namespace xlite::codegen
