#ifndef XLITE_HLO_ANALYSIS_SHAPE_INFERENCE_INTERNAL_H_
#define XLITE_HLO_ANALYSIS_SHAPE_INFERENCE_INTERNAL_H_

// Helpers shared by the shape inference files; not a public API.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/ir/instruction.h"

namespace xlite {
namespace shape_inference_internal {

absl::Status Invalid(absl::string_view message);
std::string S(const Shape& shape);
/// An array with `like`'s dimensions (and dynamic flags) and `type`.
Shape ArrayLike(const Shape& like, PrimitiveType type);
absl::Status ExpectArray(const Shape& shape, absl::string_view what);
absl::Status ExpectScalar(const Shape& shape, absl::string_view what);
absl::Status CheckDimensionIndices(const std::vector<int64_t>& dims,
                                   int64_t rank, absl::string_view what,
                                   bool unique);
Shape ProgramResult(const HloComputation* c);
/// Checks that `callee` takes parameters compatible with `params`.
absl::Status CheckCallee(const HloComputation* callee,
                         const std::vector<Shape>& params,
                         absl::string_view role);
bool SameDimensions(const Shape& a, const Shape& b);

#define XLITE_RETURN_IF_ERROR(expr)    \
  do {                                 \
    absl::Status _status = (expr);     \
    if (!_status.ok()) return _status; \
  } while (0)

/// Shapes of operands [begin, end) (end -1: all).
std::vector<Shape> OperandShapes(const HloInstruction& hlo, int64_t begin = 0,
                                 int64_t end = -1);
/// The single shape, or a tuple of several.
Shape TupleOrSingle(std::vector<Shape> shapes);

// One function per family of opcodes (shape_inference_structured.cc).
absl::StatusOr<Shape> InferDot(const Shape& lhs, const Shape& rhs,
                               const DotDimensionNumbers& d,
                               PrimitiveType declared_type);
/// scaled-dot (shape_inference_scaled_dot.cc).
absl::StatusOr<Shape> InferScaledDot(const HloInstruction& hlo);
absl::StatusOr<Shape> InferConvolution(const HloInstruction& hlo);
absl::StatusOr<Shape> InferGather(const HloInstruction& hlo);
absl::StatusOr<Shape> InferScatter(const HloInstruction& hlo);
absl::StatusOr<Shape> InferReduce(const HloInstruction& hlo);
absl::StatusOr<Shape> InferReduceWindow(const HloInstruction& hlo);
absl::StatusOr<Shape> InferSort(const HloInstruction& hlo);
absl::StatusOr<Shape> InferFft(const HloInstruction& hlo);
absl::StatusOr<Shape> InferCollective(const HloInstruction& hlo);
absl::StatusOr<Shape> InferAsync(const HloInstruction& hlo);

/// Where buffer shapes (b(...)) may appear, as XLA's verifier allows
/// (shape_inference_buffers.cc).
absl::Status CheckBufferUse(const HloInstruction& hlo);

absl::StatusOr<Shape> InferElementwiseShape(const HloInstruction& hlo);
absl::StatusOr<Shape> InferNonElementwiseShape(const HloInstruction& hlo);
/// Output size of one windowed dimension (reduce-window, convolution).
absl::StatusOr<int64_t> WindowedOutputSize(int64_t input,
                                           const WindowDimension& window);

}  // namespace shape_inference_internal
}  // namespace xlite

#endif  // XLITE_HLO_ANALYSIS_SHAPE_INFERENCE_INTERNAL_H_
