// Shape inference for the sort family: sort, which permutes its operands
// together under a comparator, and topk.

#include "absl/strings/str_cat.h"
#include "hlo/analysis/shape_inference_internal.h"
#include "hlo/ir/computation.h"

namespace xlite {
namespace shape_inference_internal {
namespace {

absl::StatusOr<Shape> InferSort(const HloInstruction& hlo) {
  if (hlo.operand_count() < 1)
    return Invalid("sort needs at least one operand");
  const Shape& first = hlo.operand(0)->shape();
  if (hlo.dimensions().size() != 1) return Invalid("sort takes one dimension");
  XLITE_RETURN_IF_ERROR(
      CheckDimensionIndices(hlo.dimensions(), first.rank(), "sort", true));
  std::vector<Shape> params;
  for (int64_t i = 0; i < hlo.operand_count(); ++i) {
    const Shape& s = hlo.operand(i)->shape();
    if (s.dimensions() != first.dimensions()) {
      return Invalid("sort operands must all have the same dimensions");
    }
    params.push_back(Shape(s.element_type(), {}));
    params.push_back(Shape(s.element_type(), {}));
  }
  const HloComputation* callee = hlo.called_computations().empty()
                                     ? nullptr
                                     : hlo.called_computations()[0];
  XLITE_RETURN_IF_ERROR(CheckCallee(callee, params, "sort comparator"));
  const Shape result = ProgramResult(callee);
  if (!(result.IsArray() && result.rank() == 0 &&
        result.element_type() == PrimitiveType::kPred)) {
    return Invalid(absl::StrCat("sort comparator must return pred[], returns ",
                                S(result)));
  }
  return TupleOrSingle(OperandShapes(hlo));
}

absl::StatusOr<Shape> InferTopK(const HloInstruction& hlo) {
  const HloAttributes& a = hlo.attrs();
  const Shape& in = hlo.operand(0)->shape();
  XLITE_RETURN_IF_ERROR(ExpectArray(in, "topk operand"));
  if (in.rank() < 1 || a.k < 0 || a.k > in.dimensions(in.rank() - 1)) {
    return Invalid(absl::StrCat("topk k=", a.k, " is invalid for ", S(in)));
  }
  Shape values = ArrayLike(in, in.element_type());
  values.set_dimension(in.rank() - 1, a.k);
  Shape indices = ArrayLike(values, PrimitiveType::kS32);
  return Shape::Tuple({values, indices});
}

}  // namespace

absl::StatusOr<Shape> InferSortShape(const HloInstruction& hlo) {
  if (hlo.opcode() == HloOpcode::kTopK) return InferTopK(hlo);
  return InferSort(hlo);
}

}  // namespace shape_inference_internal
}  // namespace xlite
