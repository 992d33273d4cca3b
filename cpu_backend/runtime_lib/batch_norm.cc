// batch-norm-training, -inference and -grad in double, element by element
// in row-major order, with the evaluator's formulas and summation order
// (hlo/evaluator/linalg_fft.cc, which this file never calls): the caller
// converts to and from the element types, so results are the evaluator's
// bit for bit.

#include <cmath>
#include <vector>

#include "cpu_backend/runtime_lib/runtime_lib.h"

namespace xlite::cpu {
namespace {

bool BadShape(int64_t outer, int64_t features, int64_t inner) {
  return outer < 0 || features < 0 || inner < 0;
}

// Per-feature mean and (biased) variance of x, summed in row-major order.
void Moments(const double* x, int64_t outer, int64_t features, int64_t inner,
             double* mean, double* var) {
  const int64_t per_feature = outer * inner;
  for (int64_t c = 0; c < features; ++c) mean[c] = var[c] = 0;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t c = 0; c < features; ++c) {
      const double* row = x + (o * features + c) * inner;
      for (int64_t j = 0; j < inner; ++j) mean[c] += row[j];
    }
  }
  for (int64_t c = 0; c < features; ++c) mean[c] /= per_feature;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t c = 0; c < features; ++c) {
      const double* row = x + (o * features + c) * inner;
      for (int64_t j = 0; j < inner; ++j) {
        const double d = row[j] - mean[c];
        var[c] += d * d;
      }
    }
  }
  for (int64_t c = 0; c < features; ++c) var[c] /= per_feature;
}

// out = (x - mean) / sqrt(var + epsilon) * scale + offset, per feature.
void Normalize(const double* x, const double* scale, const double* offset,
               const double* mean, const double* var, int64_t outer,
               int64_t features, int64_t inner, double epsilon, double* out) {
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t c = 0; c < features; ++c) {
      const int64_t base = (o * features + c) * inner;
      for (int64_t j = 0; j < inner; ++j) {
        out[base + j] =
            (x[base + j] - mean[c]) / std::sqrt(var[c] + epsilon) * scale[c] +
            offset[c];
      }
    }
  }
}

}  // namespace
}  // namespace xlite::cpu

extern "C" {

int32_t xlite_cpu_batch_norm_training(const double* x, const double* scale,
                                      const double* offset, double* out,
                                      double* mean, double* variance,
                                      int64_t outer, int64_t features,
                                      int64_t inner, double epsilon) {
  if (xlite::cpu::BadShape(outer, features, inner)) {
    return xlite::cpu::kStatusInvalidArgument;
  }
  xlite::cpu::Moments(x, outer, features, inner, mean, variance);
  xlite::cpu::Normalize(x, scale, offset, mean, variance, outer, features,
                        inner, epsilon, out);
  return xlite::cpu::kStatusOk;
}

int32_t xlite_cpu_batch_norm_inference(const double* x, const double* scale,
                                       const double* offset, const double* mean,
                                       const double* variance, double* out,
                                       int64_t outer, int64_t features,
                                       int64_t inner, double epsilon) {
  if (xlite::cpu::BadShape(outer, features, inner)) {
    return xlite::cpu::kStatusInvalidArgument;
  }
  xlite::cpu::Normalize(x, scale, offset, mean, variance, outer, features,
                        inner, epsilon, out);
  return xlite::cpu::kStatusOk;
}

int32_t xlite_cpu_batch_norm_grad(const double* x, const double* scale,
                                  const double* mean, const double* variance,
                                  const double* grad_out, double* grad_x,
                                  double* grad_scale, double* grad_offset,
                                  int64_t outer, int64_t features,
                                  int64_t inner, double epsilon) {
  if (xlite::cpu::BadShape(outer, features, inner)) {
    return xlite::cpu::kStatusInvalidArgument;
  }
  const int64_t per_feature = outer * inner;
  std::vector<double> sum_dy(features, 0.0), sum_dy_xc(features, 0.0);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t c = 0; c < features; ++c) {
      const int64_t base = (o * features + c) * inner;
      for (int64_t j = 0; j < inner; ++j) {
        sum_dy[c] += grad_out[base + j];
        sum_dy_xc[c] += grad_out[base + j] * (x[base + j] - mean[c]);
      }
    }
  }
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t c = 0; c < features; ++c) {
      const int64_t base = (o * features + c) * inner;
      const double inv = 1.0 / std::sqrt(variance[c] + epsilon);
      for (int64_t j = 0; j < inner; ++j) {
        const double xc = x[base + j] - mean[c];
        grad_x[base + j] = scale[c] * inv *
                           (grad_out[base + j] - sum_dy[c] / per_feature -
                            xc * inv * inv * sum_dy_xc[c] / per_feature);
      }
    }
  }
  for (int64_t c = 0; c < features; ++c) {
    const double inv = 1.0 / std::sqrt(variance[c] + epsilon);
    grad_scale[c] = sum_dy_xc[c] * inv;
    grad_offset[c] = sum_dy[c];
  }
  return xlite::cpu::kStatusOk;
}

}  // extern "C"
