#ifndef XLITE_CODEGEN_SCALAR_RUNTIME_H_
#define XLITE_CODEGEN_SCALAR_RUNTIME_H_

// Helpers emitted code calls for complex math. Each one evaluates the very
// expression hlo/evaluator/elementwise.cc evaluates (std::exp of a
// std::complex, the compiler's complex multiply and divide with their
// NaN/infinity recovery, ...), compiled with the same flags, so compiled and
// evaluated results are bit-identical. A complex value is two consecutive
// components (re, im) in memory; results go to `out`.
//
// A JIT resolves them with ScalarRuntimeSymbols() (no -rdynamic needed);
// they are also exported extern "C" names for JITs that search the process.

#include <vector>

extern "C" {
#define XLITE_SCALAR_RUNTIME_UNARY(name)             \
  void xlite_c64_##name(const float* x, float* out); \
  void xlite_c128_##name(const double* x, double* out);
#define XLITE_SCALAR_RUNTIME_BINARY(name)                            \
  void xlite_c64_##name(const float* x, const float* y, float* out); \
  void xlite_c128_##name(const double* x, const double* y, double* out);
// out[0] = |x| (one component).
XLITE_SCALAR_RUNTIME_UNARY(abs)
XLITE_SCALAR_RUNTIME_UNARY(sign)
XLITE_SCALAR_RUNTIME_UNARY(exp)
XLITE_SCALAR_RUNTIME_UNARY(expm1)
XLITE_SCALAR_RUNTIME_UNARY(log)
XLITE_SCALAR_RUNTIME_UNARY(log1p)
XLITE_SCALAR_RUNTIME_UNARY(sqrt)
XLITE_SCALAR_RUNTIME_UNARY(rsqrt)
XLITE_SCALAR_RUNTIME_UNARY(sin)
XLITE_SCALAR_RUNTIME_UNARY(cos)
XLITE_SCALAR_RUNTIME_UNARY(tan)
XLITE_SCALAR_RUNTIME_UNARY(tanh)
XLITE_SCALAR_RUNTIME_UNARY(logistic)
XLITE_SCALAR_RUNTIME_BINARY(multiply)
XLITE_SCALAR_RUNTIME_BINARY(divide)
XLITE_SCALAR_RUNTIME_BINARY(power)
#undef XLITE_SCALAR_RUNTIME_UNARY
#undef XLITE_SCALAR_RUNTIME_BINARY
}

namespace xlite::codegen {

struct RuntimeSymbol {
  const char* name;
  void* address;
};

/// Every helper above, by name, for a JIT's symbol table.
const std::vector<RuntimeSymbol>& ScalarRuntimeSymbols();

}  // namespace xlite::codegen

#endif  // XLITE_CODEGEN_SCALAR_RUNTIME_H_
