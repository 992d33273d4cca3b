// dot (any batch/contracting dimensions, preferred element type) and
// convolution (any dim_labels, strides, padding, dilations, feature and
// batch groups). Operands are converted to the accumulation type first
// (dot_kernels.h: f32 for narrow floats, as XLA:CPU computes them) and the
// result rounded once; real floats go through Eigen.

#include <cstring>

#include "hlo/evaluator/dot_kernels.h"
#include "hlo/evaluator/element_types.h"
#include "hlo/evaluator/internal.h"

namespace xlite::eval {
namespace {

// The operand rearranged as [batch, rows, cols] (row-major), where rows and
// cols are the given dimension lists (free or contracting).
Literal Arrange(const Literal& in, absl::Span<const int64_t> batch,
                absl::Span<const int64_t> rows, absl::Span<const int64_t> cols,
                int64_t* b, int64_t* r, int64_t* c) {
  std::vector<int64_t> perm;
  perm.insert(perm.end(), batch.begin(), batch.end());
  perm.insert(perm.end(), rows.begin(), rows.end());
  perm.insert(perm.end(), cols.begin(), cols.end());
  *b = *r = *c = 1;
  for (int64_t d : batch) *b *= in.shape().dimensions(d);
  for (int64_t d : rows) *r *= in.shape().dimensions(d);
  for (int64_t d : cols) *c *= in.shape().dimensions(d);
  return Permute(in, perm);
}

}  // namespace

absl::StatusOr<Literal> DotLiterals(const Literal& lhs_operand,
                                    const Literal& rhs_operand,
                                    const DotDimensionNumbers& d,
                                    const Shape& shape) {
  const PrimitiveType lhs_type = lhs_operand.shape().element_type();
  const PrimitiveType rhs_type = rhs_operand.shape().element_type();
  const PrimitiveType type =
      AccumulationType(lhs_type, rhs_type, shape.element_type());
  const Literal lhs_in =
      lhs_type == type ? lhs_operand : ConvertLiteral(lhs_operand, type);
  const Literal rhs_in =
      rhs_type == type ? rhs_operand : ConvertLiteral(rhs_operand, type);
  const std::vector<int64_t> lhs_free =
      DotFreeDimensions(lhs_in.shape().rank(), d.lhs_batch_dimensions,
                        d.lhs_contracting_dimensions);
  const std::vector<int64_t> rhs_free =
      DotFreeDimensions(rhs_in.shape().rank(), d.rhs_batch_dimensions,
                        d.rhs_contracting_dimensions);
  int64_t B, M, K, B2, K2, N;
  const Literal lhs = Arrange(lhs_in, d.lhs_batch_dimensions, lhs_free,
                              d.lhs_contracting_dimensions, &B, &M, &K);
  const Literal rhs =
      Arrange(rhs_in, d.rhs_batch_dimensions, d.rhs_contracting_dimensions,
              rhs_free, &B2, &K2, &N);
  if (B != B2 || K != K2) {
    return absl::InvalidArgumentError(
        "dot operands disagree on batch or contracting sizes");
  }
  Shape accumulated = shape;
  accumulated.set_element_type(type);
  Literal out(accumulated);
  if (out.element_count() != B * M * N) {
    return absl::InvalidArgumentError("dot result shape does not match");
  }
  MatMul(lhs, rhs, out, B, M, K, N);
  return RoundResult(out, lhs_type, rhs_type, shape);
}

namespace {

absl::StatusOr<Literal> EvalDot(const HloInstruction& hlo, Operands operands) {
  return DotLiterals(*operands[0], *operands[1], hlo.attrs().dot->dnums,
                     hlo.shape());
}

// ragged-dot(lhs, rhs, group_sizes): the rows of lhs's ragged dimension
// are split into consecutive groups; group g multiplies rhs's slice g of
// its group dimension (a ragged batch dimension needs no group dimension).
// Rows past the groups give zeros.
absl::StatusOr<Literal> EvalRaggedDot(const HloInstruction& hlo,
                                      Operands operands) {
  const DotAttributes& a = *hlo.attrs().dot;
  if (a.lhs_ragged_dims.size() != 1) {
    return InstructionError(hlo, "ragged-dot needs one lhs ragged dimension");
  }
  const Literal& lhs = *operands[0];
  const Literal& rhs = *operands[1];
  const Literal& sizes = *operands[2];
  const int64_t ragged = a.lhs_ragged_dims[0];
  const auto& contracting = a.dnums.lhs_contracting_dimensions;
  if (std::find(contracting.begin(), contracting.end(), ragged) !=
      contracting.end()) {
    return InstructionError(hlo,
                            "ragged-dot with a ragged contracting "
                            "dimension is not supported yet");
  }
  const int64_t rows = lhs.shape().dimensions(ragged);
  const int64_t groups = sizes.element_count();
  // The group of each row (-1 past the groups).
  std::vector<int64_t> group_of(rows, -1);
  int64_t row = 0;
  for (int64_t g = 0; g < groups; ++g) {
    const int64_t n = std::max<int64_t>(0, sizes.GetAsInt64(g));
    for (int64_t i = 0; i < n && row < rows; ++i) group_of[row++] = g;
  }
  const std::vector<int64_t> lstr = Strides(lhs.shape().dimensions());
  auto masked = [&](int64_t g) {
    Literal m = lhs;
    const int64_t w = ElementBytes(lhs.shape());
    for (int64_t i = 0; i < m.element_count(); ++i) {
      const int64_t r = (i / lstr[ragged]) % rows;
      if (group_of[r] != g) {
        std::memset(m.mutable_data().data() + i * w, 0, w);
      }
    }
    return m;
  };
  DotDimensionNumbers d = a.dnums;
  if (a.rhs_group_dims.empty()) {
    // A ragged batch dimension: rows past the groups give zeros.
    Literal all = lhs;
    const int64_t w = ElementBytes(lhs.shape());
    for (int64_t i = 0; i < all.element_count(); ++i) {
      if (group_of[(i / lstr[ragged]) % rows] < 0) {
        std::memset(all.mutable_data().data() + i * w, 0, w);
      }
    }
    absl::StatusOr<Literal> out = DotLiterals(all, rhs, d, hlo.shape());
    if (!out.ok()) return InstructionError(hlo, out.status().message());
    return out;
  }
  const int64_t group_dim = a.rhs_group_dims[0];
  for (auto* v : {&d.rhs_batch_dimensions, &d.rhs_contracting_dimensions}) {
    for (int64_t& x : *v) {
      if (x > group_dim) --x;
    }
  }
  Literal out(hlo.shape());
  for (int64_t g = 0; g < groups && g < rhs.shape().dimensions(group_dim);
       ++g) {
    // rhs slice g without the group dimension.
    std::vector<int64_t> dims;
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < rhs.shape().rank(); ++k) {
      if (k != group_dim) dims.push_back(rhs.shape().dimensions(k));
      if (k < group_dim) outer *= rhs.shape().dimensions(k);
      if (k > group_dim) inner *= rhs.shape().dimensions(k);
    }
    Literal slice(Shape(rhs.shape().element_type(), dims));
    const int64_t w = ElementBytes(rhs.shape());
    const int64_t count = rhs.shape().dimensions(group_dim);
    for (int64_t o = 0; o < outer; ++o) {
      std::memcpy(slice.mutable_data().data() + o * inner * w,
                  rhs.data().data() + (o * count + g) * inner * w, inner * w);
    }
    absl::StatusOr<Literal> part =
        DotLiterals(masked(g), slice, d, hlo.shape());
    if (!part.ok()) return InstructionError(hlo, part.status().message());
    // Masked rows contribute zeros: accumulate the groups' parts.
    absl::StatusOr<Literal> sum =
        BinaryElementwise(HloOpcode::kAdd, out, *part);
    if (!sum.ok()) return InstructionError(hlo, sum.status().message());
    out = *std::move(sum);
  }
  out.mutable_shape_for_layout() = hlo.shape();
  return out;
}

template <typename Tr>
void Convolve(const HloInstruction& hlo, const Literal& input,
              const Literal& kernel, Literal& out) {
  using S = typename Tr::Storage;
  using C = typename Tr::Compute;
  using Acc = std::conditional_t<
      kIsInt<Tr>, uint64_t,
      std::conditional_t<Tr::kKind == Kind::kPred, int64_t, C>>;
  const ConvolutionDimensionNumbers& dn = *hlo.attrs().conv->dnums;
  const int64_t spatial = dn.input_spatial_dimensions.size();
  const Window window = hlo.attrs().window.value_or(Window());
  const int64_t groups = hlo.attrs().conv->feature_group_count;
  const int64_t batch_groups = hlo.attrs().conv->batch_group_count;
  const Shape& is = input.shape();
  const Shape& ks = kernel.shape();
  const Shape& os = out.shape();
  const std::vector<int64_t> istr = Strides(is.dimensions());
  const std::vector<int64_t> kstr = Strides(ks.dimensions());
  const std::vector<int64_t> ostr = Strides(os.dimensions());
  const int64_t kin = ks.dimensions(dn.kernel_input_feature_dimension);
  const int64_t out_features = os.dimensions(dn.output_feature_dimension);
  const int64_t per_group = out_features / groups;
  const int64_t per_batch_group = out_features / batch_groups;
  const int64_t out_batch = os.dimensions(dn.output_batch_dimension);
  const S* x = Data<Tr>(input);
  const S* k = Data<Tr>(kernel);
  S* y = MutableData<Tr>(out);
  std::vector<int64_t> kernel_sizes(spatial);
  for (int64_t s = 0; s < spatial; ++s) {
    kernel_sizes[s] = ks.dimensions(dn.kernel_spatial_dimensions[s]);
  }
  ForEachIndex(os.dimensions(), [&](absl::Span<const int64_t> o) {
    const int64_t ob = o[dn.output_batch_dimension];
    const int64_t of = o[dn.output_feature_dimension];
    const int64_t group = of / per_group;
    const int64_t batch = (of / per_batch_group) * out_batch + ob;
    Acc acc = Acc(0);
    ForEachIndex(kernel_sizes, [&](absl::Span<const int64_t> kw) {
      int64_t in_offset = batch * istr[dn.input_batch_dimension];
      int64_t k_offset = of * kstr[dn.kernel_output_feature_dimension];
      for (int64_t s = 0; s < spatial; ++s) {
        const WindowDimension& wd = window.dimensions[s];
        const int64_t kpos =
            wd.window_reversal ? kernel_sizes[s] - 1 - kw[s] : kw[s];
        const int64_t pos = o[dn.output_spatial_dimensions[s]] * wd.stride -
                            wd.padding_low + kw[s] * wd.window_dilation;
        if (pos < 0 || pos % wd.base_dilation != 0) return;
        const int64_t i = pos / wd.base_dilation;
        if (i >= is.dimensions(dn.input_spatial_dimensions[s])) return;
        in_offset += i * istr[dn.input_spatial_dimensions[s]];
        k_offset += kpos * kstr[dn.kernel_spatial_dimensions[s]];
      }
      for (int64_t f = 0; f < kin; ++f) {
        const int64_t in_feature = group * kin + f;
        const auto a = Tr::Load(
            x[in_offset + in_feature * istr[dn.input_feature_dimension]]);
        const auto b =
            Tr::Load(k[k_offset + f * kstr[dn.kernel_input_feature_dimension]]);
        if constexpr (Tr::kKind == Kind::kPred) {
          acc = acc || (a && b);
        } else {
          acc += static_cast<Acc>(a) * static_cast<Acc>(b);
        }
      }
    });
    int64_t linear = 0;
    for (size_t d = 0; d < o.size(); ++d) linear += o[d] * ostr[d];
    y[linear] = Tr::Store(static_cast<C>(acc));
  });
}

absl::StatusOr<Literal> EvalConvolution(const HloInstruction& hlo,
                                        Operands operands) {
  if (!hlo.attrs().conv->dnums.has_value()) {
    return InstructionError(hlo, "convolution has no dim_labels");
  }
  const PrimitiveType lhs_type = operands[0]->shape().element_type();
  const PrimitiveType rhs_type = operands[1]->shape().element_type();
  const PrimitiveType type =
      AccumulationType(lhs_type, rhs_type, hlo.shape().element_type());
  const Literal input =
      lhs_type == type ? *operands[0] : ConvertLiteral(*operands[0], type);
  const Literal kernel =
      rhs_type == type ? *operands[1] : ConvertLiteral(*operands[1], type);
  Shape accumulated = hlo.shape();
  accumulated.set_element_type(type);
  Literal out(accumulated);
  const ConvolutionAttributes& conv = *hlo.attrs().conv;
  if (!ConvolveByGemm(*conv.dnums, hlo.attrs().window.value_or(Window()),
                      conv.feature_group_count, conv.batch_group_count, input,
                      kernel, out)) {
    DispatchArrayType(type, [&](auto tr) {
      Convolve<decltype(tr)>(hlo, input, kernel, out);
      return 0;
    });
  }
  return RoundResult(out, lhs_type, rhs_type, hlo.shape());
}

}  // namespace

// scaled-dot lives in scaled_dot.cc with the block-scaled custom calls.
absl::StatusOr<Literal> EvalContraction(const HloInstruction& hlo,
                                        Operands operands) {
  switch (hlo.opcode()) {
    case HloOpcode::kDot:
      return EvalDot(hlo, operands);
    case HloOpcode::kScaledDot:
      return EvalScaledDot(hlo, operands);
    case HloOpcode::kRaggedDot:
      return EvalRaggedDot(hlo, operands);
    case HloOpcode::kConvolution:
      return EvalConvolution(hlo, operands);
    default:
      return NotImplemented(hlo);
  }
}

}  // namespace xlite::eval
