#ifndef XLITE_RUNTIME_GEMM_MATRICES_H_
#define XLITE_RUNTIME_GEMM_MATRICES_H_

// A GEMM call's operands as a BLAS library sees them: each a batch of
// rows x cols matrices, stored row- or column-major, a leading dimension
// and a batch stride apart — and the predicate saying which calls a GEMM
// thunk runs (what cuBLASLt can do: types, layouts, epilogues). The rest
// are expanded into a dot and its epilogue (passes/gemm_call_expansion.h).

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "hlo/ir/shape.h"
#include "runtime/gemm_description.h"

namespace xlite::runtime {

/// `batch` matrices of rows x cols, `batch_stride` elements apart; in a
/// row-major one consecutive rows are `leading_dim` elements apart, in a
/// column-major one consecutive columns.
struct GemmMatrix {
  PrimitiveType type = PrimitiveType::kF32;
  int64_t batch = 1;
  int64_t rows = 0;
  int64_t cols = 0;
  bool row_major = true;
  int64_t leading_dim = 0;
  int64_t batch_stride = 0;
};

/// d[batch, m, n] = a[batch, m, k] x b[batch, k, n]; c and aux are laid
/// out like d's dimensions (each in its own layout).
struct GemmMatrices {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  GemmMatrix a, b, d;
  std::optional<GemmMatrix> c;
  std::optional<GemmMatrix> aux;
};

/// The matrices of a call whose every operand's batch dimensions are its
/// most major ones (in the config's order) and whose row and column
/// dimensions each form one contiguous group in memory; d's dimensions
/// must be the dot's (batch, a's free, b's free). An error says which
/// operand is not such a matrix.
absl::StatusOr<GemmMatrices> GemmMatricesFor(const GemmDescription& gemm);

/// OK when a GEMM thunk runs `gemm` (the emulator's reference GEMM gives
/// the evaluator's numerics for any call; the predicate is cuBLASLt's, so
/// one image runs on both): float or complex types cuBLASLt pairs
/// (f16/bf16 -> itself or f32, f32, f64, c64, c128; f8 x f8 -> f8, bf16,
/// f16, f32), the matrices above with no empty dimension, a vector bias
/// of n elements over a row-major d, an aux output laid out as d, no SiLU,
/// no integers, amax only for f8. Otherwise why not.
absl::Status CheckGemmThunkSupport(const GemmDescription& gemm);

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_GEMM_MATRICES_H_
