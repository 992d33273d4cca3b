// Shape inference for the data movement family: ops that rearrange,
// select or pad an operand's elements without computing new values.

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "hlo/analysis/shape_inference_internal.h"

namespace xlite {
namespace shape_inference_internal {
namespace {

absl::StatusOr<Shape> InferReshapeOrBitcast(const HloInstruction& hlo) {
  const HloOpcode op = hlo.opcode();
  const Shape& in = hlo.operand(0)->shape();
  const Shape& out = hlo.shape();
  XLITE_RETURN_IF_ERROR(ExpectArray(in, HloOpcodeString(op)));
  if (op == HloOpcode::kReshape && (in.element_type() != out.element_type() ||
                                    in.ElementCount() != out.ElementCount())) {
    return Invalid(absl::StrCat("reshape from ", S(in), " to ", S(out),
                                " changes the number of elements (",
                                in.ElementCount(), " vs ", out.ElementCount(),
                                ") or the element type"));
  }
  if (op == HloOpcode::kBitcast &&
      in.ElementCount() * BitWidth(in.element_type()) !=
          out.ElementCount() * BitWidth(out.element_type())) {
    return Invalid(absl::StrCat("bitcast from ", S(in), " to ", S(out),
                                " changes the number of bits"));
  }
  return out;
}

absl::StatusOr<Shape> InferBroadcast(const HloInstruction& hlo) {
  const Shape& in = hlo.operand(0)->shape();
  const Shape& out = hlo.shape();
  XLITE_RETURN_IF_ERROR(ExpectArray(in, "broadcast operand"));
  const auto& dims = hlo.dimensions();
  if (!out.IsArray() || out.element_type() == PrimitiveType::kInvalid) {
    // Shape omitted: XLA prepends the listed sizes to the operand's.
    Shape inferred(in.element_type(), {});
    for (int64_t d : dims) inferred.add_dimension(d);
    for (int64_t d : in.dimensions()) inferred.add_dimension(d);
    return inferred;
  }
  if (static_cast<int64_t>(dims.size()) != in.rank()) {
    return Invalid(absl::StrCat("broadcast dimensions ", BracedList(dims),
                                " must have one entry per operand dimension "
                                "of ",
                                S(in)));
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= out.rank()) {
      return Invalid(absl::StrCat("broadcast dimension ", dims[i],
                                  " is out of range for ", S(out)));
    }
    if (i > 0 && dims[i] <= dims[i - 1]) {
      return Invalid(absl::StrCat("broadcast dimensions ", BracedList(dims),
                                  " must be strictly increasing"));
    }
    if (in.dimensions(i) != out.dimensions(dims[i]) && in.dimensions(i) != 1) {
      return Invalid(absl::StrCat("broadcast operand dimension ", i, " (",
                                  in.dimensions(i),
                                  ") does not match result "
                                  "dimension ",
                                  dims[i], " (", out.dimensions(dims[i]), ")"));
    }
  }
  if (in.element_type() != out.element_type()) {
    return Invalid("broadcast cannot change the element type");
  }
  return out;
}

absl::StatusOr<Shape> InferTranspose(const HloInstruction& hlo) {
  const Shape& in = hlo.operand(0)->shape();
  XLITE_RETURN_IF_ERROR(ExpectArray(in, "transpose operand"));
  const auto& perm = hlo.dimensions();
  if (static_cast<int64_t>(perm.size()) != in.rank()) {
    return Invalid(absl::StrCat("transpose dimensions ", BracedList(perm),
                                " is not a permutation of ", S(in)));
  }
  XLITE_RETURN_IF_ERROR(
      CheckDimensionIndices(perm, in.rank(), "transpose", true));
  Shape out(in.element_type(), {});
  for (int64_t p : perm)
    out.add_dimension(in.dimensions(p), in.is_dynamic_dimension(p));
  return out;
}

absl::StatusOr<Shape> InferReverse(const HloInstruction& hlo) {
  const Shape& in = hlo.operand(0)->shape();
  XLITE_RETURN_IF_ERROR(ExpectArray(in, "reverse operand"));
  XLITE_RETURN_IF_ERROR(
      CheckDimensionIndices(hlo.dimensions(), in.rank(), "reverse", true));
  return ArrayLike(in, in.element_type());
}

absl::StatusOr<Shape> InferSlice(const HloInstruction& hlo) {
  const HloAttributes& a = hlo.attrs();
  const Shape& in = hlo.operand(0)->shape();
  XLITE_RETURN_IF_ERROR(ExpectArray(in, "slice operand"));
  if (static_cast<int64_t>(a.slice.size()) != in.rank()) {
    return Invalid(absl::StrCat("slice has ", a.slice.size(),
                                " ranges for operand ", S(in)));
  }
  Shape out(in.element_type(), {});
  for (int64_t i = 0; i < in.rank(); ++i) {
    const SliceDimension& d = a.slice[i];
    if (d.start < 0 || d.limit < d.start || d.limit > in.dimensions(i) ||
        d.stride < 1) {
      return Invalid(absl::StrCat("slice [", d.start, ":", d.limit, ":",
                                  d.stride, "] is invalid for dimension ", i,
                                  " of ", S(in)));
    }
    out.add_dimension((d.limit - d.start + d.stride - 1) / d.stride);
  }
  return out;
}

absl::StatusOr<Shape> InferDynamicSlice(const HloInstruction& hlo) {
  const HloAttributes& a = hlo.attrs();
  const Shape& in = hlo.operand(0)->shape();
  XLITE_RETURN_IF_ERROR(ExpectArray(in, "dynamic-slice operand"));
  const int64_t indices = hlo.operand_count() - 1;
  const bool vector_form = indices == 1 && hlo.operand(1)->shape().rank() == 1;
  if (!vector_form && indices != in.rank()) {
    return Invalid(absl::StrCat("dynamic-slice of ", S(in), " needs ",
                                in.rank(), " start indices, got ", indices));
  }
  for (int64_t i = 1; i < hlo.operand_count(); ++i) {
    if (!vector_form) {
      XLITE_RETURN_IF_ERROR(
          ExpectScalar(hlo.operand(i)->shape(), "start index"));
    }
    if (!IsInteger(hlo.operand(i)->shape().element_type())) {
      return Invalid("dynamic-slice start indices must be integers");
    }
  }
  if (static_cast<int64_t>(a.dynamic_slice_sizes.size()) != in.rank()) {
    return Invalid("dynamic_slice_sizes must have one entry per dimension");
  }
  for (int64_t i = 0; i < in.rank(); ++i) {
    if (a.dynamic_slice_sizes[i] < 0 ||
        a.dynamic_slice_sizes[i] > in.dimensions(i)) {
      return Invalid(absl::StrCat("dynamic slice size ",
                                  a.dynamic_slice_sizes[i],
                                  " exceeds dimension ", i, " of ", S(in)));
    }
  }
  return Shape(in.element_type(), a.dynamic_slice_sizes);
}

absl::StatusOr<Shape> InferDynamicUpdateSlice(const HloInstruction& hlo) {
  if (hlo.operand_count() < 2)
    return Invalid("dynamic-update-slice needs 2+ operands");
  const Shape& in = hlo.operand(0)->shape();
  const Shape& update = hlo.operand(1)->shape();
  XLITE_RETURN_IF_ERROR(ExpectArray(in, "dynamic-update-slice operand"));
  const int64_t indices = hlo.operand_count() - 2;
  const bool vector_form = indices == 1 && hlo.operand(2)->shape().rank() == 1;
  if (!vector_form && indices != in.rank()) {
    return Invalid(absl::StrCat("dynamic-update-slice of ", S(in), " needs ",
                                in.rank(), " start indices, got ", indices));
  }
  if (update.rank() != in.rank() ||
      update.element_type() != in.element_type()) {
    return Invalid(absl::StrCat("dynamic-update-slice update ", S(update),
                                " does not fit operand ", S(in)));
  }
  for (int64_t i = 0; i < in.rank(); ++i) {
    if (update.dimensions(i) > in.dimensions(i)) {
      return Invalid(absl::StrCat("dynamic-update-slice update ", S(update),
                                  " is larger than operand ", S(in)));
    }
  }
  return ArrayLike(in, in.element_type());
}

absl::StatusOr<Shape> InferConcatenate(const HloInstruction& hlo) {
  if (hlo.operand_count() < 1) return Invalid("concatenate needs operands");
  if (hlo.dimensions().size() != 1)
    return Invalid("concatenate takes one dimension");
  const int64_t dim = hlo.dimensions(0);
  const Shape& first = hlo.operand(0)->shape();
  XLITE_RETURN_IF_ERROR(ExpectArray(first, "concatenate operand"));
  if (dim < 0 || dim >= first.rank()) {
    return Invalid(absl::StrCat("concatenate dimension ", dim,
                                " is out of range for ", S(first)));
  }
  Shape out = ArrayLike(first, first.element_type());
  int64_t total = 0;
  for (int64_t i = 0; i < hlo.operand_count(); ++i) {
    const Shape& s = hlo.operand(i)->shape();
    if (s.rank() != first.rank() || s.element_type() != first.element_type()) {
      return Invalid(absl::StrCat("concatenate operands ", S(first), " and ",
                                  S(s), " differ in rank or element type"));
    }
    for (int64_t d = 0; d < s.rank(); ++d) {
      if (d != dim && s.dimensions(d) != first.dimensions(d)) {
        return Invalid(absl::StrCat("concatenate operands ", S(first), " and ",
                                    S(s), " differ outside dimension ", dim));
      }
    }
    total += s.dimensions(dim);
  }
  out.set_dimension(dim, total);
  return out;
}

absl::StatusOr<Shape> InferPad(const HloInstruction& hlo) {
  const HloAttributes& a = hlo.attrs();
  const Shape& in = hlo.operand(0)->shape();
  XLITE_RETURN_IF_ERROR(ExpectArray(in, "pad operand"));
  XLITE_RETURN_IF_ERROR(ExpectScalar(hlo.operand(1)->shape(), "pad value"));
  if (hlo.operand(1)->shape().element_type() != in.element_type()) {
    return Invalid("pad value must have the operand's element type");
  }
  if (static_cast<int64_t>(a.padding.dimensions.size()) != in.rank()) {
    return Invalid(absl::StrCat("padding has ", a.padding.dimensions.size(),
                                " dimensions for operand ", S(in)));
  }
  Shape out(in.element_type(), {});
  for (int64_t i = 0; i < in.rank(); ++i) {
    const PaddingDimension& p = a.padding.dimensions[i];
    if (p.interior_padding < 0) return Invalid("interior padding must be >= 0");
    const int64_t d = in.dimensions(i);
    const int64_t size = p.edge_padding_low + p.edge_padding_high + d +
                         std::max<int64_t>(d - 1, 0) * p.interior_padding;
    if (size < 0) {
      return Invalid(absl::StrCat("padding makes dimension ", i, " negative (",
                                  size, ")"));
    }
    out.add_dimension(size);
  }
  return out;
}

// get-dimension-size and set-dimension-size name one operand dimension.
bool HasOneDimensionOfOperand(const HloInstruction& hlo) {
  return hlo.dimensions().size() == 1 && hlo.dimensions(0) >= 0 &&
         hlo.dimensions(0) < hlo.operand(0)->shape().rank();
}

absl::StatusOr<Shape> InferGetDimensionSize(const HloInstruction& hlo) {
  if (!HasOneDimensionOfOperand(hlo)) {
    return Invalid("get-dimension-size dimension out of range");
  }
  return Shape(PrimitiveType::kS32, {});
}

absl::StatusOr<Shape> InferSetDimensionSize(const HloInstruction& hlo) {
  if (!HasOneDimensionOfOperand(hlo)) {
    return Invalid("set-dimension-size dimension out of range");
  }
  const Shape& in = hlo.operand(0)->shape();
  Shape out = ArrayLike(in, in.element_type());
  out.set_dynamic_dimension(hlo.dimensions(0), true);
  return out;
}

}  // namespace

absl::StatusOr<Shape> InferDataMovementShape(const HloInstruction& hlo) {
  switch (hlo.opcode()) {
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast:
      return InferReshapeOrBitcast(hlo);
    case HloOpcode::kBroadcast:
      return InferBroadcast(hlo);
    case HloOpcode::kTranspose:
      return InferTranspose(hlo);
    case HloOpcode::kReverse:
      return InferReverse(hlo);
    case HloOpcode::kSlice:
      return InferSlice(hlo);
    case HloOpcode::kDynamicSlice:
      return InferDynamicSlice(hlo);
    case HloOpcode::kDynamicUpdateSlice:
      return InferDynamicUpdateSlice(hlo);
    case HloOpcode::kConcatenate:
      return InferConcatenate(hlo);
    case HloOpcode::kPad:
      return InferPad(hlo);
    case HloOpcode::kGetDimensionSize:
      return InferGetDimensionSize(hlo);
    case HloOpcode::kSetDimensionSize:
      return InferSetDimensionSize(hlo);
    case HloOpcode::kCopy:
      // Unlike the element-wise ops, copy also takes tuples.
      return hlo.operand(0)->shape();
    default:
      // dynamic-reshape and shuffle: sizes known only at run time.
      return hlo.shape();
  }
}

}  // namespace shape_inference_internal
}  // namespace xlite
