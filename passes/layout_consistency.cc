#include "passes/layout_consistency.h"

#include <vector>

#include "hlo/ir/opcode.h"

namespace xlite {

namespace {

// Dimension numbers major to minor (row-major where no full layout is set).
std::vector<int64_t> MajorToMinorOrder(const Shape& shape) {
  std::vector<int64_t> order;
  if (shape.has_layout() &&
      static_cast<int64_t>(shape.layout().minor_to_major().size()) ==
          shape.rank()) {
    const auto& m2m = shape.layout().minor_to_major();
    order.assign(m2m.rbegin(), m2m.rend());
  } else {
    for (int64_t d = 0; d < shape.rank(); ++d) order.push_back(d);
  }
  return order;
}

bool SameLayouts(const Shape& a, const Shape& b) {
  if (a.IsTuple() != b.IsTuple()) return false;
  if (a.IsTuple()) {
    if (a.tuple_shapes_size() != b.tuple_shapes_size()) return false;
    for (int64_t i = 0; i < a.tuple_shapes_size(); ++i) {
      if (!SameLayouts(a.tuple_shapes(i), b.tuple_shapes(i))) return false;
    }
    return true;
  }
  if (!a.IsArray() || !b.IsArray()) return true;
  return MajorToMinorOrder(a) == MajorToMinorOrder(b);
}

// `value` converted to `target`'s layouts (copies of the leaves that
// differ), as a new instruction of `computation`.
HloInstruction* Convert(HloComputation& computation, HloInstruction* value,
                        const Shape& target) {
  if (SameLayouts(value->shape(), target)) return value;
  if (!target.IsTuple()) {
    return computation.AddInstruction(
        HloInstruction::Create(HloOpcode::kCopy, target, {value}));
  }
  std::vector<HloInstruction*> elements;
  for (int64_t i = 0; i < target.tuple_shapes_size(); ++i) {
    auto gte = HloInstruction::Create(HloOpcode::kGetTupleElement,
                                      value->shape().tuple_shapes(i), {value});
    gte->set_index(i);
    HloInstruction* element = computation.AddInstruction(std::move(gte));
    elements.push_back(Convert(computation, element, target.tuple_shapes(i)));
  }
  return computation.AddInstruction(
      HloInstruction::Create(HloOpcode::kTuple, target, elements));
}

class Propagator {
 public:
  bool changed() const { return changed_; }

  void Process(HloComputation& computation) {
    for (HloInstruction* instruction :
         computation.MakeInstructionPostOrder()) {
      Visit(computation, instruction);
    }
  }

 private:
  void SetShape(HloInstruction* instruction, const Shape& shape) {
    if (SameLayouts(instruction->shape(), shape)) return;
    *instruction->mutable_shape() = shape;
    changed_ = true;
  }

  // The callee's root converted to `target`.
  void FixRoot(HloComputation& callee, const Shape& target) {
    HloInstruction* root = callee.root_instruction();
    HloInstruction* converted = Convert(callee, root, target);
    if (converted != root) {
      callee.set_root_instruction(converted);
      changed_ = true;
    }
  }

  void Visit(HloComputation& computation, HloInstruction* hlo) {
    (void)computation;
    switch (hlo->opcode()) {
      case HloOpcode::kTuple:
        for (int64_t i = 0; i < hlo->operand_count(); ++i) {
          Shape shape = hlo->shape();
          *shape.MutableSubshape({i}) = hlo->operand(i)->shape();
          SetShape(hlo, shape);
        }
        return;
      case HloOpcode::kGetTupleElement:
        SetShape(hlo, *hlo->operand(0)->shape().Subshape({hlo->tuple_index()}));
        return;
      case HloOpcode::kOptimizationBarrier:
      case HloOpcode::kAddDependency:
      case HloOpcode::kDomain:
        SetShape(hlo, hlo->operand(0)->shape());
        return;
      case HloOpcode::kWhile: {
        const Shape state = hlo->operand(0)->shape();
        SetShape(hlo, state);
        for (HloComputation* callee : {hlo->while_condition(), hlo->while_body()}) {
          SetShape(callee->parameter_instructions()[0], state);
          Process(*callee);
        }
        FixRoot(*hlo->while_body(), state);
        return;
      }
      case HloOpcode::kConditional: {
        const auto& branches = hlo->called_computations();
        for (size_t k = 0; k < branches.size(); ++k) {
          SetShape(branches[k]->parameter_instructions()[0],
                   hlo->operand(k + 1)->shape());
          Process(*branches[k]);
        }
        const Shape result = branches[0]->root_instruction()->shape();
        SetShape(hlo, result);
        for (size_t k = 1; k < branches.size(); ++k) FixRoot(*branches[k], result);
        return;
      }
      case HloOpcode::kCall: {
        HloComputation* callee = hlo->to_apply();
        for (int64_t i = 0; i < hlo->operand_count(); ++i) {
          SetShape(callee->parameter_instructions()[i], hlo->operand(i)->shape());
        }
        Process(*callee);
        SetShape(hlo, callee->root_instruction()->shape());
        return;
      }
      default:
        return;
    }
  }

  bool changed_ = false;
};

}  // namespace

absl::StatusOr<bool> MakeLayoutsConsistent(HloModule& module) {
  Propagator propagator;
  propagator.Process(*module.entry_computation());
  return propagator.changed();
}

}  // namespace xlite
