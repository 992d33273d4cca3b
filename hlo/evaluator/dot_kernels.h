#ifndef XLITE_HLO_EVALUATOR_DOT_KERNELS_H_
#define XLITE_HLO_EVALUATOR_DOT_KERNELS_H_

// The arithmetic of dot and convolution: which type they accumulate in
// (README "Numerics") and the matrix kernels, so that the reference stays
// usable on model-sized operands.

#include <cstdint>

#include "absl/types/span.h"
#include "hlo/evaluator/internal.h"
#include "hlo/ir/attributes.h"

namespace xlite::eval {

/// The type a dot or convolution of these operand types into `result`
/// accumulates in: for real floats, f32 for bf16/f16/f8/f4 (XLA:CPU's float
/// normalization and its f16 dot/conv upcast) or the widest operand or
/// result type when wider; otherwise the result type (integers wrap).
PrimitiveType AccumulationType(PrimitiveType lhs, PrimitiveType rhs,
                               PrimitiveType result);

/// The accumulated `value` rounded to `result` as XLA:CPU rounds it: once,
/// except that f8/f4 results of narrow operands pass through f16 (their
/// float normalization computes them as f16 ops).
Literal RoundResult(const Literal& value, PrimitiveType lhs, PrimitiveType rhs,
                    const Shape& result);

/// `in` with its dimensions permuted: result dimension k is in's
/// dimension perm[k] (row-major data).
Literal Permute(const Literal& in, absl::Span<const int64_t> perm);

/// out[b] = lhs[b] (M x K) * rhs[b] (K x N), row-major, all of type `out`'s.
void MatMul(const Literal& lhs, const Literal& rhs, Literal& out, int64_t B,
            int64_t M, int64_t K, int64_t N);

/// Convolution of f32 or f64 operands into `out` (same type) as matrix
/// products of input patches and the kernel; false for other types.
bool ConvolveByGemm(const ConvolutionDimensionNumbers& dn, const Window& window,
                    int64_t feature_groups, int64_t batch_groups,
                    const Literal& input, const Literal& kernel, Literal& out);

}  // namespace xlite::eval

#endif  // XLITE_HLO_EVALUATOR_DOT_KERNELS_H_
