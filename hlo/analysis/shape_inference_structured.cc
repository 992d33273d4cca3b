// Shape inference for the opcodes with structure: dot, convolution, gather,
// scatter, reduce, reduce-window, sort, fft, collectives and async ops.

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/analysis/shape_inference_internal.h"
#include "hlo/ir/computation.h"

namespace xlite {
namespace shape_inference_internal {
namespace {

// The group size of a collective, or 0 if unknown (empty groups = all).
int64_t GroupSize(const HloInstruction& hlo) {
  const ReplicaGroups& groups = hlo.attrs().collective->replica_groups;
  if (groups.iota) return groups.group_size;
  if (groups.groups.empty()) return 0;
  return static_cast<int64_t>(groups.groups[0].size());
}

absl::Status CheckReplicaGroups(const HloInstruction& hlo) {
  const ReplicaGroups& groups = hlo.attrs().collective->replica_groups;
  if (groups.iota) return absl::OkStatus();
  absl::flat_hash_set<int64_t> seen;
  size_t size = groups.groups.empty() ? 0 : groups.groups[0].size();
  for (const auto& group : groups.groups) {
    if (group.size() != size && hlo.opcode() != HloOpcode::kAllReduce &&
        hlo.opcode() != HloOpcode::kCollectiveBroadcast) {
      return Invalid("replica groups must all have the same size");
    }
    for (int64_t id : group) {
      if (id < 0) return Invalid(absl::StrCat("negative replica id ", id));
      if (!seen.insert(id).second) {
        return Invalid(absl::StrCat("replica id ", id,
                                    " appears in more than one replica group"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<Shape> OperandShapes(const HloInstruction& hlo, int64_t begin,
                                 int64_t end) {
  if (end < 0) end = hlo.operand_count();
  std::vector<Shape> out;
  for (int64_t i = begin; i < end; ++i) out.push_back(hlo.operand(i)->shape());
  return out;
}

Shape TupleOrSingle(std::vector<Shape> shapes) {
  if (shapes.size() == 1) return std::move(shapes[0]);
  return Shape::Tuple(std::move(shapes));
}

absl::StatusOr<Shape> InferDot(const Shape& lhs, const Shape& rhs,
                               const DotDimensionNumbers& d,
                               PrimitiveType declared_type) {
  XLITE_RETURN_IF_ERROR(ExpectArray(lhs, "dot lhs"));
  XLITE_RETURN_IF_ERROR(ExpectArray(rhs, "dot rhs"));
  XLITE_RETURN_IF_ERROR(CheckDimensionIndices(
      d.lhs_contracting_dimensions, lhs.rank(), "lhs_contracting_dims", true));
  XLITE_RETURN_IF_ERROR(CheckDimensionIndices(
      d.rhs_contracting_dimensions, rhs.rank(), "rhs_contracting_dims", true));
  XLITE_RETURN_IF_ERROR(CheckDimensionIndices(
      d.lhs_batch_dimensions, lhs.rank(), "lhs_batch_dims", true));
  XLITE_RETURN_IF_ERROR(CheckDimensionIndices(
      d.rhs_batch_dimensions, rhs.rank(), "rhs_batch_dims", true));
  if (d.lhs_contracting_dimensions.size() !=
      d.rhs_contracting_dimensions.size()) {
    return Invalid("dot must contract as many lhs as rhs dimensions");
  }
  if (d.lhs_batch_dimensions.size() != d.rhs_batch_dimensions.size()) {
    return Invalid("dot must have as many lhs as rhs batch dimensions");
  }
  for (size_t i = 0; i < d.lhs_contracting_dimensions.size(); ++i) {
    const int64_t l = lhs.dimensions(d.lhs_contracting_dimensions[i]);
    const int64_t r = rhs.dimensions(d.rhs_contracting_dimensions[i]);
    if (l != r) {
      return Invalid(absl::StrCat(
          "dot contracting dimensions differ: lhs ", S(lhs), " dim ",
          d.lhs_contracting_dimensions[i], " is ", l, ", rhs ", S(rhs), " dim ",
          d.rhs_contracting_dimensions[i], " is ", r));
    }
  }
  for (size_t i = 0; i < d.lhs_batch_dimensions.size(); ++i) {
    const int64_t l = lhs.dimensions(d.lhs_batch_dimensions[i]);
    const int64_t r = rhs.dimensions(d.rhs_batch_dimensions[i]);
    if (l != r) {
      return Invalid(
          absl::StrCat("dot batch dimensions differ: ", l, " vs ", r));
    }
  }
  for (int64_t b : d.lhs_batch_dimensions) {
    if (std::count(d.lhs_contracting_dimensions.begin(),
                   d.lhs_contracting_dimensions.end(), b)) {
      return Invalid("a dot dimension cannot be both batch and contracting");
    }
  }
  Shape out(declared_type, {});
  for (int64_t b : d.lhs_batch_dimensions) out.add_dimension(lhs.dimensions(b));
  auto add_free = [&](const Shape& s, const std::vector<int64_t>& batch,
                      const std::vector<int64_t>& contracting) {
    for (int64_t i = 0; i < s.rank(); ++i) {
      if (std::count(batch.begin(), batch.end(), i) ||
          std::count(contracting.begin(), contracting.end(), i)) {
        continue;
      }
      out.add_dimension(s.dimensions(i), s.is_dynamic_dimension(i));
    }
  };
  add_free(lhs, d.lhs_batch_dimensions, d.lhs_contracting_dimensions);
  add_free(rhs, d.rhs_batch_dimensions, d.rhs_contracting_dimensions);
  return out;
}

absl::StatusOr<Shape> InferConvolution(const HloInstruction& hlo) {
  const Shape& lhs = hlo.operand(0)->shape();
  const Shape& rhs = hlo.operand(1)->shape();
  const HloAttributes& a = hlo.attrs();
  if (!a.conv->dnums.has_value())
    return Invalid("convolution needs dim_labels");
  const ConvolutionDimensionNumbers& d = *a.conv->dnums;
  const int64_t spatial = d.input_spatial_dimensions.size();
  if (lhs.rank() != spatial + 2 || rhs.rank() != spatial + 2) {
    return Invalid(absl::StrCat("convolution dim_labels ", d.ToString(),
                                " need rank ", spatial + 2, " operands, got ",
                                S(lhs), " and ", S(rhs)));
  }
  if (static_cast<int64_t>(d.kernel_spatial_dimensions.size()) != spatial ||
      static_cast<int64_t>(d.output_spatial_dimensions.size()) != spatial) {
    return Invalid(absl::StrCat("convolution dimension numbers ", d.ToString(),
                                " give different spatial ranks"));
  }
  // Each operand's dimension numbers are distinct and in range.
  auto with = [](int64_t a, int64_t b, const std::vector<int64_t>& rest) {
    std::vector<int64_t> all = {a, b};
    all.insert(all.end(), rest.begin(), rest.end());
    return all;
  };
  XLITE_RETURN_IF_ERROR(CheckDimensionIndices(
      with(d.input_batch_dimension, d.input_feature_dimension,
           d.input_spatial_dimensions),
      spatial + 2, "convolution input", true));
  XLITE_RETURN_IF_ERROR(CheckDimensionIndices(
      with(d.kernel_input_feature_dimension, d.kernel_output_feature_dimension,
           d.kernel_spatial_dimensions),
      spatial + 2, "convolution kernel", true));
  XLITE_RETURN_IF_ERROR(CheckDimensionIndices(
      with(d.output_batch_dimension, d.output_feature_dimension,
           d.output_spatial_dimensions),
      spatial + 2, "convolution output", true));
  const Window window = a.window.value_or(Window());
  if (static_cast<int64_t>(window.dimensions.size()) != spatial) {
    return Invalid(absl::StrCat("convolution window has ",
                                window.dimensions.size(),
                                " dimensions, expected ", spatial));
  }
  const int64_t fgc = a.conv->feature_group_count;
  const int64_t bgc = a.conv->batch_group_count;
  if (fgc < 1 || bgc < 1) {
    return Invalid("feature_group_count and batch_group_count must be >= 1");
  }
  const int64_t input_features = lhs.dimensions(d.input_feature_dimension);
  const int64_t kernel_in = rhs.dimensions(d.kernel_input_feature_dimension);
  const int64_t kernel_out = rhs.dimensions(d.kernel_output_feature_dimension);
  const int64_t batch = lhs.dimensions(d.input_batch_dimension);
  if (input_features % fgc != 0 || input_features / fgc != kernel_in) {
    return Invalid(absl::StrCat("convolution input features (", input_features,
                                ") / feature_group_count (", fgc,
                                ") must equal the kernel input features (",
                                kernel_in, ")"));
  }
  if (kernel_out % fgc != 0) {
    return Invalid(absl::StrCat("kernel output features (", kernel_out,
                                ") must be a multiple of feature_group_count (",
                                fgc, ")"));
  }
  if (batch % bgc != 0 || kernel_out % bgc != 0) {
    return Invalid(absl::StrCat(
        "batch (", batch, ") and kernel output features (", kernel_out,
        ") must be multiples of batch_group_count (", bgc, ")"));
  }
  for (int64_t i = 0; i < spatial; ++i) {
    if (window.dimensions[i].size !=
        rhs.dimensions(d.kernel_spatial_dimensions[i])) {
      return Invalid(
          absl::StrCat("convolution window size ", window.dimensions[i].size,
                       " differs from kernel spatial dimension ",
                       rhs.dimensions(d.kernel_spatial_dimensions[i])));
    }
  }
  std::vector<int64_t> dims(spatial + 2, 0);
  dims[d.output_batch_dimension] = batch / bgc;
  dims[d.output_feature_dimension] = kernel_out;
  for (int64_t i = 0; i < spatial; ++i) {
    absl::StatusOr<int64_t> size = WindowedOutputSize(
        lhs.dimensions(d.input_spatial_dimensions[i]), window.dimensions[i]);
    if (!size.ok()) return size.status();
    dims[d.output_spatial_dimensions[i]] = *size;
  }
  return Shape(lhs.element_type(), dims);
}

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
  params.insert(params.end(), params.begin(), params.end());
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
  params.insert(params.end(), params.begin(), params.end());
  if (!hlo.called_computations().empty()) {
    XLITE_RETURN_IF_ERROR(CheckCallee(hlo.called_computations()[0], params,
                                      "reduce-window to_apply"));
  }
  return TupleOrSingle(results);
}

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

absl::StatusOr<Shape> InferFft(const HloInstruction& hlo) {
  const Shape& in = hlo.operand(0)->shape();
  const HloAttributes& a = hlo.attrs();
  const int64_t n = a.fft_length.size();
  if (n < 1 || n > 3 || in.rank() < n) {
    return Invalid(
        absl::StrCat("fft needs 1 to 3 fft_length entries and an "
                     "operand of at least that rank, got ",
                     S(in)));
  }
  Shape out = in;
  out.ClearLayouts();
  switch (a.fft_type) {
    case FftType::kFft:
    case FftType::kIfft:
      if (!IsComplex(in.element_type())) {
        return Invalid(
            absl::StrCat("FFT/IFFT need a complex operand, got ", S(in)));
      }
      for (int64_t i = 0; i < n; ++i) {
        if (in.dimensions(in.rank() - n + i) != a.fft_length[i]) {
          return Invalid(
              "fft_length must match the operand's minor dimensions");
        }
      }
      return out;
    case FftType::kRfft:
      if (in.element_type() != PrimitiveType::kF32 &&
          in.element_type() != PrimitiveType::kF64) {
        return Invalid(
            absl::StrCat("RFFT needs an f32 or f64 operand, got ", S(in)));
      }
      out.set_element_type(in.element_type() == PrimitiveType::kF32
                               ? PrimitiveType::kC64
                               : PrimitiveType::kC128);
      out.set_dimension(in.rank() - 1, a.fft_length[n - 1] / 2 + 1);
      return out;
    case FftType::kIrfft:
      if (!IsComplex(in.element_type())) {
        return Invalid(
            absl::StrCat("IRFFT needs a complex operand, got ", S(in)));
      }
      out.set_element_type(ComplexComponentType(in.element_type()));
      out.set_dimension(in.rank() - 1, a.fft_length[n - 1]);
      return out;
  }
  return out;
}

absl::StatusOr<Shape> InferCollective(const HloInstruction& hlo) {
  XLITE_RETURN_IF_ERROR(CheckReplicaGroups(hlo));
  std::vector<Shape> shapes = OperandShapes(hlo);
  const int64_t group = GroupSize(hlo);
  switch (hlo.opcode()) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart: {
      std::vector<Shape> params;
      for (const Shape& s : shapes) {
        XLITE_RETURN_IF_ERROR(ExpectArray(s, "all-reduce operand"));
      }
      if (!shapes.empty() && !hlo.called_computations().empty()) {
        const PrimitiveType t = shapes[0].element_type();
        XLITE_RETURN_IF_ERROR(CheckCallee(hlo.called_computations()[0],
                                          {Shape(t, {}), Shape(t, {})},
                                          "all-reduce to_apply"));
      }
      return TupleOrSingle(shapes);
    }
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kReduceScatter: {
      if (hlo.dimensions().size() != 1) {
        return Invalid(absl::StrCat(HloOpcodeString(hlo.opcode()),
                                    " takes one dimension"));
      }
      const int64_t dim = hlo.dimensions(0);
      std::vector<Shape> results;
      for (const Shape& s : shapes) {
        XLITE_RETURN_IF_ERROR(ExpectArray(s, "collective operand"));
        if (dim < 0 || dim >= s.rank()) {
          return Invalid(
              absl::StrCat("dimension ", dim, " out of range for ", S(s)));
        }
        Shape out = s;
        out.ClearLayouts();
        if (group == 0)
          return hlo.shape();  // Size depends on the device count.
        if (hlo.opcode() == HloOpcode::kReduceScatter) {
          if (s.dimensions(dim) % group != 0) {
            return Invalid(absl::StrCat("reduce-scatter dimension ", dim,
                                        " of ", S(s),
                                        " is not divisible by the group "
                                        "size ",
                                        group));
          }
          out.set_dimension(dim, s.dimensions(dim) / group);
        } else {
          out.set_dimension(dim, s.dimensions(dim) * group);
        }
        results.push_back(out);
      }
      if (hlo.opcode() == HloOpcode::kAllGatherStart) {
        std::vector<Shape> both = shapes;
        both.insert(both.end(), results.begin(), results.end());
        if (both.size() == 2) return Shape::Tuple(both);
        return Shape::Tuple({Shape::Tuple(shapes), Shape::Tuple(results)});
      }
      return TupleOrSingle(results);
    }
    case HloOpcode::kAllToAll:
      if (hlo.has_dimensions() && !hlo.dimensions().empty()) {
        const int64_t dim = hlo.dimensions(0);
        if (shapes.size() != 1 || dim < 0 || dim >= shapes[0].rank()) {
          return Invalid("all-to-all split dimension out of range");
        }
        if (group > 0 && shapes[0].dimensions(dim) % group != 0) {
          return Invalid(
              absl::StrCat("all-to-all split dimension of ", S(shapes[0]),
                           " is not divisible by the group size ", group));
        }
        return shapes[0];
      }
      // The tuple form sends operand i to participant i: the operands share
      // one shape and the result is always a tuple, one operand or several.
      for (size_t i = 1; i < shapes.size(); ++i) {
        if (!ShapesCompatible(shapes[i], shapes[0])) {
          return Invalid(absl::StrCat("all-to-all operand ", i, " has shape ",
                                      S(shapes[i]), ", but operand 0 has ",
                                      S(shapes[0])));
        }
      }
      return Shape::Tuple(shapes);
    case HloOpcode::kCollectiveBroadcast:
      return TupleOrSingle(shapes);
    default:
      return hlo.shape();
  }
}

absl::StatusOr<Shape> InferAsync(const HloInstruction& hlo) {
  const HloComputation* callee = hlo.async_wrapped_computation();
  if (callee == nullptr) return Invalid("async op has no computation");
  switch (hlo.opcode()) {
    case HloOpcode::kAsyncStart: {
      const Shape& s = hlo.shape();
      if (!s.IsTuple() || s.tuple_shapes_size() < 2 ||
          !s.tuple_shapes(0).IsTuple()) {
        return Invalid(
            "async-start's shape must be ((operands), result, state...)");
      }
      XLITE_RETURN_IF_ERROR(
          CheckCallee(callee, OperandShapes(hlo), "async computation"));
      if (!ShapesCompatible(s.tuple_shapes(1), ProgramResult(callee))) {
        return Invalid(absl::StrCat("async-start result ", S(s.tuple_shapes(1)),
                                    " differs from its computation's ",
                                    S(ProgramResult(callee))));
      }
      return s;
    }
    case HloOpcode::kAsyncUpdate:
      return hlo.operand(0)->shape();
    default: {
      const Shape& start = hlo.operand(0)->shape();
      if (!start.IsTuple() || start.tuple_shapes_size() < 2) {
        return Invalid("async-done's operand must be an async-start");
      }
      return start.tuple_shapes(1);
    }
  }
}

}  // namespace shape_inference_internal
}  // namespace xlite
