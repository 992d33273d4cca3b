// Shape inference for the reduction family: reduce, reduce-window,
// select-and-scatter, map and scan, which fold or map their inputs through
// a called computation whose signature the element types fix.

#include <algorithm>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "hlo/analysis/shape_inference_internal.h"
#include "hlo/ir/computation.h"

namespace xlite {
namespace shape_inference_internal {
namespace {

absl::StatusOr<Shape> InferReduce(const HloInstruction& hlo) {
  const int64_t n = hlo.operand_count();
  if (n < 2 || n % 2 != 0) {
    return Invalid(absl::StrCat(
        "reduce expects N inputs and N init values, got ", n, " operands"));
  }
  const int64_t inputs = n / 2;
  const Shape& first = hlo.operand(0)->shape();
  XLITE_RETURN_IF_ERROR(ExpectArray(first, "reduce input"));
  XLITE_RETURN_IF_ERROR(
      CheckDimensionIndices(hlo.dimensions(), first.rank(), "reduce", true));
  std::vector<Shape> params;
  std::vector<Shape> results;
  for (int64_t i = 0; i < inputs; ++i) {
    const Shape& in = hlo.operand(i)->shape();
    const Shape& init = hlo.operand(inputs + i)->shape();
    XLITE_RETURN_IF_ERROR(ExpectScalar(init, "reduce init value"));
    if (in.dimensions() != first.dimensions()) {
      return Invalid("reduce inputs must all have the same dimensions");
    }
    Shape out(init.element_type(), {});
    for (int64_t d = 0; d < in.rank(); ++d) {
      if (!std::count(hlo.dimensions().begin(), hlo.dimensions().end(), d)) {
        out.add_dimension(in.dimensions(d), in.is_dynamic_dimension(d));
      }
    }
    results.push_back(out);
    params.push_back(Shape(init.element_type(), {}));
  }
  // The reducer takes (accumulators..., values...): the list twice. A
  // vector cannot insert a range of itself, so this copies first.
  params.reserve(2 * params.size());
  std::copy_n(params.begin(), params.size(), std::back_inserter(params));
  const HloComputation* callee = hlo.called_computations().empty()
                                     ? nullptr
                                     : hlo.called_computations()[0];
  XLITE_RETURN_IF_ERROR(CheckCallee(callee, params, "reduce to_apply"));
  std::vector<Shape> accumulators(params.begin(), params.begin() + inputs);
  if (!ShapesCompatible(ProgramResult(callee), TupleOrSingle(accumulators))) {
    return Invalid(absl::StrCat("reduce to_apply ", callee->name(), " returns ",
                                S(ProgramResult(callee)), ", expected ",
                                S(TupleOrSingle(accumulators))));
  }
  return TupleOrSingle(results);
}

absl::StatusOr<Shape> InferReduceWindow(const HloInstruction& hlo) {
  const int64_t n = hlo.operand_count();
  if (n < 2 || n % 2 != 0) {
    return Invalid("reduce-window expects N inputs and N init values");
  }
  const int64_t inputs = n / 2;
  const Window window = hlo.attrs().window.value_or(Window());
  std::vector<Shape> results, params;
  for (int64_t i = 0; i < inputs; ++i) {
    const Shape& in = hlo.operand(i)->shape();
    const Shape& init = hlo.operand(inputs + i)->shape();
    XLITE_RETURN_IF_ERROR(ExpectScalar(init, "reduce-window init value"));
    if (static_cast<int64_t>(window.dimensions.size()) != in.rank()) {
      return Invalid(absl::StrCat("reduce-window window has ",
                                  window.dimensions.size(),
                                  " dimensions for input ", S(in)));
    }
    Shape out(init.element_type(), {});
    for (int64_t d = 0; d < in.rank(); ++d) {
      absl::StatusOr<int64_t> size =
          WindowedOutputSize(in.dimensions(d), window.dimensions[d]);
      if (!size.ok()) return size.status();
      out.add_dimension(*size);
    }
    results.push_back(out);
    params.push_back(Shape(init.element_type(), {}));
  }
  // The reducer takes (accumulators..., values...): the list twice. A
  // vector cannot insert a range of itself, so this copies first.
  params.reserve(2 * params.size());
  std::copy_n(params.begin(), params.size(), std::back_inserter(params));
  if (!hlo.called_computations().empty()) {
    XLITE_RETURN_IF_ERROR(CheckCallee(hlo.called_computations()[0], params,
                                      "reduce-window to_apply"));
  }
  return TupleOrSingle(results);
}

absl::StatusOr<Shape> InferSelectAndScatter(const HloInstruction& hlo) {
  const Shape& in = hlo.operand(0)->shape();
  const Shape& source = hlo.operand(1)->shape();
  XLITE_RETURN_IF_ERROR(
      ExpectScalar(hlo.operand(2)->shape(), "select-and-scatter init"));
  const Window window = hlo.attrs().window.value_or(Window());
  if (static_cast<int64_t>(window.dimensions.size()) != in.rank()) {
    return Invalid("select-and-scatter window rank differs from the operand");
  }
  for (int64_t d = 0; d < in.rank(); ++d) {
    absl::StatusOr<int64_t> size =
        WindowedOutputSize(in.dimensions(d), window.dimensions[d]);
    if (!size.ok()) return size.status();
    if (source.rank() != in.rank() || source.dimensions(d) != *size) {
      return Invalid(absl::StrCat("select-and-scatter source ", S(source),
                                  " does not match the windowed operand"));
    }
  }
  const Shape scalar(in.element_type(), {});
  XLITE_RETURN_IF_ERROR(
      CheckCallee(hlo.called_computations()[0], {scalar, scalar}, "select"));
  const Shape sscalar(source.element_type(), {});
  XLITE_RETURN_IF_ERROR(
      CheckCallee(hlo.called_computations()[1], {sscalar, sscalar}, "scatter"));
  return ArrayLike(in, in.element_type());
}

absl::StatusOr<Shape> InferMap(const HloInstruction& hlo) {
  const HloComputation* callee = hlo.called_computations()[0];
  const Shape& first = hlo.operand(0)->shape();
  std::vector<Shape> params;
  for (int64_t i = 0; i < hlo.operand_count(); ++i) {
    const Shape& s = hlo.operand(i)->shape();
    if (s.dimensions() != first.dimensions()) {
      return Invalid("map operands must have the same dimensions");
    }
    params.push_back(Shape(s.element_type(), {}));
  }
  XLITE_RETURN_IF_ERROR(CheckCallee(callee, params, "map to_apply"));
  const Shape r = ProgramResult(callee);
  if (!r.IsArray() || r.rank() != 0) {
    return Invalid("map to_apply must return a scalar");
  }
  return ArrayLike(first, r.element_type());
}

absl::StatusOr<Shape> InferScan(const HloInstruction& hlo) {
  const HloComputation* callee = hlo.called_computations()[0];
  const int64_t carries = hlo.attrs().num_carries;
  const int64_t inputs = hlo.operand_count() - carries;
  if (inputs < 1 || hlo.dimensions().size() != 1) {
    return Invalid("scan needs inputs, num_carries and one dimension");
  }
  const int64_t dim = hlo.dimensions(0);
  if (dim < 0 || dim >= hlo.operand(0)->shape().rank()) {
    return Invalid("scan dimension out of range");
  }
  if (callee->num_parameters() != hlo.operand_count()) {
    return Invalid("scan to_apply must take one parameter per operand");
  }
  const Shape root = ProgramResult(callee);
  const int64_t size = hlo.operand(0)->shape().dimensions(dim);
  auto expand = [&](const Shape& s) {
    Shape out(s.element_type(), {});
    for (int64_t i = 0; i <= s.rank(); ++i) {
      if (i == dim) out.add_dimension(size);
      if (i < s.rank()) out.add_dimension(s.dimensions(i));
    }
    return out;
  };
  if (!root.IsTuple()) return carries > 0 ? root : expand(root);
  std::vector<Shape> outs;
  for (int64_t i = 0; i < root.tuple_shapes_size(); ++i) {
    outs.push_back(i + carries < root.tuple_shapes_size()
                       ? expand(root.tuple_shapes(i))
                       : root.tuple_shapes(i));
  }
  return Shape::Tuple(outs);
}

}  // namespace

absl::StatusOr<Shape> InferReductionShape(const HloInstruction& hlo) {
  switch (hlo.opcode()) {
    case HloOpcode::kReduce:
      return InferReduce(hlo);
    case HloOpcode::kReduceWindow:
      return InferReduceWindow(hlo);
    case HloOpcode::kSelectAndScatter:
      return InferSelectAndScatter(hlo);
    case HloOpcode::kMap:
      return InferMap(hlo);
    default:  // scan
      return InferScan(hlo);
  }
}

}  // namespace shape_inference_internal
}  // namespace xlite
