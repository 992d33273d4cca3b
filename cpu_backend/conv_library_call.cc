// A convolution as one xlite_cpu_conv call. The library reads the input as
// [batch, spatial..., feature], the kernel as [spatial..., in, out] and
// writes [batch, spatial..., feature] (dense, row-major, in the compute
// type): the dim_labels say which logical dimension is which, the layouts
// whether the buffers already are that order (b01f_01io->b01f with default
// layouts is) or go through a dense scratch copy.

#include "codegen/elemental.h"
#include "cpu_backend/contraction_calls.h"
#include "cpu_backend/contraction_strategy.h"
#include "cpu_backend/dense_arrays.h"
#include "cpu_backend/library_calls.h"
#include "cpu_backend/runtime_lib/runtime_lib.h"

namespace xlite::cpu {

using codegen::IrArray;

namespace {

std::vector<int64_t> Order(int64_t first, const std::vector<int64_t>& middle,
                           int64_t last) {
  std::vector<int64_t> order = {first};
  order.insert(order.end(), middle.begin(), middle.end());
  order.push_back(last);
  return order;
}

}  // namespace

absl::Status EmitConvolutionLibraryCall(EmitterContext& ctx,
                                        llvm::IRBuilderBase& b,
                                        const HloInstruction* hlo) {
  if (!ConvolutionUsesLibrary(*hlo)) {
    return codegen::Unsupported(hlo, "not a library convolution");
  }
  const ConvolutionDimensionNumbers& dn = *hlo->attrs().conv->dnums;
  const Window& window = *hlo->attrs().window;
  const PrimitiveType type = *LibraryComputeType(
      hlo->operand(0)->shape().element_type(),
      hlo->operand(1)->shape().element_type(), hlo->shape().element_type());
  absl::StatusOr<IrArray> input = ctx.ArrayFor(b, hlo->operand(0));
  if (!input.ok()) return input.status();
  absl::StatusOr<IrArray> kernel = ctx.ArrayFor(b, hlo->operand(1));
  if (!kernel.ok()) return kernel.status();
  absl::StatusOr<IrArray> out = ctx.ArrayFor(b, hlo);
  if (!out.ok()) return out.status();
  absl::StatusOr<bool> overlap = ResultOverlapsOperands(ctx, hlo);
  if (!overlap.ok()) return overlap.status();

  DenseArrays arrays(ctx, b);
  absl::StatusOr<llvm::Value*> in_ptr =
      arrays.Input(*input,
                   Order(dn.input_batch_dimension, dn.input_spatial_dimensions,
                         dn.input_feature_dimension),
                   type);
  if (!in_ptr.ok()) return in_ptr.status();
  std::vector<int64_t> kernel_order = dn.kernel_spatial_dimensions;
  kernel_order.push_back(dn.kernel_input_feature_dimension);
  kernel_order.push_back(dn.kernel_output_feature_dimension);
  absl::StatusOr<llvm::Value*> k_ptr =
      arrays.Input(*kernel, kernel_order, type);
  if (!k_ptr.ok()) return k_ptr.status();
  llvm::Value* out_ptr = arrays.Output(
      *out,
      Order(dn.output_batch_dimension, dn.output_spatial_dimensions,
            dn.output_feature_dimension),
      type, !*overlap);

  const Shape& is = input->shape();
  const Shape& ks = kernel->shape();
  const Shape& os = out->shape();
  std::vector<int64_t> spatial;
  for (size_t s = 0; s < dn.input_spatial_dimensions.size(); ++s) {
    const WindowDimension& w = window.dimensions[s];
    spatial.insert(spatial.end(),
                   {is.dimensions(dn.input_spatial_dimensions[s]),
                    os.dimensions(dn.output_spatial_dimensions[s]),
                    ks.dimensions(dn.kernel_spatial_dimensions[s]), w.stride,
                    w.padding_low, w.base_dilation, w.window_dilation,
                    w.window_reversal ? 1 : 0});
  }
  static_assert(kConvSpatialFields == 8);
  arrays.Call("xlite_cpu_conv",
              {b.getInt32(static_cast<int32_t>(type)), *in_ptr, *k_ptr, out_ptr,
               b.getInt64(dn.input_spatial_dimensions.size()),
               b.getInt64(is.dimensions(dn.input_batch_dimension)),
               b.getInt64(is.dimensions(dn.input_feature_dimension)),
               b.getInt64(os.dimensions(dn.output_feature_dimension)),
               EmitInt64Array(b, spatial)});
  return arrays.Finish();
}

}  // namespace xlite::cpu
