// Linear algebra as runtime library calls: the `cholesky` and
// `triangular-solve` opcodes and the custom calls JAX emits on CPU
// (lapack_?potrf_ffi, lapack_?trsm_ffi, lapack_?syevd_ffi / ?heevd_ffi,
// lapack_?gesdd_ffi / ?gesvd_ffi, Qr,
// ProductOfElementaryHouseholderReflectors), with the evaluator's operand
// and result conventions
// (hlo/evaluator/custom_calls.cc, qr.cc, eigh_svd.h). Matrices
// go to the library column-major when the buffers already are (as the
// lapack calls' operand_layout_constraints ask), else row-major.

#include <algorithm>
#include <cctype>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "codegen/elemental.h"
#include "cpu_backend/library_calls.h"
#include "cpu_backend/runtime_lib/runtime_lib.h"
#include "hlo/ir/opcode.h"

namespace xlite::cpu {
namespace {

// An integer attribute of an FFI backend config such as
// "{diag = 78 : ui8, side = 76 : ui8}" (MLIR dictionary syntax).
std::optional<int64_t> FfiAttribute(absl::string_view config,
                                    absl::string_view name) {
  size_t at = 0;
  while ((at = config.find(name, at)) != absl::string_view::npos) {
    const bool starts = at == 0 || config[at - 1] == '{' ||
                        config[at - 1] == ' ' || config[at - 1] == ',';
    size_t p = at + name.size();
    at = p;
    if (!starts) continue;
    while (p < config.size() && config[p] == ' ') ++p;
    if (p >= config.size() || config[p] != '=') continue;
    ++p;
    while (p < config.size() && config[p] == ' ') ++p;
    size_t end = p;
    while (end < config.size() &&
           (std::isdigit(static_cast<unsigned char>(config[end])) ||
            config[end] == '-')) {
      ++end;
    }
    int64_t value;
    if (absl::SimpleAtoi(config.substr(p, end - p), &value)) return value;
  }
  return std::nullopt;
}

int64_t Ffi(const HloInstruction* hlo, absl::string_view name, char fallback) {
  return FfiAttribute(hlo->backend_config(), name).value_or(fallback);
}

// Matrices column-major when `shape` (rank >= 2) already is, else row-major.
DenseOrder MatrixOrder(const Shape& shape) {
  if (shape.rank() >= 2 &&
      HasDenseOrder(shape, DenseOrder::kColumnMajorMatrix) &&
      !HasDenseOrder(shape, DenseOrder::kRowMajor)) {
    return DenseOrder::kColumnMajorMatrix;
  }
  return DenseOrder::kRowMajor;
}

// Checks that `shape` is a batch of matrices of a linear-algebra type.
absl::Status CheckMatrices(const HloInstruction* hlo, const Shape& shape) {
  const PrimitiveType t = shape.element_type();
  if (!shape.IsArray() || shape.rank() < 2 ||
      (t != PrimitiveType::kF32 && t != PrimitiveType::kF64 &&
       t != PrimitiveType::kC64 && t != PrimitiveType::kC128)) {
    return codegen::Unsupported(
        hlo, absl::StrCat("linear algebra on ", shape.ToString(false),
                          " (needs f32, f64, c64 or c128 matrices)"));
  }
  return absl::OkStatus();
}

const Shape& Leaf(const HloInstruction* hlo, int64_t leaf) {
  return hlo->shape().IsTuple() ? hlo->shape().tuple_shapes(leaf)
                                : hlo->shape();
}

absl::Status EmitCholesky(LibraryCallArrays& arrays, llvm::IRBuilderBase& b,
                          const HloInstruction* hlo, bool potrf) {
  const Shape& a = hlo->operand(0)->shape();
  if (absl::Status s = CheckMatrices(hlo, a); !s.ok()) return s;
  const ShapeIndex factor = potrf ? ShapeIndex{0} : ShapeIndex{};
  if (potrf && (!hlo->shape().IsTuple() ||
                hlo->shape().tuple_shapes_size() != 2 ||
                hlo->shape().tuple_shapes(1).element_type() !=
                    PrimitiveType::kS32)) {
    return codegen::Unsupported(hlo, "potrf must return (factor, s32 info)");
  }
  const DenseOrder order = MatrixOrder(a);
  const int64_t n = a.dimensions(a.rank() - 1);
  const bool lower = potrf ? Ffi(hlo, "uplo", 'L') == 'L' : hlo->attrs().lower;
  absl::StatusOr<llvm::Value*> in = arrays.Input(hlo->operand(0), {}, order);
  if (!in.ok()) return in.status();
  absl::StatusOr<llvm::Value*> out = arrays.Output(hlo, factor, order);
  if (!out.ok()) return out.status();
  llvm::Value* info = llvm::ConstantPointerNull::get(b.getPtrTy());
  if (potrf) {
    absl::StatusOr<llvm::Value*> i = arrays.Output(hlo, {1});
    if (!i.ok()) return i.status();
    info = *i;
  }
  arrays.Call("xlite_cpu_cholesky",
              {b.getInt32(static_cast<int32_t>(a.element_type())), *in, *out,
               info, b.getInt64(DimensionProduct(a, 0, a.rank() - 2)),
               b.getInt64(n), b.getInt32(lower), b.getInt32(potrf),
               b.getInt32(order == DenseOrder::kColumnMajorMatrix)});
  return absl::OkStatus();
}

absl::Status EmitTriangularSolve(LibraryCallArrays& arrays,
                                 llvm::IRBuilderBase& b,
                                 const HloInstruction* hlo, bool trsm) {
  if (hlo->operand_count() < 2 || !hlo->shape().IsArray()) {
    return codegen::Unsupported(hlo, "a triangular solve takes (a, b, ...) "
                                     "and returns one array");
  }
  const Shape& bs = hlo->operand(1)->shape();
  if (absl::Status s = CheckMatrices(hlo, bs); !s.ok()) return s;
  bool left = hlo->attrs().left_side, lower = hlo->attrs().lower;
  bool unit = hlo->attrs().unit_diagonal;
  int32_t transpose;
  switch (hlo->attrs().transpose_a) {
    case TriangularSolveTranspose::kNoTranspose:
      transpose = kTrsmNoTranspose;
      break;
    case TriangularSolveTranspose::kAdjoint:
      transpose = kTrsmAdjoint;
      break;
    default:  // kTranspose; kInvalid reads as it, as in the evaluator
      transpose = kTrsmTranspose;
  }
  if (trsm) {
    left = Ffi(hlo, "side", 'L') == 'L';
    lower = Ffi(hlo, "uplo", 'L') == 'L';
    unit = Ffi(hlo, "diag", 'N') == 'U';
    const int64_t t = Ffi(hlo, "trans_x", 'N');
    transpose = t == 'T'   ? kTrsmTranspose
                : t == 'C' ? kTrsmAdjoint
                           : kTrsmNoTranspose;
  }
  const DenseOrder order = MatrixOrder(bs);
  absl::StatusOr<llvm::Value*> a = arrays.Input(hlo->operand(0), {}, order);
  if (!a.ok()) return a.status();
  absl::StatusOr<llvm::Value*> in = arrays.Input(hlo->operand(1), {}, order);
  if (!in.ok()) return in.status();
  absl::StatusOr<llvm::Value*> x = arrays.Output(hlo, {}, order);
  if (!x.ok()) return x.status();
  const int64_t r = bs.rank();
  arrays.Call("xlite_cpu_trsm",
              {b.getInt32(static_cast<int32_t>(bs.element_type())), *a, *in,
               *x, b.getInt64(DimensionProduct(bs, 0, r - 2)),
               b.getInt64(bs.dimensions(r - 2)),
               b.getInt64(bs.dimensions(r - 1)), b.getInt32(left),
               b.getInt32(lower), b.getInt32(transpose), b.getInt32(unit),
               b.getInt32(order == DenseOrder::kColumnMajorMatrix)});
  return absl::OkStatus();
}

// Qr: a -> (qr, taus); ProductOfElementaryHouseholderReflectors:
// (a, taus) -> q.
absl::Status EmitHouseholder(LibraryCallArrays& arrays, llvm::IRBuilderBase& b,
                             const HloInstruction* hlo, bool product) {
  const Shape& a = hlo->operand(0)->shape();
  if (absl::Status s = CheckMatrices(hlo, a); !s.ok()) return s;
  const bool shapes_ok =
      product ? hlo->operand_count() == 2 && hlo->shape().IsArray()
              : hlo->operand_count() == 1 && hlo->shape().IsTuple() &&
                    hlo->shape().tuple_shapes_size() == 2;
  if (!shapes_ok) {
    return codegen::Unsupported(
        hlo, product ? "takes (a, taus) and returns q"
                     : "takes a and returns (qr, taus)");
  }
  const DenseOrder order = MatrixOrder(a);
  const int64_t r = a.rank();
  const int64_t batch = DimensionProduct(a, 0, r - 2);
  const int64_t m = a.dimensions(r - 2), n = a.dimensions(r - 1);
  llvm::Value* type = b.getInt32(static_cast<int32_t>(a.element_type()));
  llvm::Value* major = b.getInt32(order == DenseOrder::kColumnMajorMatrix);
  absl::StatusOr<llvm::Value*> in = arrays.Input(hlo->operand(0), {}, order);
  if (!in.ok()) return in.status();
  if (product) {
    const Shape& taus = hlo->operand(1)->shape();
    absl::StatusOr<llvm::Value*> t = arrays.Input(hlo->operand(1));
    if (!t.ok()) return t.status();
    absl::StatusOr<llvm::Value*> q = arrays.Output(hlo, {}, order);
    if (!q.ok()) return q.status();
    arrays.Call("xlite_cpu_orgqr",
                {type, *in, *t, *q, b.getInt64(batch), b.getInt64(m),
                 b.getInt64(n), b.getInt64(taus.dimensions(taus.rank() - 1)),
                 major});
    return absl::OkStatus();
  }
  absl::StatusOr<llvm::Value*> qr = arrays.Output(hlo, {0}, order);
  if (!qr.ok()) return qr.status();
  absl::StatusOr<llvm::Value*> t = arrays.Output(hlo, {1});
  if (!t.ok()) return t.status();
  arrays.Call("xlite_cpu_geqrf", {type, *in, *qr, *t, b.getInt64(batch),
                                  b.getInt64(m), b.getInt64(n), major});
  return absl::OkStatus();
}

// syevd/heevd: a -> (vectors, w, info); gesdd: a -> (a, s, u, vt, info).
// The evaluator checks the result shapes in detail (eigh_svd.cc); here
// the leaf count and types the runtime functions rely on.
absl::Status EmitEighOrSvd(LibraryCallArrays& arrays, llvm::IRBuilderBase& b,
                           const HloInstruction* hlo, bool svd) {
  const Shape& a = hlo->operand(0)->shape();
  if (absl::Status s = CheckMatrices(hlo, a); !s.ok()) return s;
  const int64_t r = a.rank();
  const int64_t m = a.dimensions(r - 2), n = a.dimensions(r - 1);
  const int64_t leaves = svd ? 5 : 3;
  // gesdd's 'N' (compute_uv=False) comes with either shape of u and vt.
  const int64_t mode = Ffi(hlo, "mode", 'A');
  bool full = !svd || mode != 'S';
  if (svd && mode == 'N' && hlo->shape().IsTuple() &&
      hlo->shape().tuple_shapes_size() == 5 && Leaf(hlo, 2).IsArray() &&
      Leaf(hlo, 3).IsArray() && Leaf(hlo, 2).rank() == r &&
      Leaf(hlo, 3).rank() == r) {
    full = Leaf(hlo, 2).dimensions(r - 1) == m &&
           Leaf(hlo, 3).dimensions(r - 2) == n;
  }
  const int64_t k = std::min(m, n);
  if (hlo->operand_count() != 1 || !hlo->shape().IsTuple() ||
      hlo->shape().tuple_shapes_size() != leaves ||
      Leaf(hlo, leaves - 1).element_type() != PrimitiveType::kS32 ||
      (!svd && m != n) ||
      (svd && (Leaf(hlo, 2).rank() != r || Leaf(hlo, 3).rank() != r ||
               Leaf(hlo, 2).dimensions(r - 1) != (full ? m : k) ||
               Leaf(hlo, 3).dimensions(r - 2) != (full ? n : k)))) {
    return codegen::Unsupported(
        hlo, svd ? "gesdd takes a[..., m, n] and returns (a, s, u, vt, "
                   "s32 info) with u, vt as its mode says"
                 : "syevd/heevd takes square a and returns (vectors, w, "
                   "s32 info)");
  }
  const DenseOrder order = MatrixOrder(a);
  llvm::Value* type = b.getInt32(static_cast<int32_t>(a.element_type()));
  llvm::Value* major = b.getInt32(order == DenseOrder::kColumnMajorMatrix);
  llvm::Value* batch = b.getInt64(DimensionProduct(a, 0, r - 2));
  absl::StatusOr<llvm::Value*> in = arrays.Input(hlo->operand(0), {}, order);
  if (!in.ok()) return in.status();
  std::vector<llvm::Value*> out;
  for (int64_t leaf = 0; leaf < leaves; ++leaf) {
    const bool matrix = svd ? leaf != 1 && leaf != 4 : leaf == 0;
    absl::StatusOr<llvm::Value*> o =
        arrays.Output(hlo, {leaf}, matrix ? order : DenseOrder::kRowMajor);
    if (!o.ok()) return o.status();
    out.push_back(*o);
  }
  if (svd) {
    arrays.Call("xlite_cpu_gesdd",
                {type, *in, out[0], out[1], out[2], out[3], out[4], batch,
                 b.getInt64(m), b.getInt64(n), b.getInt32(full), major});
  } else {
    arrays.Call("xlite_cpu_syevd",
                {type, *in, out[0], out[1], out[2], batch, b.getInt64(n),
                 b.getInt32(Ffi(hlo, "uplo", 'L') == 'L'), major});
  }
  return absl::OkStatus();
}

}  // namespace

bool IsLinalgTarget(const std::string& target) {
  for (const char* prefix : {"s", "d", "c", "z"}) {
    if (target == absl::StrCat("lapack_", prefix, "potrf_ffi") ||
        target == absl::StrCat("lapack_", prefix, "trsm_ffi") ||
        target == absl::StrCat("lapack_", prefix, "gesdd_ffi") ||
        target == absl::StrCat("lapack_", prefix, "gesvd_ffi")) {
      return true;
    }
  }
  return target == "lapack_ssyevd_ffi" || target == "lapack_dsyevd_ffi" ||
         target == "lapack_cheevd_ffi" || target == "lapack_zheevd_ffi" ||
         target == "Qr" || target == "ProductOfElementaryHouseholderReflectors";
}

absl::Status EmitLinalgCall(EmitterContext& ctx, llvm::IRBuilderBase& b,
                            const HloInstruction* hlo) {
  if (hlo->operand_count() < 1) {
    return codegen::Unsupported(hlo, "linear algebra without operands");
  }
  LibraryCallArrays arrays(ctx, b);
  absl::Status status;
  if (hlo->opcode() == HloOpcode::kCholesky) {
    status = EmitCholesky(arrays, b, hlo, /*potrf=*/false);
  } else if (hlo->opcode() == HloOpcode::kTriangularSolve) {
    status = EmitTriangularSolve(arrays, b, hlo, /*trsm=*/false);
  } else {
    const std::string& target = hlo->attrs().custom_call->target;
    if (absl::EndsWith(target, "potrf_ffi")) {
      status = EmitCholesky(arrays, b, hlo, /*potrf=*/true);
    } else if (absl::EndsWith(target, "trsm_ffi")) {
      status = EmitTriangularSolve(arrays, b, hlo, /*trsm=*/true);
    } else if (absl::EndsWith(target, "evd_ffi")) {
      status = EmitEighOrSvd(arrays, b, hlo, /*svd=*/false);
    } else if (absl::EndsWith(target, "gesdd_ffi") ||
               absl::EndsWith(target, "gesvd_ffi")) {
      status = EmitEighOrSvd(arrays, b, hlo, /*svd=*/true);
    } else {
      status = EmitHouseholder(
          arrays, b, hlo, target == "ProductOfElementaryHouseholderReflectors");
    }
  }
  if (!status.ok()) return status;
  return arrays.Finish();
}

}  // namespace xlite::cpu
