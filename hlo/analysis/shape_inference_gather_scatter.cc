// Shape inference for the gather/scatter family: index arrays select
// windows of an operand, as the dimension numbers map index and window
// dimensions to operand dimensions.

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "hlo/analysis/shape_inference_internal.h"

namespace xlite {
namespace shape_inference_internal {
namespace {

absl::StatusOr<Shape> InferGather(const HloInstruction& hlo) {
  const Shape& operand = hlo.operand(0)->shape();
  const Shape& indices = hlo.operand(1)->shape();
  const GatherDimensionNumbers& g = hlo.attrs().gather_scatter->gather;
  const std::vector<int64_t>& slice_sizes =
      hlo.attrs().gather_scatter->slice_sizes;
  if (!IsInteger(indices.element_type())) {
    return Invalid(
        absl::StrCat("gather indices must be integers, got ", S(indices)));
  }
  if (static_cast<int64_t>(slice_sizes.size()) != operand.rank()) {
    return Invalid(absl::StrCat("gather slice_sizes has ", slice_sizes.size(),
                                " entries for operand rank ", operand.rank()));
  }
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (slice_sizes[i] < 0 || slice_sizes[i] > operand.dimensions(i)) {
      return Invalid(absl::StrCat("gather slice size ", slice_sizes[i],
                                  " is out of bounds for dimension ", i, " of ",
                                  S(operand)));
    }
  }
  XLITE_RETURN_IF_ERROR(CheckDimensionIndices(
      g.collapsed_slice_dims, operand.rank(), "collapsed_slice_dims", true));
  XLITE_RETURN_IF_ERROR(CheckDimensionIndices(g.start_index_map, operand.rank(),
                                              "start_index_map", true));
  XLITE_RETURN_IF_ERROR(CheckDimensionIndices(
      g.operand_batching_dims, operand.rank(), "operand_batching_dims", true));
  for (int64_t d : g.collapsed_slice_dims) {
    if (slice_sizes[d] > 1) {
      return Invalid(absl::StrCat("gather collapses dimension ", d,
                                  " whose slice size is ", slice_sizes[d]));
    }
  }
  if (g.index_vector_dim < 0 || g.index_vector_dim > indices.rank()) {
    return Invalid(absl::StrCat("index_vector_dim ", g.index_vector_dim,
                                " is out of range for indices ", S(indices)));
  }
  const int64_t index_vector_size =
      g.index_vector_dim == indices.rank()
          ? 1
          : indices.dimensions(g.index_vector_dim);
  if (index_vector_size != static_cast<int64_t>(g.start_index_map.size())) {
    return Invalid(
        absl::StrCat("start_index_map has ", g.start_index_map.size(),
                     " entries but the index vector has ", index_vector_size));
  }
  std::vector<int64_t> batch_sizes;
  for (int64_t i = 0; i < indices.rank(); ++i) {
    if (i != g.index_vector_dim) batch_sizes.push_back(indices.dimensions(i));
  }
  std::vector<int64_t> offset_sizes;
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (std::count(g.collapsed_slice_dims.begin(), g.collapsed_slice_dims.end(),
                   i) ||
        std::count(g.operand_batching_dims.begin(),
                   g.operand_batching_dims.end(), i)) {
      continue;
    }
    offset_sizes.push_back(slice_sizes[i]);
  }
  if (offset_sizes.size() != g.offset_dims.size()) {
    return Invalid(absl::StrCat("gather has ", g.offset_dims.size(),
                                " offset_dims but ", offset_sizes.size(),
                                " uncollapsed slice dimensions"));
  }
  const int64_t rank = batch_sizes.size() + offset_sizes.size();
  XLITE_RETURN_IF_ERROR(
      CheckDimensionIndices(g.offset_dims, rank, "offset_dims", true));
  std::vector<int64_t> sorted_offsets = g.offset_dims;
  std::sort(sorted_offsets.begin(), sorted_offsets.end());
  std::vector<int64_t> dims;
  size_t next_offset = 0, next_batch = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (std::binary_search(sorted_offsets.begin(), sorted_offsets.end(), i)) {
      dims.push_back(offset_sizes[next_offset++]);
    } else {
      dims.push_back(batch_sizes[next_batch++]);
    }
  }
  return Shape(operand.element_type(), dims);
}

absl::StatusOr<Shape> InferScatter(const HloInstruction& hlo) {
  const int64_t n = hlo.operand_count();
  if (n < 3 || n % 2 == 0) {
    return Invalid(
        absl::StrCat("scatter expects 2N+1 operands (N inputs, "
                     "indices, N updates), got ",
                     n));
  }
  const int64_t inputs = (n - 1) / 2;
  const Shape& indices = hlo.operand(inputs)->shape();
  const ScatterDimensionNumbers& d = hlo.attrs().gather_scatter->scatter;
  if (!IsInteger(indices.element_type())) {
    return Invalid(
        absl::StrCat("scatter indices must be integers, got ", S(indices)));
  }
  const Shape& operand = hlo.operand(0)->shape();
  XLITE_RETURN_IF_ERROR(CheckDimensionIndices(
      d.inserted_window_dims, operand.rank(), "inserted_window_dims", true));
  XLITE_RETURN_IF_ERROR(
      CheckDimensionIndices(d.scatter_dims_to_operand_dims, operand.rank(),
                            "scatter_dims_to_operand_dims", true));
  if (d.index_vector_dim < 0 || d.index_vector_dim > indices.rank()) {
    return Invalid(absl::StrCat("index_vector_dim ", d.index_vector_dim,
                                " is out of range for indices ", S(indices)));
  }
  std::vector<Shape> results;
  std::vector<Shape> params;
  for (int64_t i = 0; i < inputs; ++i) {
    const Shape& in = hlo.operand(i)->shape();
    const Shape& upd = hlo.operand(inputs + 1 + i)->shape();
    if (in.dimensions() != operand.dimensions()) {
      return Invalid("scatter inputs must all have the same dimensions");
    }
    if (upd.element_type() != in.element_type()) {
      return Invalid(absl::StrCat("scatter update ", S(upd),
                                  " must have the element type of input ",
                                  S(in)));
    }
    const int64_t window_dims = d.update_window_dims.size();
    const int64_t expected_rank =
        (indices.rank() - (d.index_vector_dim < indices.rank() ? 1 : 0)) +
        window_dims;
    if (upd.rank() != expected_rank) {
      return Invalid(absl::StrCat("scatter updates ", S(upd),
                                  " must have rank ", expected_rank));
    }
    results.push_back(in);
    params.push_back(Shape(in.element_type(), {}));
  }
  for (int64_t i = 0; i < inputs; ++i) {
    params.push_back(Shape(hlo.operand(i)->shape().element_type(), {}));
  }
  if (!hlo.called_computations().empty()) {
    XLITE_RETURN_IF_ERROR(
        CheckCallee(hlo.called_computations()[0], params, "scatter to_apply"));
  }
  return TupleOrSingle(results);
}

}  // namespace

absl::StatusOr<Shape> InferGatherScatterShape(const HloInstruction& hlo) {
  if (hlo.opcode() == HloOpcode::kGather) return InferGather(hlo);
  return InferScatter(hlo);
}

}  // namespace shape_inference_internal
}  // namespace xlite
