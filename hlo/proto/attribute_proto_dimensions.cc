// Proto functions of the attributes that describe dimensions: dimensions=
// and the index-like attributes, slices, padding, fft, windows, convolution
// numbers and operand precision.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "hlo/proto/attribute_proto.h"

namespace xlite::attribute_proto {
namespace {

using A = AttributeId;
using Hlo = HloInstruction;
using Proto = xla::HloInstructionProto;

// ---- dimensions= and the attributes kept in the instruction's index

absl::Status ReadDimensions(const Proto& p, Hlo* h) {
  const HloOpcode op = h->opcode();
  // An all-to-all without dimensions is XLA's tuple form.
  if (op == HloOpcode::kAllToAll && p.dimensions_size() == 0) {
    return absl::OkStatus();
  }
  AssignTo(p.dimensions(), h->mutable_dimensions());
  h->set_has_dimensions(true);
  return absl::OkStatus();
}

void AddIndexAttributes(FunctionTable* t) {
  t->Set(
      A::kDimensions,
      [](const Hlo& h, Proto* p) {
        if (h.has_dimensions()) AddAll(h.dimensions(), p->mutable_dimensions());
        return absl::OkStatus();
      },
      ReadDimensions);
  t->Set(
      A::kIndex,
      [](const Hlo& h, Proto* p) {
        p->set_tuple_index(h.tuple_index());
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        h->set_index(p.tuple_index());
        return absl::OkStatus();
      });
  t->Set(
      A::kIotaDimension,
      [](const Hlo& h, Proto* p) {
        p->add_dimensions(h.iota_dimension());
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        if (p.dimensions_size() != 1) {
          return absl::InvalidArgumentError("iota needs one dimension");
        }
        h->set_index(p.dimensions(0));
        return absl::OkStatus();
      });
  t->Set(
      A::kInferredDimension,
      [](const Hlo& h, Proto* p) {
        if (h.inferred_dimension() != -1) {
          p->add_dimensions(h.inferred_dimension());
        }
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        h->set_index(p.dimensions_size() == 1 ? p.dimensions(0) : -1);
        return absl::OkStatus();
      });
}

// ---- slice, dynamic-slice, pad, fft

void AddSliceAttributes(FunctionTable* t) {
  t->Set(
      A::kSlice,
      [](const Hlo& h, Proto* p) {
        for (const SliceDimension& s : h.attrs().slice) {
          auto* d = p->add_slice_dimensions();
          d->set_start(s.start);
          d->set_limit(s.limit);
          d->set_stride(s.stride);
        }
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        for (const auto& s : p.slice_dimensions()) {
          h->mutable_attrs().slice.push_back(
              {s.start(), s.limit(), s.stride()});
        }
        return absl::OkStatus();
      });
  t->Set(
      A::kDynamicSliceSizes,
      [](const Hlo& h, Proto* p) {
        AddAll(h.attrs().dynamic_slice_sizes, p->mutable_dynamic_slice_sizes());
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        AssignTo(p.dynamic_slice_sizes(),
                 &h->mutable_attrs().dynamic_slice_sizes);
        return absl::OkStatus();
      });
  t->Set(
      A::kPadding,
      [](const Hlo& h, Proto* p) {
        for (const PaddingDimension& d : h.attrs().padding.dimensions) {
          auto* pd = p->mutable_padding_config()->add_dimensions();
          pd->set_edge_padding_low(d.edge_padding_low);
          pd->set_edge_padding_high(d.edge_padding_high);
          pd->set_interior_padding(d.interior_padding);
        }
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        for (const auto& d : p.padding_config().dimensions()) {
          h->mutable_attrs().padding.dimensions.push_back(
              {d.edge_padding_low(), d.edge_padding_high(),
               d.interior_padding()});
        }
        return absl::OkStatus();
      });
  t->Set(
      A::kFftType,
      [](const Hlo& h, Proto* p) {
        p->set_fft_type(static_cast<xla::FftType>(h.attrs().fft_type));
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        return ReadEnum(p.fft_type(), 3, "fft type",
                        &h->mutable_attrs().fft_type);
      });
  t->Set(
      A::kFftLength,
      [](const Hlo& h, Proto* p) {
        AddAll(h.attrs().fft_length, p->mutable_fft_length());
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        AssignTo(p.fft_length(), &h->mutable_attrs().fft_length);
        return absl::OkStatus();
      });
}

// ---- window, convolution

// XLA requires a window on these, even one with no dimensions.
bool NeedsWindow(HloOpcode op) {
  return op == HloOpcode::kConvolution || op == HloOpcode::kReduceWindow ||
         op == HloOpcode::kSelectAndScatter;
}

absl::Status WriteWindow(const Hlo& h, Proto* p) {
  const OptionalBox<Window>& window = h.attrs().window;
  if (!window.has_value()) {
    if (NeedsWindow(h.opcode())) p->mutable_window();
    return absl::OkStatus();
  }
  xla::Window* w = p->mutable_window();
  for (const WindowDimension& d : window->dimensions) {
    auto* wd = w->add_dimensions();
    wd->set_size(d.size);
    wd->set_stride(d.stride);
    wd->set_padding_low(d.padding_low);
    wd->set_padding_high(d.padding_high);
    wd->set_window_dilation(d.window_dilation);
    wd->set_base_dilation(d.base_dilation);
    wd->set_window_reversal(d.window_reversal);
  }
  return absl::OkStatus();
}

absl::Status ReadWindow(const Proto& p, Hlo* h) {
  if (p.window().dimensions_size() == 0) {
    return absl::OkStatus();  // an empty window is no window
  }
  Window w;
  for (const auto& d : p.window().dimensions()) {
    WindowDimension wd;
    wd.size = d.size();
    wd.stride = d.stride();
    wd.padding_low = d.padding_low();
    wd.padding_high = d.padding_high();
    wd.window_dilation = d.window_dilation();
    wd.base_dilation = d.base_dilation();
    wd.window_reversal = d.window_reversal();
    w.dimensions.push_back(wd);
  }
  h->mutable_attrs().window = std::move(w);
  return absl::OkStatus();
}

absl::Status WriteDimLabels(const Hlo& h, Proto* p) {
  const std::optional<ConvolutionDimensionNumbers>& dnums =
      h.attrs().conv->dnums;
  if (!dnums.has_value()) return absl::OkStatus();
  const ConvolutionDimensionNumbers& d = *dnums;
  auto* c = p->mutable_convolution_dimension_numbers();
  c->set_input_batch_dimension(d.input_batch_dimension);
  c->set_input_feature_dimension(d.input_feature_dimension);
  AddAll(d.input_spatial_dimensions, c->mutable_input_spatial_dimensions());
  c->set_kernel_input_feature_dimension(d.kernel_input_feature_dimension);
  c->set_kernel_output_feature_dimension(d.kernel_output_feature_dimension);
  AddAll(d.kernel_spatial_dimensions, c->mutable_kernel_spatial_dimensions());
  c->set_output_batch_dimension(d.output_batch_dimension);
  c->set_output_feature_dimension(d.output_feature_dimension);
  AddAll(d.output_spatial_dimensions, c->mutable_output_spatial_dimensions());
  return absl::OkStatus();
}

absl::Status ReadDimLabels(const Proto& p, Hlo* h) {
  if (!p.has_convolution_dimension_numbers()) return absl::OkStatus();
  const auto& c = p.convolution_dimension_numbers();
  ConvolutionDimensionNumbers d;
  d.input_batch_dimension = c.input_batch_dimension();
  d.input_feature_dimension = c.input_feature_dimension();
  AssignTo(c.input_spatial_dimensions(), &d.input_spatial_dimensions);
  d.kernel_input_feature_dimension = c.kernel_input_feature_dimension();
  d.kernel_output_feature_dimension = c.kernel_output_feature_dimension();
  AssignTo(c.kernel_spatial_dimensions(), &d.kernel_spatial_dimensions);
  d.output_batch_dimension = c.output_batch_dimension();
  d.output_feature_dimension = c.output_feature_dimension();
  AssignTo(c.output_spatial_dimensions(), &d.output_spatial_dimensions);
  h->mutable_attrs().conv->dnums = d;
  return absl::OkStatus();
}

void AddConvolutionAttributes(FunctionTable* t) {
  t->Set(A::kWindow, WriteWindow, ReadWindow);
  t->Set(A::kDimLabels, WriteDimLabels, ReadDimLabels);
  t->Set(A::kConvKind, WriteNothing, ReadNothing);
  // Group counts: always written on convolution, elsewhere (custom-call)
  // when not 1; read when above 1.
  t->Set(
      A::kFeatureGroupCount,
      [](const Hlo& h, Proto* p) {
        const int64_t count = h.attrs().conv->feature_group_count;
        if (h.opcode() == HloOpcode::kConvolution || count != 1) {
          p->set_feature_group_count(count);
        }
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        if (p.feature_group_count() > 1) {
          h->mutable_attrs().conv->feature_group_count =
              p.feature_group_count();
        }
        return absl::OkStatus();
      });
  t->Set(
      A::kBatchGroupCount,
      [](const Hlo& h, Proto* p) {
        const int64_t count = h.attrs().conv->batch_group_count;
        if (h.opcode() == HloOpcode::kConvolution || count != 1) {
          p->set_batch_group_count(count);
        }
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        if (p.batch_group_count() > 1) {
          h->mutable_attrs().conv->batch_group_count = p.batch_group_count();
        }
        return absl::OkStatus();
      });
  t->Set(
      A::kPaddingType,
      [](const Hlo& h, Proto* p) {
        p->set_padding_type(
            static_cast<xla::PaddingType>(h.attrs().conv->padding_type));
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        if (p.padding_type() == xla::PADDING_INVALID) return absl::OkStatus();
        return ReadEnum(p.padding_type(), 2, "padding type",
                        &h->mutable_attrs().conv->padding_type);
      });
}

// ---- precision_config

absl::Status ReadOperandPrecision(const Proto& p, Hlo* h) {
  if (!p.has_precision_config()) return absl::OkStatus();
  bool non_default = false;
  for (int x : p.precision_config().operand_precision()) non_default |= x != 0;
  if (!non_default) return absl::OkStatus();
  for (int x : p.precision_config().operand_precision()) {
    Precision precision = Precision::kDefault;
    absl::Status status = ReadEnum(x, 3, "operand precision", &precision);
    if (!status.ok()) return status;
    h->mutable_attrs().operand_precision.push_back(precision);
  }
  return absl::OkStatus();
}

absl::Status WriteDotAlgorithm(const Hlo& h, Proto* p) {
  const std::string& name = h.attrs().dot->algorithm;
  if (name.empty()) return absl::OkStatus();
  xla::PrecisionConfig::Algorithm algorithm;
  if (!xla::PrecisionConfig::Algorithm_Parse(
          absl::StrCat("ALG_", absl::AsciiStrToUpper(name)), &algorithm)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown dot algorithm ", name));
  }
  p->mutable_precision_config()->set_algorithm(algorithm);
  return absl::OkStatus();
}

absl::Status ReadDotAlgorithm(const Proto& p, Hlo* h) {
  if (!p.has_precision_config() ||
      p.precision_config().algorithm() == xla::PrecisionConfig::ALG_UNSET) {
    return absl::OkStatus();
  }
  const std::string& full =
      xla::PrecisionConfig::Algorithm_Name(p.precision_config().algorithm());
  absl::string_view name = full;
  absl::ConsumePrefix(&name, "ALG_");
  h->mutable_attrs().dot->algorithm = absl::AsciiStrToLower(name);
  return absl::OkStatus();
}

void AddPrecisionAttributes(FunctionTable* t) {
  t->Set(
      A::kOperandPrecision,
      [](const Hlo& h, Proto* p) {
        const std::vector<Precision>& precision = h.attrs().operand_precision;
        if (precision.empty()) return absl::OkStatus();
        auto* pc = p->mutable_precision_config();
        for (Precision x : precision) {
          pc->add_operand_precision(
              static_cast<xla::PrecisionConfig::Precision>(x));
        }
        return absl::OkStatus();
      },
      ReadOperandPrecision);
  t->Set(A::kDotAlgorithm, WriteDotAlgorithm, ReadDotAlgorithm);
}

}  // namespace

void AddDimensionAttributes(FunctionTable* table) {
  AddIndexAttributes(table);
  AddSliceAttributes(table);
  AddConvolutionAttributes(table);
  AddPrecisionAttributes(table);
}

}  // namespace xlite::attribute_proto
