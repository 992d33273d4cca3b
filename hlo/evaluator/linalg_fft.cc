// cholesky, triangular-solve, fft (Eigen's FFT) and the batch-norm ops.
// Arithmetic is in double (complex<double>) and rounded to the type once.

#include <cmath>
#include <complex>
#include <unsupported/Eigen/FFT>

#include "hlo/evaluator/element_types.h"
#include "hlo/evaluator/internal.h"

namespace xlite::eval {
namespace {

using Complex = std::complex<double>;

// A literal's elements as complex<double> (real types: imaginary 0).
std::vector<Complex> ToComplex(const Literal& l) {
  std::vector<Complex> out(l.element_count());
  for (int64_t i = 0; i < l.element_count(); ++i) out[i] = l.GetAsComplex(i);
  return out;
}

void FromComplex(const std::vector<Complex>& v, Literal& out) {
  const bool complex = IsComplex(out.shape().element_type());
  for (int64_t i = 0; i < out.element_count(); ++i) {
    if (complex) {
      out.SetFromComplex(i, v[i]);
    } else {
      out.SetFromDouble(i, v[i].real());
    }
  }
}

}  // namespace

Literal Cholesky(const Literal& operand, bool lower, const Shape& shape,
                 std::vector<int64_t>* info) {
  const Shape& s = operand.shape();
  const int64_t n = s.dimensions(s.rank() - 1);
  const int64_t batches = n == 0 ? 0 : s.ElementCount() / (n * n);
  if (info != nullptr) info->assign(batches, 0);
  std::vector<Complex> a = ToComplex(operand);
  std::vector<Complex> l(a.size(), 0.0);
  for (int64_t b = 0; b < batches; ++b) {
    Complex* m = a.data() + b * n * n;
    Complex* r = l.data() + b * n * n;
    // Entry (i, j) of the triangle read: lower reads (i, j), upper (j, i)
    // conjugated.
    auto at = [&](int64_t i, int64_t j) {
      return lower ? m[i * n + j] : std::conj(m[j * n + i]);
    };
    std::vector<Complex> L(n * n, 0.0);
    for (int64_t j = 0; j < n; ++j) {
      Complex d = at(j, j);
      for (int64_t k = 0; k < j; ++k)
        d -= L[j * n + k] * std::conj(L[j * n + k]);
      if (info != nullptr && (*info)[b] == 0 && !(d.real() > 0)) {
        (*info)[b] = j + 1;  // LAPACK: the leading minor j+1 is not PD
      }
      const double diag = std::sqrt(d.real());
      L[j * n + j] = diag;
      for (int64_t i = j + 1; i < n; ++i) {
        Complex v = at(i, j);
        for (int64_t k = 0; k < j; ++k)
          v -= L[i * n + k] * std::conj(L[j * n + k]);
        L[i * n + j] = v / diag;
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        r[i * n + j] = lower ? L[i * n + j] : std::conj(L[j * n + i]);
      }
    }
  }
  Literal out(shape);
  FromComplex(l, out);
  return out;
}

Literal TriangularSolve(const Literal& a_in, const Literal& b_in, bool left,
                        bool lower, bool unit_diagonal,
                        TriangularSolveTranspose t, const Shape& shape) {
  struct {
    bool lower, unit_diagonal;
  } attrs{lower, unit_diagonal};
  const Shape& as = a_in.shape();
  const Shape& bs = b_in.shape();
  const int64_t m = as.dimensions(as.rank() - 1);
  const int64_t rows = bs.dimensions(bs.rank() - 2);
  const int64_t cols = bs.dimensions(bs.rank() - 1);
  const int64_t batches = m == 0 ? 0 : as.ElementCount() / (m * m);
  std::vector<Complex> a = ToComplex(a_in);
  std::vector<Complex> x = ToComplex(b_in);
  for (int64_t b = 0; b < batches; ++b) {
    const Complex* A = a.data() + b * m * m;
    Complex* X = x.data() + b * rows * cols;
    // op(A)[i][j], reading only the given triangle.
    auto op = [&](int64_t i, int64_t j) -> Complex {
      int64_t r = i, c = j;
      if (t != TriangularSolveTranspose::kNoTranspose) std::swap(r, c);
      if (r == c && attrs.unit_diagonal) return 1.0;
      if (attrs.lower ? c > r : c < r) return 0.0;
      const Complex v = A[r * m + c];
      return t == TriangularSolveTranspose::kAdjoint ? std::conj(v) : v;
    };
    // op(A) is lower triangular iff (lower xor transposed).
    const bool op_lower =
        attrs.lower == (t == TriangularSolveTranspose::kNoTranspose);
    if (left) {
      // op(A) X = B, column by column.
      for (int64_t c = 0; c < cols; ++c) {
        for (int64_t step = 0; step < m; ++step) {
          const int64_t i = op_lower ? step : m - 1 - step;
          Complex v = X[i * cols + c];
          for (int64_t k = 0; k < m; ++k) {
            if (k == i || (op_lower ? k > i : k < i)) continue;
            v -= op(i, k) * X[k * cols + c];
          }
          X[i * cols + c] = v / op(i, i);
        }
      }
    } else {
      // X op(A) = B, row by row: x_j depends on the x_k that op(A)'s
      // column j mixes in.
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t step = 0; step < m; ++step) {
          const int64_t j = op_lower ? m - 1 - step : step;
          Complex v = X[r * cols + j];
          for (int64_t k = 0; k < m; ++k) {
            if (k == j || (op_lower ? k < j : k > j)) continue;
            v -= X[r * cols + k] * op(k, j);
          }
          X[r * cols + j] = v / op(j, j);
        }
      }
    }
  }
  Literal out(shape);
  FromComplex(x, out);
  return out;
}

namespace {

absl::StatusOr<Literal> EvalFft(const HloInstruction& hlo,
                                const Literal& operand) {
  const FftType type = hlo.attrs().fft_type;
  const std::vector<int64_t>& lengths = hlo.attrs().fft_length;
  const Shape& out_shape = hlo.shape();
  const int64_t rank = out_shape.rank();
  const int64_t fft_rank = lengths.size();
  if (fft_rank < 1 || fft_rank > 3 || fft_rank > rank) {
    return InstructionError(hlo, "fft_length must name 1 to 3 dimensions");
  }
  // Work on complex<double> data of the logical (full-length) shape.
  std::vector<int64_t> dims(out_shape.dimensions().begin(),
                            out_shape.dimensions().end());
  for (int64_t i = 0; i < fft_rank; ++i) dims[rank - fft_rank + i] = lengths[i];
  int64_t total = 1;
  for (int64_t d : dims) total *= d;
  std::vector<Complex> data(total, 0.0);
  const std::vector<int64_t> strides = Strides(dims);
  const Shape& in_shape = operand.shape();
  const std::vector<int64_t> in_strides = Strides(in_shape.dimensions());
  // Load: IRFFT input holds only the first n/2+1 of the last dimension;
  // the rest follows from Hermitian symmetry.
  ForEachIndex(dims, [&](absl::Span<const int64_t> idx) {
    int64_t out_at = 0, in_at = 0;
    bool mirrored = false;
    for (int64_t d = 0; d < rank; ++d) out_at += idx[d] * strides[d];
    if (type == FftType::kIrfft) {
      const int64_t last = rank - 1;
      const int64_t half = in_shape.dimensions(last);
      if (idx[last] >= half) {
        mirrored = true;
        // X[k] = conj(X[-k]) over all transformed dimensions.
        for (int64_t d = 0; d < rank; ++d) {
          int64_t v = idx[d];
          if (d >= rank - fft_rank) v = (dims[d] - v) % dims[d];
          in_at += v * in_strides[d];
        }
      }
    }
    if (!mirrored) {
      for (int64_t d = 0; d < rank; ++d) {
        if (idx[d] >= in_shape.dimensions(d)) return;
        in_at += idx[d] * in_strides[d];
      }
    }
    const Complex v = operand.GetAsComplex(in_at);
    data[out_at] = mirrored ? std::conj(v) : v;
  });
  const bool inverse = type == FftType::kIfft || type == FftType::kIrfft;
  Eigen::FFT<double> fft;
  for (int64_t axis = rank - fft_rank; axis < rank; ++axis) {
    const int64_t n = dims[axis];
    if (n <= 1) continue;  // the identity (and Eigen's kissfft mishandles it)
    const int64_t stride = strides[axis];
    std::vector<int64_t> outer = dims;
    outer[axis] = 1;
    std::vector<Complex> line(n), result(n);
    ForEachIndex(outer, [&](absl::Span<const int64_t> idx) {
      int64_t base = 0;
      for (int64_t d = 0; d < rank; ++d) base += idx[d] * strides[d];
      for (int64_t i = 0; i < n; ++i) line[i] = data[base + i * stride];
      if (inverse) {
        fft.inv(result, line);  // scales by 1/n
      } else {
        fft.fwd(result, line);
      }
      for (int64_t i = 0; i < n; ++i) data[base + i * stride] = result[i];
    });
  }
  Literal out(out_shape);
  const std::vector<int64_t> out_strides = Strides(out_shape.dimensions());
  const bool complex_out = IsComplex(out_shape.element_type());
  int64_t linear = 0;
  ForEachIndex(out_shape.dimensions(), [&](absl::Span<const int64_t> idx) {
    int64_t at = 0;
    for (int64_t d = 0; d < rank; ++d) at += idx[d] * strides[d];
    if (complex_out) {
      out.SetFromComplex(linear, data[at]);
    } else {
      out.SetFromDouble(linear, data[at].real());
    }
    ++linear;
  });
  return out;
}

absl::StatusOr<Literal> EvalBatchNorm(const HloInstruction& hlo,
                                      Operands operands) {
  const HloAttributes& attrs = hlo.attrs();
  const Literal& x = *operands[0];
  const Shape& s = x.shape();
  const int64_t f = attrs.feature_index;
  const int64_t features = s.dimensions(f);
  const int64_t n = s.ElementCount();
  const int64_t per_feature = features == 0 ? 0 : n / features;
  const double epsilon = attrs.epsilon;
  const std::vector<int64_t> strides = Strides(s.dimensions());
  auto feature_of = [&](int64_t i) {
    return (i / strides[f]) % s.dimensions(f);
  };
  std::vector<double> mean(features, 0.0), var(features, 0.0);
  auto compute_stats = [&] {
    for (int64_t i = 0; i < n; ++i) mean[feature_of(i)] += x.GetAsDouble(i);
    for (double& m : mean) m /= per_feature;
    for (int64_t i = 0; i < n; ++i) {
      const double d = x.GetAsDouble(i) - mean[feature_of(i)];
      var[feature_of(i)] += d * d;
    }
    for (double& v : var) v /= per_feature;
  };
  const Shape& out_shape =
      hlo.shape().IsTuple() ? hlo.shape().tuple_shapes(0) : hlo.shape();
  Literal out(out_shape);
  switch (hlo.opcode()) {
    case HloOpcode::kBatchNormTraining: {
      compute_stats();
      const Literal& scale = *operands[1];
      const Literal& offset = *operands[2];
      for (int64_t i = 0; i < n; ++i) {
        const int64_t c = feature_of(i);
        out.SetFromDouble(i, (x.GetAsDouble(i) - mean[c]) /
                                     std::sqrt(var[c] + epsilon) *
                                     scale.GetAsDouble(c) +
                                 offset.GetAsDouble(c));
      }
      Literal m(hlo.shape().tuple_shapes(1)), v(hlo.shape().tuple_shapes(2));
      for (int64_t c = 0; c < features; ++c) {
        m.SetFromDouble(c, mean[c]);
        v.SetFromDouble(c, var[c]);
      }
      std::vector<Literal> elements;
      elements.push_back(std::move(out));
      elements.push_back(std::move(m));
      elements.push_back(std::move(v));
      return Literal::Tuple(std::move(elements));
    }
    case HloOpcode::kBatchNormInference: {
      const Literal& scale = *operands[1];
      const Literal& offset = *operands[2];
      const Literal& m = *operands[3];
      const Literal& v = *operands[4];
      for (int64_t i = 0; i < n; ++i) {
        const int64_t c = feature_of(i);
        out.SetFromDouble(i, (x.GetAsDouble(i) - m.GetAsDouble(c)) /
                                     std::sqrt(v.GetAsDouble(c) + epsilon) *
                                     scale.GetAsDouble(c) +
                                 offset.GetAsDouble(c));
      }
      return out;
    }
    default: {  // grad: (operand, scale, mean, variance, grad_output)
      const Literal& scale = *operands[1];
      const Literal& m = *operands[2];
      const Literal& v = *operands[3];
      const Literal& dy = *operands[4];
      std::vector<double> sum_dy(features, 0.0), sum_dy_xc(features, 0.0);
      for (int64_t i = 0; i < n; ++i) {
        const int64_t c = feature_of(i);
        sum_dy[c] += dy.GetAsDouble(i);
        sum_dy_xc[c] +=
            dy.GetAsDouble(i) * (x.GetAsDouble(i) - m.GetAsDouble(c));
      }
      Literal grad_scale(hlo.shape().tuple_shapes(1));
      Literal grad_offset(hlo.shape().tuple_shapes(2));
      for (int64_t i = 0; i < n; ++i) {
        const int64_t c = feature_of(i);
        const double inv = 1.0 / std::sqrt(v.GetAsDouble(c) + epsilon);
        const double xc = x.GetAsDouble(i) - m.GetAsDouble(c);
        out.SetFromDouble(i, scale.GetAsDouble(c) * inv *
                                 (dy.GetAsDouble(i) - sum_dy[c] / per_feature -
                                  xc * inv * inv * sum_dy_xc[c] / per_feature));
      }
      for (int64_t c = 0; c < features; ++c) {
        const double inv = 1.0 / std::sqrt(v.GetAsDouble(c) + epsilon);
        grad_scale.SetFromDouble(c, sum_dy_xc[c] * inv);
        grad_offset.SetFromDouble(c, sum_dy[c]);
      }
      std::vector<Literal> elements;
      elements.push_back(std::move(out));
      elements.push_back(std::move(grad_scale));
      elements.push_back(std::move(grad_offset));
      return Literal::Tuple(std::move(elements));
    }
  }
}

}  // namespace

absl::StatusOr<Literal> EvalLinearAlgebra(const HloInstruction& hlo,
                                          Operands operands) {
  const HloAttributes& a = hlo.attrs();
  switch (hlo.opcode()) {
    case HloOpcode::kCholesky:
      return Cholesky(*operands[0], a.lower, hlo.shape(), nullptr);
    case HloOpcode::kTriangularSolve:
      return TriangularSolve(*operands[0], *operands[1], a.left_side, a.lower,
                             a.unit_diagonal, a.transpose_a, hlo.shape());
    case HloOpcode::kFft:
      return EvalFft(hlo, *operands[0]);
    case HloOpcode::kBatchNormTraining:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormGrad:
      return EvalBatchNorm(hlo, operands);
    default:
      return NotImplemented(hlo);
  }
}

}  // namespace xlite::eval
