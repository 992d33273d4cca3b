// Convolution as matrix products (see dot_kernels.h): the operands are
// rearranged so that features are contiguous (input [batch, spatial...,
// feature], kernel [spatial..., in-feature, out-feature]); for each feature
// group and batch group, rows of input patches (one per output position,
// zeros where the window falls in padding or between dilated elements)
// multiply the kernel matrix in Eigen. Rows go in chunks so the patch
// matrix stays small.

#include <Eigen/Core>
#include <algorithm>
#include <cstring>

#include "hlo/evaluator/dot_kernels.h"
#include "hlo/evaluator/element_types.h"

namespace xlite::eval {
namespace {

// Patch matrices are built this many elements at a time (at most).
constexpr int64_t kPatchElements = int64_t{1} << 22;

struct ConvGeometry {
  std::vector<int64_t> in_spatial, out_spatial, kernel_spatial;
  int64_t in_batch = 0, in_features = 0, out_batch = 0, out_features = 0;
  int64_t kin = 0;  // input features per group (kernel input features)
};

template <typename T>
void ConvolveTyped(const ConvGeometry& g, const Window& window, int64_t groups,
                   int64_t batch_groups, const T* in, const T* k, T* out) {
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic,
                               Eigen::RowMajor>;
  const int64_t spatial = g.in_spatial.size();
  int64_t out_positions = 1, window_positions = 1, in_positions = 1;
  for (int64_t s = 0; s < spatial; ++s) {
    out_positions *= g.out_spatial[s];
    window_positions *= g.kernel_spatial[s];
    in_positions *= g.in_spatial[s];
  }
  const std::vector<int64_t> in_strides = Strides(g.in_spatial);
  const int64_t depth = window_positions * g.kin;  // patch row length
  const int64_t rows = g.out_batch * out_positions;
  const int64_t chunk = std::max<int64_t>(1, kPatchElements / std::max<int64_t>(1, depth));
  const int64_t per_group = g.out_features / groups;
  const int64_t per_batch_group = g.out_features / batch_groups;
  // Kernel offset (in [spatial..., in, out] order) of each window position,
  // with window reversal applied.
  std::vector<int64_t> kernel_row(window_positions);
  {
    const std::vector<int64_t> kstr = Strides(g.kernel_spatial);
    int64_t w = 0;
    ForEachIndex(g.kernel_spatial, [&](absl::Span<const int64_t> kw) {
      int64_t at = 0;
      for (int64_t s = 0; s < spatial; ++s) {
        const bool rev = window.dimensions[s].window_reversal;
        at += (rev ? g.kernel_spatial[s] - 1 - kw[s] : kw[s]) * kstr[s];
      }
      kernel_row[w++] = at;
    });
  }
  std::vector<T> patches;
  Matrix weights;
  Matrix product;
  std::vector<int64_t> out_index(spatial), pos(spatial);
  for (int64_t fg = 0; fg < groups; ++fg) {
    for (int64_t bg = 0; bg < batch_groups; ++bg) {
      const int64_t lo = std::max(fg * per_group, bg * per_batch_group);
      const int64_t hi =
          std::min((fg + 1) * per_group, (bg + 1) * per_batch_group);
      if (lo >= hi) continue;
      const int64_t cols = hi - lo;
      weights.resize(depth, cols);
      for (int64_t w = 0; w < window_positions; ++w) {
        for (int64_t f = 0; f < g.kin; ++f) {
          const T* src = k + (kernel_row[w] * g.kin + f) * g.out_features + lo;
          std::copy(src, src + cols, &weights(w * g.kin + f, 0));
        }
      }
      for (int64_t r0 = 0; r0 < rows; r0 += chunk) {
        const int64_t n = std::min(chunk, rows - r0);
        patches.assign(n * depth, T(0));
        for (int64_t r = 0; r < n; ++r) {
          const int64_t ob = (r0 + r) / out_positions;
          int64_t op = (r0 + r) % out_positions;
          for (int64_t s = spatial - 1; s >= 0; --s) {
            out_index[s] = op % g.out_spatial[s];
            op /= g.out_spatial[s];
          }
          const int64_t batch = bg * g.out_batch + ob;
          T* row = patches.data() + r * depth;
          int64_t w = 0;
          ForEachIndex(g.kernel_spatial, [&](absl::Span<const int64_t> kw) {
            int64_t at = 0;
            bool inside = true;
            for (int64_t s = 0; s < spatial && inside; ++s) {
              const WindowDimension& wd = window.dimensions[s];
              const int64_t p = out_index[s] * wd.stride - wd.padding_low +
                                kw[s] * wd.window_dilation;
              inside = p >= 0 && p % wd.base_dilation == 0 &&
                       p / wd.base_dilation < g.in_spatial[s];
              if (inside) at += p / wd.base_dilation * in_strides[s];
            }
            if (inside) {
              const T* src =
                  in + ((batch * in_positions + at) * g.in_features + fg * g.kin);
              std::copy(src, src + g.kin, row + w * g.kin);
            }
            ++w;
          });
        }
        Eigen::Map<const Matrix> p(patches.data(), n, depth);
        product.noalias() = p * weights;
        product.array() += T(0);  // a sum of -0 products is +0, as in XLA
        for (int64_t r = 0; r < n; ++r) {
          std::copy(&product(r, 0), &product(r, 0) + cols,
                    out + (r0 + r) * g.out_features + lo);
        }
      }
    }
  }
}

}  // namespace

bool ConvolveByGemm(const ConvolutionDimensionNumbers& dn, const Window& window,
                    int64_t feature_groups, int64_t batch_groups,
                    const Literal& input, const Literal& kernel, Literal& out) {
  const PrimitiveType type = out.shape().element_type();
  if ((type != PrimitiveType::kF32 && type != PrimitiveType::kF64) ||
      input.shape().element_type() != type ||
      kernel.shape().element_type() != type || feature_groups < 1 ||
      batch_groups < 1) {
    return false;
  }
  const int64_t spatial = dn.input_spatial_dimensions.size();
  if (static_cast<int64_t>(window.dimensions.size()) != spatial) return false;
  for (const WindowDimension& wd : window.dimensions) {
    if (wd.stride < 1 || wd.base_dilation < 1 || wd.window_dilation < 1) {
      return false;
    }
  }
  const Shape& is = input.shape();
  const Shape& ks = kernel.shape();
  const Shape& os = out.shape();
  ConvGeometry g;
  std::vector<int64_t> in_perm = {dn.input_batch_dimension};
  std::vector<int64_t> k_perm;
  for (int64_t s = 0; s < spatial; ++s) {
    g.in_spatial.push_back(is.dimensions(dn.input_spatial_dimensions[s]));
    g.out_spatial.push_back(os.dimensions(dn.output_spatial_dimensions[s]));
    g.kernel_spatial.push_back(ks.dimensions(dn.kernel_spatial_dimensions[s]));
    in_perm.push_back(dn.input_spatial_dimensions[s]);
    k_perm.push_back(dn.kernel_spatial_dimensions[s]);
  }
  in_perm.push_back(dn.input_feature_dimension);
  k_perm.push_back(dn.kernel_input_feature_dimension);
  k_perm.push_back(dn.kernel_output_feature_dimension);
  g.in_batch = is.dimensions(dn.input_batch_dimension);
  g.in_features = is.dimensions(dn.input_feature_dimension);
  g.out_batch = os.dimensions(dn.output_batch_dimension);
  g.out_features = os.dimensions(dn.output_feature_dimension);
  g.kin = ks.dimensions(dn.kernel_input_feature_dimension);
  if (g.out_features % feature_groups != 0 ||
      g.out_features % batch_groups != 0 ||
      g.in_features < feature_groups * g.kin ||
      g.in_batch < batch_groups * g.out_batch) {
    return false;
  }
  const Literal in = Permute(input, in_perm);
  const Literal k = Permute(kernel, k_perm);
  // The result in [batch, spatial..., feature] order, then the output's.
  std::vector<int64_t> canonical_dims = {g.out_batch};
  canonical_dims.insert(canonical_dims.end(), g.out_spatial.begin(),
                        g.out_spatial.end());
  canonical_dims.push_back(g.out_features);
  Literal canonical(Shape(type, canonical_dims));
  if (type == PrimitiveType::kF32) {
    ConvolveTyped<float>(g, window, feature_groups, batch_groups,
                         Data<F32Traits>(in), Data<F32Traits>(k),
                         MutableData<F32Traits>(canonical));
  } else {
    ConvolveTyped<double>(g, window, feature_groups, batch_groups,
                          Data<F64Traits>(in), Data<F64Traits>(k),
                          MutableData<F64Traits>(canonical));
  }
  std::vector<int64_t> back(os.rank());
  back[dn.output_batch_dimension] = 0;
  for (int64_t s = 0; s < spatial; ++s) {
    back[dn.output_spatial_dimensions[s]] = 1 + s;
  }
  back[dn.output_feature_dimension] = 1 + spatial;
  const Literal permuted = Permute(canonical, back);
  out.mutable_data() = permuted.data();
  return true;
}

}  // namespace xlite::eval
