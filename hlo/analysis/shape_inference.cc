#include "hlo/analysis/shape_inference.h"

#include <algorithm>
#include <numeric>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/analysis/shape_inference_internal.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/opcode_schema.h"

namespace xlite {
namespace shape_inference_internal {

absl::Status Invalid(absl::string_view message) {
  return absl::InvalidArgumentError(message);
}

std::string S(const Shape& shape) { return shape.ToString(false); }

Shape ArrayLike(const Shape& like, PrimitiveType type) {
  Shape out(type, {});
  for (int64_t i = 0; i < like.rank(); ++i) {
    out.add_dimension(like.dimensions(i), like.is_dynamic_dimension(i));
  }
  return out;
}

absl::Status ExpectArray(const Shape& shape, absl::string_view what) {
  if (!shape.IsArray()) {
    return Invalid(absl::StrCat(what, " must be an array, got ", S(shape)));
  }
  return absl::OkStatus();
}

absl::Status ExpectScalar(const Shape& shape, absl::string_view what) {
  if (!shape.IsArray() || shape.rank() != 0) {
    return Invalid(absl::StrCat(what, " must be a scalar, got ", S(shape)));
  }
  return absl::OkStatus();
}

absl::Status CheckDimensionIndices(const std::vector<int64_t>& dims,
                                   int64_t rank, absl::string_view what,
                                   bool unique) {
  absl::flat_hash_set<int64_t> seen;
  for (int64_t d : dims) {
    if (d < 0 || d >= rank) {
      return Invalid(absl::StrCat(what, " dimension ", d,
                                  " is out of range for rank ", rank));
    }
    if (unique && !seen.insert(d).second) {
      return Invalid(absl::StrCat(what, " repeats dimension ", d));
    }
  }
  return absl::OkStatus();
}

Shape ProgramResult(const HloComputation* c) {
  return c->root_instruction() != nullptr ? c->root_instruction()->shape()
                                          : Shape();
}

absl::Status CheckCallee(const HloComputation* callee,
                         const std::vector<Shape>& params,
                         absl::string_view role) {
  if (callee == nullptr) return Invalid(absl::StrCat("missing ", role));
  if (callee->num_parameters() != static_cast<int64_t>(params.size())) {
    return Invalid(absl::StrCat(role, " ", callee->name(), " takes ",
                                callee->num_parameters(),
                                " parameters, but is given ", params.size()));
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const Shape& p = callee->parameter_instruction(i)->shape();
    if (!ShapesCompatible(p, params[i])) {
      return Invalid(absl::StrCat(role, " ", callee->name(), " parameter ", i,
                                  " has shape ", S(p), ", but is given ",
                                  S(params[i])));
    }
  }
  return absl::OkStatus();
}

bool SameDimensions(const Shape& a, const Shape& b) {
  return a.IsArray() && b.IsArray() && a.dimensions() == b.dimensions();
}

std::vector<Shape> OperandShapes(const HloInstruction& hlo, int64_t begin,
                                 int64_t end) {
  if (end < 0) end = hlo.operand_count();
  std::vector<Shape> out;
  for (int64_t i = begin; i < end; ++i) out.push_back(hlo.operand(i)->shape());
  return out;
}

Shape TupleOrSingle(std::vector<Shape> shapes) {
  if (shapes.size() == 1) return std::move(shapes[0]);
  return Shape::Tuple(std::move(shapes));
}

absl::StatusOr<int64_t> WindowedOutputSize(int64_t input,
                                           const WindowDimension& w) {
  if (w.size < 0 || w.stride < 1 || w.base_dilation < 1 ||
      w.window_dilation < 1) {
    return Invalid("window size must be >= 0 and strides/dilations >= 1");
  }
  const int64_t dilated_input =
      input == 0 ? 0 : (input - 1) * w.base_dilation + 1;
  const int64_t padded = dilated_input + w.padding_low + w.padding_high;
  const int64_t dilated_window =
      w.size == 0 ? 0 : (w.size - 1) * w.window_dilation + 1;
  if (padded < dilated_window) return 0;
  return (padded - dilated_window) / w.stride + 1;
}

}  // namespace shape_inference_internal

using namespace shape_inference_internal;  // NOLINT

bool CanInferShape(HloOpcode opcode) {
  if (IsElementwiseOpcode(opcode)) {
    switch (opcode) {
      case HloOpcode::kConvert:
      case HloOpcode::kBitcastConvert:
      case HloOpcode::kReducePrecision:
      case HloOpcode::kStochasticConvert:
        return false;
      default:
        return true;
    }
  }
  switch (opcode) {
    case HloOpcode::kAddDependency:
    case HloOpcode::kAfterAll:
    case HloOpcode::kBatchNormGrad:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormTraining:
    case HloOpcode::kBroadcast:
    case HloOpcode::kCall:
    case HloOpcode::kCholesky:
    case HloOpcode::kConcatenate:
    case HloOpcode::kConditional:
    case HloOpcode::kConvolution:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kDomain:
    case HloOpcode::kDot:
    case HloOpcode::kFft:
    case HloOpcode::kGather:
    case HloOpcode::kGetDimensionSize:
    case HloOpcode::kSetDimensionSize:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kMap:
    case HloOpcode::kPad:
    case HloOpcode::kPartitionId:
    case HloOpcode::kRaggedDot:
    case HloOpcode::kReduce:
    case HloOpcode::kReplicaId:
    case HloOpcode::kReverse:
    case HloOpcode::kScan:
    case HloOpcode::kScaledDot:
    case HloOpcode::kScatter:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kSelectAndScatter:
    case HloOpcode::kSort:
    case HloOpcode::kTranspose:
    case HloOpcode::kTriangularSolve:
    case HloOpcode::kTuple:
    case HloOpcode::kWhile:
    case HloOpcode::kTopK:
      return true;
    default:
      return false;
  }
}

bool DeclaredShapeMatches(const HloInstruction& hlo, const Shape& inferred) {
  const Shape& declared = hlo.shape();
  if (HloOpcodeFamily(hlo.opcode()) == OpcodeFamily::kContraction) {
    // A preferred element type may differ from the operands'.
    return SameDimensions(declared, inferred);
  }
  if (ShapesCompatible(declared, inferred)) return true;
  // Dynamic dimensions: a static declared dimension may be the bound of an
  // inferred dynamic one and vice versa.
  if (declared.IsArray() && inferred.IsArray()) {
    return declared.element_type() == inferred.element_type() &&
           declared.dimensions() == inferred.dimensions();
  }
  if (declared.IsTuple() && inferred.IsTuple() &&
      declared.tuple_shapes_size() == inferred.tuple_shapes_size()) {
    for (int64_t i = 0; i < declared.tuple_shapes_size(); ++i) {
      const Shape& d = declared.tuple_shapes(i);
      const Shape& n = inferred.tuple_shapes(i);
      if (!ShapesCompatible(d, n) && !(d.IsArray() && n.IsArray() &&
                                       d.element_type() == n.element_type() &&
                                       d.dimensions() == n.dimensions())) {
        return false;
      }
    }
    return true;
  }
  return false;
}

namespace {

absl::StatusOr<Shape> InferFamilyShape(const HloInstruction& hlo) {
  switch (HloOpcodeFamily(hlo.opcode())) {
    case OpcodeFamily::kElementwise:
      return InferElementwiseShape(hlo);
    case OpcodeFamily::kConversion:
      return InferConversionShape(hlo);
    case OpcodeFamily::kGenerator:
      return InferGeneratorShape(hlo);
    case OpcodeFamily::kDataMovement:
      return InferDataMovementShape(hlo);
    case OpcodeFamily::kTupleAndToken:
      return InferTupleAndTokenShape(hlo);
    case OpcodeFamily::kGatherScatter:
      return InferGatherScatterShape(hlo);
    case OpcodeFamily::kReduction:
      return InferReductionShape(hlo);
    case OpcodeFamily::kSort:
      return InferSortShape(hlo);
    case OpcodeFamily::kContraction:
      return InferContractionShape(hlo);
    case OpcodeFamily::kLinearAlgebra:
      return InferLinearAlgebraShape(hlo);
    case OpcodeFamily::kRandom:
      return InferRandomShape(hlo);
    case OpcodeFamily::kCollective:
      return InferCollectiveShape(hlo);
    case OpcodeFamily::kAsync:
      return InferAsyncShape(hlo);
    case OpcodeFamily::kControlFlow:
      return InferControlFlowShape(hlo);
    case OpcodeFamily::kCustomCall:
      return InferCustomCallShape(hlo);
    case OpcodeFamily::kHostTransfer:
      return InferHostTransferShape(hlo);
  }
  return hlo.shape();
}

}  // namespace

absl::StatusOr<Shape> InferShape(const HloInstruction& hlo) {
  const HloOpcode op = hlo.opcode();
  const int arity = HloOpcodeArity(op);
  if (arity != kVariadic && hlo.operand_count() != arity) {
    return Invalid(absl::StrCat(HloOpcodeString(op), " expects ", arity,
                                " operands, but has ", hlo.operand_count()));
  }
  const int min_operands = HloOpcodeMinOperandCount(op);
  if (arity == kVariadic && hlo.operand_count() < min_operands) {
    return Invalid(absl::StrCat(
        HloOpcodeString(op), " expects at least ", min_operands, " operand",
        min_operands == 1 ? "" : "s", ", but has ", hlo.operand_count()));
  }
  XLITE_RETURN_IF_ERROR(CheckBufferUse(hlo));
  return InferFamilyShape(hlo);
}

}  // namespace xlite
