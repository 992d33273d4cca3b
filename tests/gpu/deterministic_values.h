#ifndef XLITE_TESTS_GPU_DETERMINISTIC_VALUES_H_
#define XLITE_TESTS_GPU_DETERMINISTIC_VALUES_H_

// Deterministic test inputs for the GPU GEMM tests, exact in every type
// they use: floats are multiples of 1/8 in [-2, 2] (complex ones with an
// imaginary part in [-1, 1]), integers are in [-16, 16]. So products and
// their sums are exact in f32 accumulation, and results compare bit for
// bit or within a 16-bit type's rounding.

#include <cstdint>
#include <vector>

#include "hlo/ir/literal.h"
#include "hlo/ir/module.h"
#include "hlo/ir/primitive_type.h"
#include "hlo/ir/shape.h"

namespace xlite::gpu_test {

inline Literal DeterministicValues(const Shape& shape, int seed) {
  Literal out(shape);
  uint32_t state = 12345u + 977u * seed;
  const PrimitiveType type = shape.element_type();
  for (int64_t i = 0; i < out.element_count(); ++i) {
    state = state * 1664525u + 1013904223u;
    const int v = static_cast<int>((state >> 16) % 33) - 16;
    const double im = static_cast<int>((state >> 8) % 17) / 8.0 - 1.0;
    if (IsComplex(type)) {
      out.SetFromComplex(i, {v / 8.0, im});
    } else if (IsFloatingPoint(type)) {
      out.SetFromDouble(i, v / 8.0);
    } else {
      out.SetFromInt64(i, v);
    }
  }
  return out;
}

/// DeterministicValues for each entry parameter of `module` (seed: its
/// number).
inline std::vector<Literal> DeterministicArguments(const HloModule& module) {
  std::vector<Literal> args;
  const HloComputation& entry = *module.entry_computation();
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    args.push_back(
        DeterministicValues(entry.parameter_instruction(i)->shape(), i));
  }
  return args;
}

}  // namespace xlite::gpu_test

#endif  // XLITE_TESTS_GPU_DETERMINISTIC_VALUES_H_
