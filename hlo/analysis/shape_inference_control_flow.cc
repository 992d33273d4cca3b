// Shape inference for the control flow family: while, conditional, call
// and fusion, whose results are their callees' results once each callee is
// shown to take what the instruction passes it.

#include "absl/strings/str_cat.h"
#include "hlo/analysis/shape_inference_internal.h"
#include "hlo/ir/computation.h"

namespace xlite {
namespace shape_inference_internal {
namespace {

absl::StatusOr<Shape> InferWhile(const HloInstruction& hlo) {
  const Shape& init = hlo.operand(0)->shape();
  XLITE_RETURN_IF_ERROR(
      CheckCallee(hlo.while_condition(), {init}, "while condition"));
  XLITE_RETURN_IF_ERROR(CheckCallee(hlo.while_body(), {init}, "while body"));
  const Shape cond = ProgramResult(hlo.while_condition());
  if (!(cond.IsArray() && cond.rank() == 0 &&
        cond.element_type() == PrimitiveType::kPred)) {
    return Invalid(
        absl::StrCat("while condition must return pred[], returns ", S(cond)));
  }
  const Shape body = ProgramResult(hlo.while_body());
  if (!ShapesCompatible(body, init)) {
    return Invalid(absl::StrCat("while body returns ", S(body),
                                " but the loop state is ", S(init)));
  }
  return init;
}

absl::StatusOr<Shape> InferConditional(const HloInstruction& hlo) {
  const Shape& index = hlo.operand(0)->shape();
  if (!(index.IsArray() && index.rank() == 0 &&
        (index.element_type() == PrimitiveType::kPred ||
         index.element_type() == PrimitiveType::kS32))) {
    return Invalid(
        absl::StrCat("conditional's first operand must be pred[] "
                     "or s32[], got ",
                     S(index)));
  }
  const auto& branches = hlo.called_computations();
  if (branches.empty() ||
      static_cast<int64_t>(branches.size()) + 1 != hlo.operand_count()) {
    return Invalid(absl::StrCat("conditional has ", branches.size(),
                                " branches but ", hlo.operand_count() - 1,
                                " branch operands"));
  }
  if (index.element_type() == PrimitiveType::kPred && branches.size() != 2) {
    return Invalid("a pred conditional has exactly two branches");
  }
  Shape result;
  for (size_t i = 0; i < branches.size(); ++i) {
    XLITE_RETURN_IF_ERROR(CheckCallee(branches[i],
                                      {hlo.operand(i + 1)->shape()},
                                      absl::StrCat("branch ", i)));
    const Shape r = ProgramResult(branches[i]);
    if (i == 0) {
      result = r;
    } else if (!ShapesCompatible(r, result)) {
      return Invalid(
          absl::StrCat("conditional branches return different "
                       "shapes: ",
                       S(result), " and ", S(r)));
    }
  }
  return result;
}

absl::StatusOr<Shape> InferCallOrFusion(const HloInstruction& hlo) {
  const HloOpcode op = hlo.opcode();
  const HloComputation* callee = hlo.called_computations()[0];
  std::vector<Shape> args = OperandShapes(hlo);
  // XLA's verifier lets a fusion take more operands than its computation
  // has parameters (parameter i still matches operand i); the rest are
  // unused.
  if (op == HloOpcode::kFusion && callee != nullptr &&
      static_cast<int64_t>(args.size()) > callee->num_parameters()) {
    args.resize(callee->num_parameters());
  }
  XLITE_RETURN_IF_ERROR(CheckCallee(
      callee, args, op == HloOpcode::kCall ? "to_apply" : "fused computation"));
  return ProgramResult(callee);
}

}  // namespace

absl::StatusOr<Shape> InferControlFlowShape(const HloInstruction& hlo) {
  switch (hlo.opcode()) {
    case HloOpcode::kWhile:
      return InferWhile(hlo);
    case HloOpcode::kConditional:
      return InferConditional(hlo);
    default:  // call, fusion
      return InferCallOrFusion(hlo);
  }
}

}  // namespace shape_inference_internal
}  // namespace xlite
