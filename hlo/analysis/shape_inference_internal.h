#ifndef XLITE_HLO_ANALYSIS_SHAPE_INFERENCE_INTERNAL_H_
#define XLITE_HLO_ANALYSIS_SHAPE_INFERENCE_INTERNAL_H_

// Helpers shared by the shape inference files; not a public API.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/ir/instruction.h"

namespace xlite {
namespace shape_inference_internal {

// ---- shape_inference.cc: helpers every family uses.
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
/// Output size of one windowed dimension (reduce-window,
/// select-and-scatter, convolution).
absl::StatusOr<int64_t> WindowedOutputSize(int64_t input,
                                           const WindowDimension& window);

/// Where buffer shapes (b(...)) may appear, as XLA's verifier allows
/// (shape_inference_buffers.cc).
absl::Status CheckBufferUse(const HloInstruction& hlo);

// ---- One function per opcode family (OpcodeFamily, hlo/ir/opcode.h),
// each called only for opcodes of its family, after InferShape has checked
// the operand count.

/// shape_inference_elementwise.cc
absl::StatusOr<Shape> InferElementwiseShape(const HloInstruction& hlo);
/// Every operand of an element-wise or conversion op is an array.
absl::Status ExpectArrayOperands(const HloInstruction& hlo);
/// shape_inference_conversion.cc
absl::StatusOr<Shape> InferConversionShape(const HloInstruction& hlo);
/// shape_inference_generator.cc: generators, random numbers and
/// custom-calls, whose results the IR mostly declares rather than derives.
absl::StatusOr<Shape> InferGeneratorShape(const HloInstruction& hlo);
absl::StatusOr<Shape> InferRandomShape(const HloInstruction& hlo);
absl::StatusOr<Shape> InferCustomCallShape(const HloInstruction& hlo);
/// shape_inference_data_movement.cc
absl::StatusOr<Shape> InferDataMovementShape(const HloInstruction& hlo);
/// shape_inference_tuple_token.cc: tuples, tokens and host transfers
/// (which pass tokens).
absl::StatusOr<Shape> InferTupleAndTokenShape(const HloInstruction& hlo);
absl::StatusOr<Shape> InferHostTransferShape(const HloInstruction& hlo);
/// shape_inference_gather_scatter.cc
absl::StatusOr<Shape> InferGatherScatterShape(const HloInstruction& hlo);
/// shape_inference_reduction.cc
absl::StatusOr<Shape> InferReductionShape(const HloInstruction& hlo);
/// shape_inference_sort.cc
absl::StatusOr<Shape> InferSortShape(const HloInstruction& hlo);
/// shape_inference_contraction.cc
absl::StatusOr<Shape> InferContractionShape(const HloInstruction& hlo);
/// shape_inference_linear_algebra.cc
absl::StatusOr<Shape> InferLinearAlgebraShape(const HloInstruction& hlo);
/// shape_inference_collectives.cc
absl::StatusOr<Shape> InferCollectiveShape(const HloInstruction& hlo);
/// shape_inference_async.cc
absl::StatusOr<Shape> InferAsyncShape(const HloInstruction& hlo);
/// shape_inference_control_flow.cc
absl::StatusOr<Shape> InferControlFlowShape(const HloInstruction& hlo);

// ---- Per-opcode rules shared across files.
/// dot, and the dot at the heart of ragged-dot and scaled-dot
/// (shape_inference_contraction.cc).
absl::StatusOr<Shape> InferDot(const Shape& lhs, const Shape& rhs,
                               const DotDimensionNumbers& d,
                               PrimitiveType declared_type);
/// scaled-dot (shape_inference_scaled_dot.cc).
absl::StatusOr<Shape> InferScaledDot(const HloInstruction& hlo);

}  // namespace shape_inference_internal
}  // namespace xlite

#endif  // XLITE_HLO_ANALYSIS_SHAPE_INFERENCE_INTERNAL_H_
