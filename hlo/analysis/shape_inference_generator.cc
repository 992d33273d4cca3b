// Shape inference for the generator, random and custom-call families.
// Their results come from attributes or from outside the module (a
// parameter's caller, a literal, a random stream, a custom-call target), so
// the declared shape is the result once the little the IR says is checked.

#include "absl/strings/str_cat.h"
#include "hlo/analysis/shape_inference_internal.h"

namespace xlite {
namespace shape_inference_internal {

absl::StatusOr<Shape> InferGeneratorShape(const HloInstruction& hlo) {
  switch (hlo.opcode()) {
    case HloOpcode::kIota:
      if (!hlo.shape().IsArray() || hlo.shape().rank() == 0 ||
          hlo.iota_dimension() < 0 ||
          hlo.iota_dimension() >= hlo.shape().rank()) {
        return Invalid(absl::StrCat("iota_dimension ", hlo.iota_dimension(),
                                    " is out of range for ", S(hlo.shape())));
      }
      return hlo.shape();
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
      return Shape(PrimitiveType::kU32, {});
    default:  // parameter, constant, rng-get-and-update-state
      return hlo.shape();
  }
}

// rng's operands are checked by the verifier (CheckRng), after its shape.
absl::StatusOr<Shape> InferRandomShape(const HloInstruction& hlo) {
  return hlo.shape();
}

// Buffer aliasing, the one thing the IR says about a custom-call's result,
// is checked before any family (CheckBufferUse).
absl::StatusOr<Shape> InferCustomCallShape(const HloInstruction& hlo) {
  return hlo.shape();
}

}  // namespace shape_inference_internal
}  // namespace xlite
