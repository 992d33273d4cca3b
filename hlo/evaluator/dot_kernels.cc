// Matrix kernels of dot and convolution (see dot_kernels.h). Real floats go
// through Eigen's blocked GEMM in f32 or f64 (narrow floats are widened
// exactly first, then rounded once); integers and predicates use plain
// loops over contiguous rows.

#include "hlo/evaluator/dot_kernels.h"

#include <Eigen/Core>
#include <algorithm>
#include <cstring>

#include "hlo/evaluator/element_types.h"

namespace xlite::eval {

namespace {

bool IsRealFloat(PrimitiveType t) { return IsFloatingPoint(t); }

// f8 and f4 types that XLA:CPU normalizes to f16 (F8E8M0FNU goes to f32).
bool NormalizesViaF16(PrimitiveType t) {
  return IsFloatingPoint(t) && BitWidth(t) <= 8 &&
         t != PrimitiveType::kF8E8M0FNU;
}

template <typename Tr>
void TypedMatMul(const Literal& lhs, const Literal& rhs, Literal& out,
                 int64_t B, int64_t M, int64_t K, int64_t N) {
  using S = typename Tr::Storage;
  using C = typename Tr::Compute;
  const S* a = Data<Tr>(lhs);
  const S* b = Data<Tr>(rhs);
  S* c = MutableData<Tr>(out);
  if constexpr (std::is_same_v<S, float> || std::is_same_v<S, double> ||
                kIsComplex<Tr>) {
    using Matrix =
        Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    // XLA:CPU's signed zeros: a sum of products starts from +0, so a sum
    // of -0 products is +0 (Eigen's small products start from the first
    // product, hence the + 0 after them), while a dot contracting one
    // element is the product itself (XLA makes it a multiply): -0 when it
    // is -0.
    for (int64_t i = 0; i < B; ++i) {
      Eigen::Map<const Matrix> x(a + i * M * K, M, K);
      Eigen::Map<const Matrix> y(b + i * K * N, K, N);
      Eigen::Map<Matrix> z(c + i * M * N, M, N);
      if (K == 1) {
        z.noalias() = x.col(0) * y.row(0);
      } else {
        z.noalias() = x * y;
        z.array() += S(0);
      }
    }
  } else if constexpr (Tr::kKind == Kind::kPred) {
    std::fill(c, c + B * M * N, S(0));
    for (int64_t bi = 0; bi < B; ++bi) {
      for (int64_t m = 0; m < M; ++m) {
        for (int64_t k = 0; k < K; ++k) {
          if (!a[(bi * M + m) * K + k]) continue;
          const S* yrow = b + (bi * K + k) * N;
          S* zrow = c + (bi * M + m) * N;
          for (int64_t n = 0; n < N; ++n) zrow[n] |= yrow[n] ? 1 : 0;
        }
      }
    }
  } else {
    // Integers wrap (unsigned arithmetic); narrow floats reach here only
    // when a caller did not widen them, and then accumulate in float.
    using Acc = std::conditional_t<kIsInt<Tr>, uint64_t, C>;
    std::vector<Acc> row(N);
    for (int64_t bi = 0; bi < B; ++bi) {
      for (int64_t m = 0; m < M; ++m) {
        std::fill(row.begin(), row.end(), Acc(0));
        for (int64_t k = 0; k < K; ++k) {
          const Acc x = static_cast<Acc>(Tr::Load(a[(bi * M + m) * K + k]));
          const S* yrow = b + (bi * K + k) * N;
          for (int64_t n = 0; n < N; ++n) {
            row[n] += x * static_cast<Acc>(Tr::Load(yrow[n]));
          }
        }
        for (int64_t n = 0; n < N; ++n) {
          c[(bi * M + m) * N + n] = Tr::Store(static_cast<C>(row[n]));
        }
      }
    }
  }
}

}  // namespace

PrimitiveType AccumulationType(PrimitiveType lhs, PrimitiveType rhs,
                               PrimitiveType result) {
  if (!IsRealFloat(lhs) || !IsRealFloat(rhs) || !IsRealFloat(result)) {
    return result;
  }
  const int widest =
      std::max({BitWidth(lhs), BitWidth(rhs), BitWidth(result)});
  return widest > 32 ? PrimitiveType::kF64 : PrimitiveType::kF32;
}

Literal RoundResult(const Literal& value, PrimitiveType lhs, PrimitiveType rhs,
                    const Shape& result) {
  const PrimitiveType type = result.element_type();
  Literal out;
  if (value.shape().element_type() == type) {
    out = value;
  } else if (NormalizesViaF16(type) && BitWidth(lhs) <= 16 &&
             BitWidth(rhs) <= 16) {
    out = ConvertLiteral(ConvertLiteral(value, PrimitiveType::kF16), type);
  } else {
    out = ConvertLiteral(value, type);
  }
  out.mutable_shape_for_layout() = result;
  return out;
}

Literal Permute(const Literal& in, absl::Span<const int64_t> perm) {
  const Shape& s = in.shape();
  std::vector<int64_t> dims;
  bool identity = true;
  for (size_t k = 0; k < perm.size(); ++k) {
    dims.push_back(s.dimensions(perm[k]));
    identity &= perm[k] == static_cast<int64_t>(k);
  }
  Literal out(Shape(s.element_type(), dims));
  if (identity) {
    out.mutable_data() = in.data();
    return out;
  }
  const int64_t w = ElementBytes(s);
  const std::vector<int64_t> in_strides = Strides(s.dimensions());
  const int64_t rank = perm.size();
  const int64_t inner = rank == 0 ? 1 : dims[rank - 1];
  const int64_t inner_stride = rank == 0 ? 0 : in_strides[perm[rank - 1]];
  std::vector<int64_t> outer(dims.begin(), dims.end());
  if (rank > 0) outer.pop_back();
  const uint8_t* src = in.data().data();
  uint8_t* dst = out.mutable_data().data();
  ForEachIndex(outer, [&](absl::Span<const int64_t> index) {
    int64_t from = 0;
    for (size_t k = 0; k < index.size(); ++k) {
      from += index[k] * in_strides[perm[k]];
    }
    for (int64_t i = 0; i < inner; ++i) {
      std::memcpy(dst, src + (from + i * inner_stride) * w, w);
      dst += w;
    }
  });
  return out;
}

void MatMul(const Literal& lhs, const Literal& rhs, Literal& out, int64_t B,
            int64_t M, int64_t K, int64_t N) {
  DispatchArrayType(out.shape().element_type(), [&](auto tr) {
    TypedMatMul<decltype(tr)>(lhs, rhs, out, B, M, K, N);
    return 0;
  });
}

}  // namespace xlite::eval
