// Householder QR (LAPACK geqrf) and the product of its reflectors (orgqr),
// as the "Qr" and "ProductOfElementaryHouseholderReflectors" custom calls
// that XLA's QrExpander lowers. See qr.h for the shapes.

#include "hlo/evaluator/qr.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/ir/primitive_type.h"

namespace xlite::eval {
namespace {

using Complex = std::complex<double>;

absl::Status Invalid(absl::string_view what) {
  return absl::InvalidArgumentError(what);
}

bool IsInexact(PrimitiveType type) {
  return IsFloatingPoint(type) || IsComplex(type);
}

// A batch of m x n matrices, row-major, as complex<double>.
struct Matrices {
  int64_t batches = 0;
  int64_t m = 0;
  int64_t n = 0;
  std::vector<Complex> values;

  Complex& at(int64_t b, int64_t i, int64_t j) {
    return values[(b * m + i) * n + j];
  }
};

Matrices ReadMatrices(const Literal& l) {
  const Shape& s = l.shape();
  Matrices out;
  out.m = s.dimensions(s.rank() - 2);
  out.n = s.dimensions(s.rank() - 1);
  const int64_t size = out.m * out.n;
  out.batches = size == 0 ? 0 : s.ElementCount() / size;
  out.values.resize(s.ElementCount());
  for (int64_t i = 0; i < s.ElementCount(); ++i) {
    out.values[i] = l.GetAsComplex(i);
  }
  return out;
}

void Store(const std::vector<Complex>& values, Literal& out) {
  const bool complex = IsComplex(out.shape().element_type());
  for (int64_t i = 0; i < out.element_count(); ++i) {
    if (complex) {
      out.SetFromComplex(i, values[i]);
    } else {
      out.SetFromDouble(i, values[i].real());
    }
  }
}

// The leading (batch) dimensions of a shape and `minor` after them.
std::vector<int64_t> BatchDimsThen(const Shape& s, int64_t drop,
                                   std::vector<int64_t> minor) {
  std::vector<int64_t> dims(s.dimensions().begin(),
                            s.dimensions().end() - drop);
  dims.insert(dims.end(), minor.begin(), minor.end());
  return dims;
}

bool DimsAre(const Shape& s, const std::vector<int64_t>& dims) {
  return s.IsArray() && std::vector<int64_t>(s.dimensions().begin(),
                                             s.dimensions().end()) == dims;
}

// sqrt(x^2 + y^2 + z^2) without overflow in the squares (XLA's Norm).
double Norm3(double x, double y, double z) {
  const double w = std::max({std::abs(x), std::abs(y), std::abs(z)});
  if (w == 0) return 0;
  return w *
         std::sqrt((x / w) * (x / w) + (y / w) * (y / w) + (z / w) * (z / w));
}

// Column j of matrix b: turns it into beta e_j + the reflector's vector
// below the diagonal (LAPACK's xLARFG), applies H(j)^H to the columns
// right of j, and returns tau.
Complex ReflectColumn(Matrices& a, int64_t b, int64_t j) {
  const Complex alpha = a.at(b, j, j);
  double sigma = 0;
  for (int64_t i = j + 1; i < a.m; ++i) sigma += std::norm(a.at(b, i, j));
  // Nothing to annihilate (and alpha real): H = I.
  if (sigma == 0 && alpha.imag() == 0) return 0;
  const double mu = Norm3(alpha.real(), alpha.imag(), std::sqrt(sigma));
  const double beta = alpha.real() < 0 ? mu : -mu;
  const Complex tau((beta - alpha.real()) / beta, -alpha.imag() / beta);
  const Complex scale = 1.0 / (alpha - beta);
  for (int64_t i = j + 1; i < a.m; ++i) a.at(b, i, j) *= scale;
  // a[j:, c] -= conj(tau) v (v^H a[j:, c]) for the columns c > j, v[j] = 1.
  for (int64_t c = j + 1; c < a.n; ++c) {
    Complex w = a.at(b, j, c);
    for (int64_t i = j + 1; i < a.m; ++i) {
      w += std::conj(a.at(b, i, j)) * a.at(b, i, c);
    }
    w *= std::conj(tau);
    a.at(b, j, c) -= w;
    for (int64_t i = j + 1; i < a.m; ++i) a.at(b, i, c) -= a.at(b, i, j) * w;
  }
  a.at(b, j, j) = beta;
  return tau;
}

absl::StatusOr<Literal> QrCall(const HloInstruction& call,
                               absl::Span<const Literal* const> operands) {
  if (operands.size() != 1) return Invalid("Qr takes one operand");
  return HouseholderQr(*operands[0], call.shape());
}

absl::StatusOr<Literal> HouseholderProductCall(
    const HloInstruction& call, absl::Span<const Literal* const> operands) {
  if (operands.size() != 2) {
    return Invalid("ProductOfElementaryHouseholderReflectors takes (a, taus)");
  }
  return HouseholderProduct(*operands[0], *operands[1], call.shape());
}

}  // namespace

absl::StatusOr<Literal> HouseholderQr(const Literal& a, const Shape& shape) {
  const Shape& s = a.shape();
  if (!s.IsArray() || s.rank() < 2 || !IsInexact(s.element_type())) {
    return Invalid(
        absl::StrCat("Qr needs a floating-point or complex array "
                     "of rank >= 2, got ",
                     s.ToString(false)));
  }
  const int64_t m = s.dimensions(s.rank() - 2), n = s.dimensions(s.rank() - 1);
  const int64_t k = std::min(m, n);
  if (!shape.IsTuple() || shape.tuple_shapes_size() != 2 ||
      !DimsAre(shape.tuple_shapes(0), BatchDimsThen(s, 0, {})) ||
      !DimsAre(shape.tuple_shapes(1), BatchDimsThen(s, 2, {k})) ||
      shape.tuple_shapes(0).element_type() != s.element_type() ||
      shape.tuple_shapes(1).element_type() != s.element_type()) {
    return Invalid(absl::StrCat("Qr of ", s.ToString(false), " returns (",
                                s.ToString(false), ", taus[..., ", k,
                                "]) of its type, not ", shape.ToString(false)));
  }
  Matrices q = ReadMatrices(a);
  std::vector<Complex> taus(q.batches * k, 0.0);
  for (int64_t b = 0; b < q.batches; ++b) {
    for (int64_t j = 0; j < k; ++j) taus[b * k + j] = ReflectColumn(q, b, j);
  }
  Literal factors(shape.tuple_shapes(0));
  Store(q.values, factors);
  Literal tau_literal(shape.tuple_shapes(1));
  Store(taus, tau_literal);
  std::vector<Literal> elements;
  elements.push_back(std::move(factors));
  elements.push_back(std::move(tau_literal));
  return Literal::Tuple(std::move(elements));
}

absl::StatusOr<Literal> HouseholderProduct(const Literal& a,
                                           const Literal& taus,
                                           const Shape& shape) {
  const Shape& s = a.shape();
  const Shape& t = taus.shape();
  if (!s.IsArray() || s.rank() < 2 || !IsInexact(s.element_type()) ||
      !t.IsArray() || t.rank() != s.rank() - 1 ||
      t.element_type() != s.element_type()) {
    return Invalid(absl::StrCat(
        "ProductOfElementaryHouseholderReflectors needs a[..., m, n] and "
        "taus[..., p] of one floating-point or complex type, got ",
        s.ToString(false), " and ", t.ToString(false)));
  }
  const int64_t m = s.dimensions(s.rank() - 2), n = s.dimensions(s.rank() - 1);
  const int64_t p = t.dimensions(t.rank() - 1);
  if (m < n || p > n || !DimsAre(t, BatchDimsThen(s, 2, {p}))) {
    return Invalid(absl::StrCat(
        "ProductOfElementaryHouseholderReflectors needs m >= n, p <= n and "
        "equal batch dimensions, got a ",
        s.ToString(false), " and taus ", t.ToString(false)));
  }
  if (!DimsAre(shape, BatchDimsThen(s, 0, {})) ||
      shape.element_type() != s.element_type()) {
    return Invalid(
        absl::StrCat("ProductOfElementaryHouseholderReflectors returns ",
                     s.ToString(false), ", not ", shape.ToString(false)));
  }
  Matrices v = ReadMatrices(a);
  Matrices q{v.batches, m, n, std::vector<Complex>(v.values.size(), 0.0)};
  for (int64_t b = 0; b < q.batches; ++b) {
    for (int64_t i = 0; i < n; ++i) q.at(b, i, i) = 1;
    // Q = H(0) (H(1) (... (H(p-1) I))): apply the last reflector first.
    for (int64_t j = p - 1; j >= 0; --j) {
      const Complex tau = taus.GetAsComplex(b * p + j);
      for (int64_t c = 0; c < n; ++c) {
        Complex w = q.at(b, j, c);
        for (int64_t i = j + 1; i < m; ++i) {
          w += std::conj(v.at(b, i, j)) * q.at(b, i, c);
        }
        w *= tau;
        q.at(b, j, c) -= w;
        for (int64_t i = j + 1; i < m; ++i) q.at(b, i, c) -= v.at(b, i, j) * w;
      }
    }
  }
  Literal out(shape);
  Store(q.values, out);
  return out;
}

void RegisterQrCustomCalls(CustomCallRegistry& registry) {
  registry.Register("Qr", QrCall);
  registry.Register("ProductOfElementaryHouseholderReflectors",
                    HouseholderProductCall);
}

}  // namespace xlite::eval
