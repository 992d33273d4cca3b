// syevd/heevd and gesdd as the LAPACK FFI custom calls (see eigh_svd.h),
// over the shared Jacobi kernels of hlo/ir/jacobi_linalg.h.

#include "hlo/evaluator/eigh_svd.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/ir/jacobi_linalg.h"
#include "hlo/ir/primitive_type.h"

namespace xlite::eval {
namespace {

using jacobi::Complex;

// Matrix `index` of the rows x cols matrices of `l` (logical row-major),
// column-major.
std::vector<Complex> ReadMatrix(const Literal& l, int64_t index, int64_t rows,
                                int64_t cols) {
  std::vector<Complex> out(rows * cols);
  const int64_t base = index * rows * cols;
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      out[i + j * rows] = l.GetAsComplex(base + i * cols + j);
    }
  }
  return out;
}

// Writes the column-major rows x cols `m` as matrix `index` of `l`.
void WriteMatrix(const std::vector<Complex>& m, int64_t index, int64_t rows,
                 int64_t cols, Literal& l) {
  const bool complex = IsComplex(l.shape().element_type());
  const int64_t base = index * rows * cols;
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      const Complex v = m[i + j * rows];
      if (complex) {
        l.SetFromComplex(base + i * cols + j, v);
      } else {
        l.SetFromDouble(base + i * cols + j, v.real());
      }
    }
  }
}

std::vector<int64_t> Dims(const Shape& s) {
  return std::vector<int64_t>(s.dimensions().begin(), s.dimensions().end());
}

// The leading (batch) dimensions of `s` (dropping `drop`), then `minor`.
std::vector<int64_t> BatchThen(const Shape& s, int64_t drop,
                               std::vector<int64_t> minor) {
  std::vector<int64_t> dims(s.dimensions().begin(),
                            s.dimensions().end() - drop);
  dims.insert(dims.end(), minor.begin(), minor.end());
  return dims;
}

// Checks leaf i of `shape` is an array of `type` with dimensions `dims`.
bool LeafIs(const Shape& shape, int i, PrimitiveType type,
            const std::vector<int64_t>& dims) {
  const Shape& leaf = shape.tuple_shapes(i);
  return leaf.IsArray() && leaf.element_type() == type && Dims(leaf) == dims;
}

absl::Status CheckOperand(const Shape& s, absl::string_view what) {
  const PrimitiveType t = s.element_type();
  if (!s.IsArray() || s.rank() < 2 ||
      (t != PrimitiveType::kF32 && t != PrimitiveType::kF64 &&
       t != PrimitiveType::kC64 && t != PrimitiveType::kC128)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " needs f32, f64, c64 or c128 matrices, got ",
                     s.ToString(false)));
  }
  return absl::OkStatus();
}

PrimitiveType RealType(PrimitiveType t) {
  return IsComplex(t) ? ComplexComponentType(t) : t;
}

}  // namespace

absl::StatusOr<Literal> HermitianEigenCall(const Literal& a, bool lower,
                                           const Shape& shape) {
  const Shape& s = a.shape();
  if (absl::Status st = CheckOperand(s, "syevd/heevd"); !st.ok()) return st;
  const int64_t n = s.dimensions(s.rank() - 1);
  if (s.dimensions(s.rank() - 2) != n || !shape.IsTuple() ||
      shape.tuple_shapes_size() != 3 ||
      !LeafIs(shape, 0, s.element_type(), Dims(s)) ||
      !LeafIs(shape, 1, RealType(s.element_type()), BatchThen(s, 1, {})) ||
      !LeafIs(shape, 2, PrimitiveType::kS32, BatchThen(s, 2, {}))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "syevd/heevd of ", s.ToString(false),
        " (square matrices) returns (vectors, eigenvalues[..., n], "
        "s32 info[...]), not ",
        shape.ToString(false)));
  }
  Literal vectors(shape.tuple_shapes(0));
  Literal values(shape.tuple_shapes(1));
  Literal info(shape.tuple_shapes(2));
  const int64_t batch = n == 0 ? 0 : s.ElementCount() / (n * n);
  std::vector<double> w;
  std::vector<Complex> v;
  for (int64_t b = 0; b < batch; ++b) {
    jacobi::HermitianEigen(ReadMatrix(a, b, n, n), n, lower, w, v);
    WriteMatrix(v, b, n, n, vectors);
    for (int64_t j = 0; j < n; ++j) values.SetFromDouble(b * n + j, w[j]);
    info.SetFromInt64(b, 0);
  }
  std::vector<Literal> elements;
  elements.push_back(std::move(vectors));
  elements.push_back(std::move(values));
  elements.push_back(std::move(info));
  return Literal::Tuple(std::move(elements));
}

absl::StatusOr<Literal> SvdCall(const Literal& a, int64_t mode,
                                const Shape& shape) {
  const Shape& s = a.shape();
  if (absl::Status st = CheckOperand(s, "gesdd"); !st.ok()) return st;
  const int64_t m = s.dimensions(s.rank() - 2), n = s.dimensions(s.rank() - 1);
  const int64_t k = std::min(m, n);
  // 'N' comes with either shape of u and vt (jax's full_matrices).
  bool full = mode != 'S';
  if (mode == 'N' && shape.IsTuple() && shape.tuple_shapes_size() == 5 &&
      shape.tuple_shapes(2).IsArray() && shape.tuple_shapes(3).IsArray() &&
      shape.tuple_shapes(2).rank() == s.rank() &&
      shape.tuple_shapes(3).rank() == s.rank()) {
    full = shape.tuple_shapes(2).dimensions(s.rank() - 1) == m &&
           shape.tuple_shapes(3).dimensions(s.rank() - 2) == n;
  }
  const int64_t ucols = full ? m : k, vhrows = full ? n : k;
  const PrimitiveType t = s.element_type();
  if (!shape.IsTuple() || shape.tuple_shapes_size() != 5 ||
      !LeafIs(shape, 0, t, Dims(s)) ||
      !LeafIs(shape, 1, RealType(t), BatchThen(s, 2, {k})) ||
      !LeafIs(shape, 2, t, BatchThen(s, 2, {m, ucols})) ||
      !LeafIs(shape, 3, t, BatchThen(s, 2, {vhrows, n})) ||
      !LeafIs(shape, 4, PrimitiveType::kS32, BatchThen(s, 2, {}))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "gesdd of ", s.ToString(false), " with ", full ? "full" : "reduced",
        " vectors returns (a, s[..., ", k, "], u[..., ", m, ", ", ucols,
        "], vt[..., ", vhrows, ", ", n, "], s32 info[...]), not ",
        shape.ToString(false)));
  }
  Literal copy(shape.tuple_shapes(0));
  for (int64_t i = 0; i < a.element_count(); ++i) {
    copy.SetFromComplex(i, a.GetAsComplex(i));
  }
  Literal values(shape.tuple_shapes(1));
  Literal u(shape.tuple_shapes(2));
  Literal vt(shape.tuple_shapes(3));
  Literal info(shape.tuple_shapes(4));
  const int64_t batch = m * n == 0 ? 0 : s.ElementCount() / (m * n);
  std::vector<double> sv;
  std::vector<Complex> left, right;
  for (int64_t b = 0; b < batch; ++b) {
    const std::vector<Complex> matrix = ReadMatrix(a, b, m, n);
    const bool has_nan =
        std::any_of(matrix.begin(), matrix.end(), [](const Complex& c) {
          return std::isnan(c.real()) || std::isnan(c.imag());
        });
    jacobi::Svd(matrix, m, n, full, sv, left, right);
    for (int64_t j = 0; j < k; ++j) values.SetFromDouble(b * k + j, sv[j]);
    WriteMatrix(left, b, m, ucols, u);
    WriteMatrix(right, b, vhrows, n, vt);
    info.SetFromInt64(b, has_nan ? -4 : 0);
  }
  std::vector<Literal> elements;
  elements.push_back(std::move(copy));
  elements.push_back(std::move(values));
  elements.push_back(std::move(u));
  elements.push_back(std::move(vt));
  elements.push_back(std::move(info));
  return Literal::Tuple(std::move(elements));
}

}  // namespace xlite::eval
