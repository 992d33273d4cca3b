// xlite_cpu_fft (see runtime_lib.h): separable multi-dimensional DFTs with
// Eigen's FFT (kissfft) in complex<double>, as the evaluator's fft in
// hlo/evaluator/linalg_fft.cc computes them.

#include <complex>
#include <unsupported/Eigen/FFT>
#include <vector>

#include "cpu_backend/runtime_lib/runtime_lib.h"

namespace xlite::cpu {
namespace {

using Complex = std::complex<double>;

// Transforms every line of `data` ([batch, lengths...], row-major) along
// each of the dimensions of `lengths`, forward or inverse (scaled by 1/n).
void TransformAllAxes(std::vector<Complex>& data, int64_t batch,
                      const std::vector<int64_t>& lengths, bool inverse) {
  int64_t total = 1;
  for (int64_t l : lengths) total *= l;
  Eigen::FFT<double> fft;
  std::vector<Complex> line, result;
  for (size_t axis = 0; axis < lengths.size(); ++axis) {
    const int64_t n = lengths[axis];
    if (n <= 1) continue;  // the identity (and kissfft mishandles it)
    int64_t post = 1;
    for (size_t d = axis + 1; d < lengths.size(); ++d) post *= lengths[d];
    const int64_t pre = batch * (total / (n * post));
    line.resize(n);
    result.resize(n);
    for (int64_t p = 0; p < pre; ++p) {
      for (int64_t q = 0; q < post; ++q) {
        Complex* base = data.data() + p * n * post + q;
        for (int64_t i = 0; i < n; ++i) line[i] = base[i * post];
        if (inverse) {
          fft.inv(result.data(), line.data(), n);
        } else {
          fft.fwd(result.data(), line.data(), n);
        }
        for (int64_t i = 0; i < n; ++i) base[i * post] = result[i];
      }
    }
  }
}

template <typename R>
void Fft(int32_t fft_type, const void* in_ptr, void* out_ptr, int64_t batch,
         const std::vector<int64_t>& lengths) {
  using C = std::complex<R>;
  const int64_t rank = lengths.size();
  int64_t total = 1;
  for (int64_t l : lengths) total *= l;
  const int64_t last = lengths[rank - 1];
  const int64_t half = last / 2 + 1;
  const int64_t outer = total / last;  // per batch element
  std::vector<Complex> data(batch * total);
  switch (fft_type) {
    case kFftForward:
    case kFftInverse: {
      const C* in = static_cast<const C*>(in_ptr);
      for (int64_t i = 0; i < batch * total; ++i) data[i] = Complex(in[i]);
      break;
    }
    case kFftRealForward: {
      const R* in = static_cast<const R*>(in_ptr);
      for (int64_t i = 0; i < batch * total; ++i) data[i] = in[i];
      break;
    }
    default: {  // IRFFT: the stored half, the rest by Hermitian symmetry
      const C* in = static_cast<const C*>(in_ptr);
      std::vector<int64_t> idx(rank);
      for (int64_t b = 0; b < batch; ++b) {
        const C* src = in + b * outer * half;
        Complex* dst = data.data() + b * total;
        for (int64_t o = 0; o < outer; ++o) {
          // idx = the transformed dimensions' index of row o.
          int64_t rest = o;
          for (int64_t d = rank - 2; d >= 0; --d) {
            idx[d] = rest % lengths[d];
            rest /= lengths[d];
          }
          // X[-k] over all transformed dimensions: the mirrored row.
          int64_t mirrored_row = 0;
          for (int64_t d = 0; d < rank - 1; ++d) {
            mirrored_row =
                mirrored_row * lengths[d] + (lengths[d] - idx[d]) % lengths[d];
          }
          for (int64_t j = 0; j < last; ++j) {
            if (j < half) {
              dst[o * last + j] = Complex(src[o * half + j]);
            } else {
              dst[o * last + j] =
                  std::conj(Complex(src[mirrored_row * half + (last - j)]));
            }
          }
        }
      }
      break;
    }
  }
  const bool inverse = fft_type == kFftInverse || fft_type == kFftRealInverse;
  TransformAllAxes(data, batch, lengths, inverse);
  switch (fft_type) {
    case kFftForward:
    case kFftInverse: {
      C* out = static_cast<C*>(out_ptr);
      for (int64_t i = 0; i < batch * total; ++i) out[i] = C(data[i]);
      break;
    }
    case kFftRealForward: {
      C* out = static_cast<C*>(out_ptr);
      for (int64_t r = 0; r < batch * outer; ++r) {
        for (int64_t j = 0; j < half; ++j) {
          out[r * half + j] = C(data[r * last + j]);
        }
      }
      break;
    }
    default: {
      R* out = static_cast<R*>(out_ptr);
      for (int64_t i = 0; i < batch * total; ++i) {
        out[i] = static_cast<R>(data[i].real());
      }
      break;
    }
  }
}

}  // namespace

// C linkage: the global function runtime_lib.h declares.
extern "C" int32_t xlite_cpu_fft(int32_t complex_type, int32_t fft_type,
                                 const void* in, void* out, int64_t batch,
                                 int64_t fft_rank, const int64_t* fft_length) {
  if (complex_type != kTypeC64 && complex_type != kTypeC128) {
    return kStatusUnsupportedType;
  }
  if (fft_type < kFftForward || fft_type > kFftRealInverse || batch < 0 ||
      fft_rank < 1 || fft_rank > 3 || fft_length == nullptr) {
    return kStatusInvalidArgument;
  }
  std::vector<int64_t> lengths(fft_length, fft_length + fft_rank);
  int64_t total = batch;
  for (int64_t l : lengths) {
    if (l < 0) return kStatusInvalidArgument;
    total *= l;
  }
  if (total == 0) return kStatusOk;
  if (in == nullptr || out == nullptr) return kStatusInvalidArgument;
  if (complex_type == kTypeC64) {
    Fft<float>(fft_type, in, out, batch, lengths);
  } else {
    Fft<double>(fft_type, in, out, batch, lengths);
  }
  return kStatusOk;
}

}  // namespace xlite::cpu
