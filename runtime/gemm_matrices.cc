#include "runtime/gemm_matrices.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"

namespace xlite::runtime {
namespace {

using Dims = std::vector<int64_t>;
using PT = PrimitiveType;

absl::Status Unsupported(absl::string_view why) {
  return absl::UnimplementedError(why);
}

Dims Concat(const Dims& x, const Dims& y) {
  Dims out = x;
  out.insert(out.end(), y.begin(), y.end());
  return out;
}

Dims Range(int64_t from, int64_t to) {
  Dims out;
  for (int64_t i = from; i < to; ++i) out.push_back(i);
  return out;
}

int64_t Product(const Shape& s, const Dims& dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= s.dimensions(d);
  return p;
}

// `s` as batch x rows x cols: its batch dimensions most major, then the
// row and column groups in either order, each in the order given.
absl::StatusOr<GemmMatrix> MatrixOf(const Shape& s, const Dims& batch,
                                    const Dims& rows, const Dims& cols,
                                    absl::string_view what) {
  const auto& minor_to_major = s.layout().minor_to_major();
  const Dims physical(minor_to_major.rbegin(), minor_to_major.rend());
  const Dims major(physical.begin(), physical.begin() + batch.size());
  const Dims rest(physical.begin() + batch.size(), physical.end());
  GemmMatrix m;
  m.type = s.element_type();
  m.batch = Product(s, batch);
  m.rows = Product(s, rows);
  m.cols = Product(s, cols);
  if (major != batch) {
    return Unsupported(absl::StrCat(what, " ", s.ToString(),
                                    ": batch dimensions are not its most "
                                    "major ones"));
  }
  if (rest == Concat(rows, cols)) {
    m.row_major = true;
  } else if (rest == Concat(cols, rows)) {
    m.row_major = false;
  } else {
    return Unsupported(absl::StrCat(what, " ", s.ToString(),
                                    ": rows and columns are not two "
                                    "contiguous groups in memory"));
  }
  m.leading_dim = m.row_major ? m.cols : m.rows;
  m.batch_stride = m.rows * m.cols;
  return m;
}

bool IsF8(PT t) { return t == PT::kF8E4M3FN || t == PT::kF8E5M2; }

absl::Status CheckTypes(const GemmDescription& gemm, const GemmMatrices& mm) {
  const PT a = mm.a.type, b = mm.b.type, d = mm.d.type;
  if (gemm.target == GemmTarget::kCublasLtMatmulF8) {
    if (!IsF8(a) || !IsF8(b) || (a == PT::kF8E5M2 && b == PT::kF8E5M2)) {
      return Unsupported(
          "cuBLASLt's f8 matmul takes e4m3fn x e4m3fn or a "
          "mix with e5m2");
    }
    if (!IsF8(d) && d != PT::kBF16 && d != PT::kF16 && d != PT::kF32) {
      return Unsupported("f8 matmul result type");
    }
    return absl::OkStatus();
  }
  if (a != b) return Unsupported("a and b differ in type");
  const bool narrow = a == PT::kF16 || a == PT::kBF16;
  const bool wide =
      a == PT::kF32 || a == PT::kF64 || a == PT::kC64 || a == PT::kC128;
  if (!(narrow || wide)) {
    return Unsupported(
        absl::StrCat("no cuBLASLt GEMM on ", PrimitiveTypeName(a)));
  }
  if (d != a && !(narrow && d == PT::kF32)) {
    return Unsupported("result type is neither the operands' nor f32");
  }
  if (gemm.config.damax_output) return Unsupported("amax without f8");
  return absl::OkStatus();
}

absl::Status CheckEpilogue(const GemmDescription& gemm,
                           const GemmMatrices& mm) {
  const GemmEpilogue e = gemm.config.epilogue;
  if (EpilogueActivation(e) == GemmActivation::kSilu) {
    return Unsupported("no SiLU epilogue in the cuBLASLt we target");
  }
  if (IsComplex(mm.d.type) && e != GemmEpilogue::kDefault) {
    return Unsupported("complex GEMMs take no epilogue");
  }
  if (gemm.layout.bias >= 0) {
    const Shape& bias = gemm.operands[gemm.layout.bias];
    if (bias.rank() != 1 || bias.dimensions(0) != mm.n || !mm.d.row_major) {
      return Unsupported(
          "the bias is not one value per column of a "
          "row-major result");
    }
  }
  if (mm.aux &&
      (mm.aux->row_major != mm.d.row_major || mm.aux->type != mm.d.type)) {
    return Unsupported("the aux output is not laid out as the result");
  }
  if (mm.c && mm.c->row_major != mm.d.row_major) {
    return Unsupported("c is not laid out as the result");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<GemmMatrices> GemmMatricesFor(const GemmDescription& gemm) {
  const DotDimensionNumbers& dn = gemm.config.dnums;
  const Shape& a = gemm.operands[0];
  const Shape& b = gemm.operands[1];
  const Dims a_free = DotFreeDimensions(a.rank(), dn.lhs_batch_dimensions,
                                        dn.lhs_contracting_dimensions);
  const Dims b_free = DotFreeDimensions(b.rank(), dn.rhs_batch_dimensions,
                                        dn.rhs_contracting_dimensions);
  GemmMatrices mm;
  absl::StatusOr<GemmMatrix> ma = MatrixOf(a, dn.lhs_batch_dimensions, a_free,
                                           dn.lhs_contracting_dimensions, "a");
  if (!ma.ok()) return ma.status();
  absl::StatusOr<GemmMatrix> mb = MatrixOf(
      b, dn.rhs_batch_dimensions, dn.rhs_contracting_dimensions, b_free, "b");
  if (!mb.ok()) return mb.status();
  mm.a = *ma;
  mm.b = *mb;
  mm.batch = ma->batch;
  mm.m = ma->rows;
  mm.k = ma->cols;
  mm.n = mb->cols;
  // d's dimensions: batch, a's free, b's free.
  const Shape& d = GemmOutputShape(gemm.result);
  Dims expected;
  for (int64_t i : dn.lhs_batch_dimensions) expected.push_back(a.dimensions(i));
  for (int64_t i : a_free) expected.push_back(a.dimensions(i));
  for (int64_t i : b_free) expected.push_back(b.dimensions(i));
  if (Dims(d.dimensions().begin(), d.dimensions().end()) != expected) {
    return Unsupported("the result's dimensions are not the dot's");
  }
  const int64_t nb = dn.lhs_batch_dimensions.size();
  const Dims batch = Range(0, nb);
  const Dims rows = Range(nb, nb + a_free.size());
  const Dims cols = Range(nb + a_free.size(), d.rank());
  auto like_d = [&](const Shape& s,
                    absl::string_view what) -> absl::StatusOr<GemmMatrix> {
    if (s.dimensions() != d.dimensions()) {
      return Unsupported(absl::StrCat(what,
                                      " has not the result's "
                                      "dimensions"));
    }
    return MatrixOf(s, batch, rows, cols, what);
  };
  absl::StatusOr<GemmMatrix> md = like_d(d, "d");
  if (!md.ok()) return md.status();
  mm.d = *md;
  if (gemm.layout.c >= 0) {
    absl::StatusOr<GemmMatrix> mc = like_d(gemm.operands[gemm.layout.c], "c");
    if (!mc.ok()) return mc.status();
    mm.c = *mc;
  }
  if (gemm.layout.aux >= 0) {
    absl::StatusOr<GemmMatrix> aux =
        like_d(gemm.result.tuple_shapes(gemm.layout.aux), "aux");
    if (!aux.ok()) return aux.status();
    mm.aux = *aux;
  }
  return mm;
}

absl::Status CheckGemmThunkSupport(const GemmDescription& gemm) {
  absl::StatusOr<GemmMatrices> mm = GemmMatricesFor(gemm);
  if (!mm.ok()) return mm.status();
  if (mm->batch < 1 || mm->m < 1 || mm->n < 1 || mm->k < 1) {
    return Unsupported("an empty dimension");
  }
  if (absl::Status s = CheckTypes(gemm, *mm); !s.ok()) return s;
  return CheckEpilogue(gemm, *mm);
}

}  // namespace xlite::runtime
