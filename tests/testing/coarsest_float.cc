#include "tests/testing/coarsest_float.h"

namespace xlite::testing {

int FloatPrecision(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::kF64:
    case PrimitiveType::kC128:
      return 4;
    case PrimitiveType::kF32:
    case PrimitiveType::kC64:
      return 3;
    case PrimitiveType::kF16:
      return 2;
    case PrimitiveType::kBF16:
      return 1;
    default:
      return 0;
  }
}

PrimitiveType CoarsestFloat(const HloModule& module) {
  PrimitiveType coarsest = PrimitiveType::kF64;
  for (const HloComputation* c : module.computations()) {
    for (const HloInstruction* i : c->instructions()) {
      const Shape& s = i->shape();
      if (s.IsArray() &&
          (IsFloatingPoint(s.element_type()) || IsComplex(s.element_type())) &&
          FloatPrecision(s.element_type()) < FloatPrecision(coarsest)) {
        coarsest = s.element_type();
      }
    }
  }
  return coarsest;
}

}  // namespace xlite::testing
