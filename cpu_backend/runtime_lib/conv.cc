// xlite_cpu_conv (see runtime_lib.h): convolution as matrix products. Each
// output position's receptive field becomes one row of a patch matrix
// (im2col); the patch rows times the kernel, read as a
// [window * in_features, out_features] matrix, are the output rows,
// written in place (the kernels of contraction_kernels.h, for the best
// instruction set the CPU has). A large call splits its output rows over
// threads (parallel_for.h); each output element is still one sum over the
// whole depth.

#include <algorithm>
#include <cstring>

#include "cpu_backend/runtime_lib/contraction_kernels.h"
#include "cpu_backend/runtime_lib/conv_geometry.h"
#include "cpu_backend/runtime_lib/parallel_for.h"
#include "cpu_backend/runtime_lib/runtime_lib.h"

namespace xlite::cpu {
namespace {

// Output rows a task keeps at least.
constexpr int64_t kMinTaskRows = 16;

// Runs the rows of a validated call with depth > 0, split over threads when
// large.
void Convolve(const ConvGeometry& g, bool f64, const void* input,
              const void* kernel, void* out) {
  const ContractionKernels& kernels = BestContractionKernels();
  const int64_t rows = g.rows();
  const int64_t tasks =
      TasksFor(rows * g.depth() * g.out_features,
               std::max<int64_t>(1, rows / kMinTaskRows));
  ParallelFor(tasks, [&](int64_t t) {
    kernels.conv(g, f64, input, kernel, out, rows * t / tasks,
                 rows * (t + 1) / tasks);
  });
}

}  // namespace

// C linkage: the global function runtime_lib.h declares.
extern "C" int32_t xlite_cpu_conv(int32_t type, const void* input,
                                  const void* kernel, void* out,
                                  int64_t spatial_rank, int64_t batch,
                                  int64_t in_features, int64_t out_features,
                                  const int64_t* spatial) {
  if (spatial_rank < 1 || spatial_rank > kConvMaxSpatial || batch < 0 ||
      in_features < 0 || out_features < 0 || spatial == nullptr) {
    return kStatusInvalidArgument;
  }
  ConvGeometry g;
  g.rank = spatial_rank;
  g.batch = batch;
  g.in_features = in_features;
  g.out_features = out_features;
  for (int64_t s = 0; s < spatial_rank; ++s) {
    const int64_t* v = spatial + s * kConvSpatialFields;
    ConvSpatialDim& d = g.dims[s];
    d = {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7] != 0};
    if (d.in < 0 || d.out < 0 || d.window < 0 || d.stride < 1 ||
        d.base_dilation < 1 || d.window_dilation < 1) {
      return kStatusInvalidArgument;
    }
    g.in_positions *= d.in;
    g.out_positions *= d.out;
    g.window_positions *= d.window;
  }
  if (type != kTypeF32 && type != kTypeF64) return kStatusUnsupportedType;
  const int64_t out_elements = batch * g.out_positions * out_features;
  if (out_elements == 0) return kStatusOk;
  if (out == nullptr) return kStatusInvalidArgument;
  if (g.window_positions * in_features == 0) {
    const int64_t bytes = type == kTypeF32 ? 4 : 8;
    std::memset(out, 0, out_elements * bytes);
    return kStatusOk;
  }
  if (input == nullptr || kernel == nullptr) return kStatusInvalidArgument;
  Convolve(g, type == kTypeF64, input, kernel, out);
  return kStatusOk;
}

}  // namespace xlite::cpu
