#ifndef XLITE_TESTS_FUZZ_DOT_ROUNDING_H_
#define XLITE_TESTS_FUZZ_DOT_ROUNDING_H_

// Which narrow GEMM rounding each result of a module went through, for the
// gpu's tolerance (tests/testing/result_difference.h, rounding_types): the
// GEMM rewriter may fold a GEMM's epilogue (scale, bias, residual add) into
// the call, which computes it with the product in f32 and rounds once to
// the dot's type, where the interpreter rounds after the dot and after each
// step. A result computed from a bf16 or f16 dot may then differ by that
// type's rounding even where it ends in a finer type (a convert to f16 or
// f32); results that no such dot reaches keep their own type's tolerance.

#include <memory>
#include <vector>

#include "hlo/ir/module.h"
#include "hlo/ir/primitive_type.h"

namespace xlite::fuzz {

/// `module` with the f32 operands of every dot that the tiled GEMM path
/// runs on TF32 tensor cores (passes/tiled_gemm_fusion.h candidates of the
/// sequential computations whose TensorCoreInputOf is TF32) rounded to
/// TF32 first, as reduce-precision to 10 mantissa bits (nearest even, as
/// the kernel rounds): the reference for --gemm-backend=tiled on the gpu,
/// which then differs from the interpreter only in the order of the sums.
std::unique_ptr<HloModule> WithTf32DotOperands(const HloModule& module);

/// Per result leaf of the entry computation (the root, or each element of
/// a root tuple), the float type with the fewest mantissa bits, fewer than
/// f32's, among the results of the dots it is computed from (through
/// operands and called computations); kInvalid where there is none. A
/// root that is not an array or a tuple of arrays gives every leaf what
/// the whole root is computed from.
std::vector<PrimitiveType> DotRoundingPerResult(const HloModule& module);

}  // namespace xlite::fuzz

#endif  // XLITE_TESTS_FUZZ_DOT_ROUNDING_H_
