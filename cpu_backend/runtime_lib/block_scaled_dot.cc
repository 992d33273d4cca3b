// The contraction of the block-scaled dot custom calls: operands already
// dequantized to double by the generated code, the sum over K in order, in
// double or with every product rounded to f32 and summed in f32, as the
// evaluator's block_scaled.cc (which this file never calls) does.

#include "cpu_backend/runtime_lib/runtime_lib.h"

extern "C" {

int32_t xlite_cpu_block_scaled_dot(const double* lhs, const double* rhs,
                                   double* out, int64_t batch, int64_t m,
                                   int64_t n, int64_t k,
                                   int32_t f32_accumulation) {
  if (batch < 0 || m < 0 || n < 0 || k < 0 ||
      (batch * m * n > 0 && out == nullptr)) {
    return xlite::cpu::kStatusInvalidArgument;
  }
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < m; ++i) {
      const double* x = lhs + (b * m + i) * k;
      for (int64_t j = 0; j < n; ++j) {
        const double* y = rhs + (b * n + j) * k;
        double acc = 0;
        float acc32 = 0;
        if (f32_accumulation) {
          for (int64_t c = 0; c < k; ++c) {
            acc32 += static_cast<float>(x[c] * y[c]);
          }
          acc = acc32;
        } else {
          for (int64_t c = 0; c < k; ++c) acc += x[c] * y[c];
        }
        out[(b * m + i) * n + j] = acc;
      }
    }
  }
  return xlite::cpu::kStatusOk;
}

}  // extern "C"
