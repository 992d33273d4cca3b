#include "passes/tiled_gemm_split_k.h"

#include <memory>
#include <vector>

#include "hlo/ir/computation.h"
#include "hlo/ir/module.h"
#include "hlo/ir/opcode.h"
#include "passes/hlo_util.h"

namespace xlite {
namespace {

using PT = PrimitiveType;

// The accumulation type of `dot`'s partial sums, or kInvalid.
PT PartialType(const HloInstruction& dot) {
  const PT l = dot.operand(0)->shape().element_type();
  const PT r = dot.operand(1)->shape().element_type();
  const PT out = dot.shape().element_type();
  if (l == PT::kS8 && r == PT::kS8 && out == PT::kS32) return PT::kS32;
  for (PT t : {l, r, out}) {
    if (!IsFloatingPoint(t) || IsComplex(t) || t == PT::kF64) {
      return PT::kInvalid;
    }
  }
  return PT::kF32;
}

// `x` with dimension `c` padded with zeros to `splits` * `part` and split
// into (splits, part).
HloInstruction* SplitDimension(HloComputation* comp, HloInstruction* x,
                               int64_t c, int64_t splits, int64_t part) {
  const PT t = x->shape().element_type();
  std::vector<int64_t> dims(x->shape().dimensions().begin(),
                            x->shape().dimensions().end());
  if (dims[c] != splits * part) {
    dims[c] = splits * part;
    HloInstruction* zero = AddFilledLike(comp, Shape(t, {}), 0, x);
    HloInstruction* pad =
        AddNew(comp, HloOpcode::kPad, LayoutLike(Shape(t, dims), x), {x, zero});
    PaddingConfig& config = pad->mutable_attrs().padding;
    for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
      const int64_t high =
          d == c ? splits * part - x->shape().dimensions(d) : 0;
      config.dimensions.push_back({0, high, 0});
    }
    x = pad;
  }
  dims[c] = part;
  dims.insert(dims.begin() + c, splits);
  return AddReshape(comp, x, LayoutLike(Shape(t, dims), x));
}

// Dimension numbers after inserting a dimension at `c`.
std::vector<int64_t> Shifted(const std::vector<int64_t>& dims, int64_t c) {
  std::vector<int64_t> out;
  for (int64_t d : dims) out.push_back(d > c ? d + 1 : d);
  return out;
}

HloComputation* AddComputationOf(HloModule* module, PT type) {
  auto add =
      std::make_unique<HloComputation>(module->NewComputationName("add"));
  HloComputation* c = module->AddComputation(std::move(add));
  const Shape scalar(type, {});
  std::vector<HloInstruction*> params;
  for (int64_t i = 0; i < 2; ++i) {
    std::unique_ptr<HloInstruction> p =
        HloInstruction::Create(HloOpcode::kParameter, scalar);
    p->set_index(i);
    p->set_name(module->NewInstructionName(i == 0 ? "x" : "y"));
    params.push_back(c->AddInstruction(std::move(p)));
  }
  c->set_root_instruction(AddNew(c, HloOpcode::kAdd, scalar, params));
  return c;
}

}  // namespace

bool CanSplitK(const HloInstruction& dot) {
  if (dot.opcode() != HloOpcode::kDot || dot.operand_count() != 2 ||
      HasControlDeps(&dot) || !dot.shape().IsArray()) {
    return false;
  }
  const DotDimensionNumbers& d = dot.attrs().dot->dnums;
  return d.lhs_contracting_dimensions.size() == 1 &&
         d.rhs_contracting_dimensions.size() == 1 &&
         PartialType(dot) != PT::kInvalid;
}

absl::StatusOr<HloInstruction*> SplitK(HloInstruction* dot, int64_t splits) {
  if (!CanSplitK(*dot) || splits < 2) {
    return absl::InvalidArgumentError("split-K of a dot it cannot split");
  }
  HloComputation* comp = dot->parent();
  const DotDimensionNumbers& d = dot->attrs().dot->dnums;
  const int64_t cl = d.lhs_contracting_dimensions[0];
  const int64_t cr = d.rhs_contracting_dimensions[0];
  const int64_t k = dot->operand(0)->shape().dimensions(cl);
  const int64_t part = (k + splits - 1) / splits;
  HloInstruction* lhs =
      SplitDimension(comp, dot->mutable_operand(0), cl, splits, part);
  HloInstruction* rhs =
      SplitDimension(comp, dot->mutable_operand(1), cr, splits, part);
  DotDimensionNumbers nd;
  nd.lhs_batch_dimensions = {cl};
  nd.rhs_batch_dimensions = {cr};
  for (int64_t b : Shifted(d.lhs_batch_dimensions, cl)) {
    nd.lhs_batch_dimensions.push_back(b);
  }
  for (int64_t b : Shifted(d.rhs_batch_dimensions, cr)) {
    nd.rhs_batch_dimensions.push_back(b);
  }
  nd.lhs_contracting_dimensions = {cl + 1};
  nd.rhs_contracting_dimensions = {cr + 1};
  const PT partial_type = PartialType(*dot);
  std::vector<int64_t> dims = {splits};
  for (int64_t x : dot->shape().dimensions()) dims.push_back(x);
  HloInstruction* partial =
      AddNew(comp, HloOpcode::kDot, LayoutLike(Shape(partial_type, dims), dot),
             {lhs, rhs});
  partial->mutable_attrs().dot->dnums = nd;
  partial->mutable_attrs().dot->algorithm = dot->attrs().dot->algorithm;
  partial->mutable_attrs().operand_precision = dot->attrs().operand_precision;
  // The sum over the splits, then the dot's type.
  HloInstruction* zero =
      AddFilledLike(comp, Shape(partial_type, {}), 0, partial);
  std::vector<int64_t> out(dot->shape().dimensions().begin(),
                           dot->shape().dimensions().end());
  HloInstruction* sum =
      AddNew(comp, HloOpcode::kReduce,
             LayoutLike(Shape(partial_type, out), dot), {partial, zero});
  *sum->mutable_dimensions() = {0};
  sum->set_has_dimensions(true);
  sum->AppendCalledComputation(AddComputationOf(comp->parent(), partial_type));
  HloInstruction* result = sum;
  if (dot->shape().element_type() != partial_type) {
    result =
        AddNew(comp, HloOpcode::kConvert,
               LayoutLike(Shape(dot->shape().element_type(), out), dot), {sum});
  }
  if (absl::Status s = ReplaceKeepingShape(dot, result); !s.ok()) return s;
  return partial;
}

}  // namespace xlite
