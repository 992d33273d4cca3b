#include "passes/scan_to_while.h"

#include <memory>
#include <vector>

#include "hlo/ir/opcode.h"
#include "passes/hlo_util.h"

namespace xlite {
namespace {

// What one scan instruction loops over.
struct ScanParts {
  HloInstruction* scan;
  int64_t dim;
  int64_t steps;
  int64_t inputs;
  int64_t carries;
  int64_t outputs;
  // The while state: (s64 t, inputs..., carries..., stacked outputs...).
  std::vector<Shape> state;
  int64_t carry_slot(int64_t c) const { return 1 + inputs + c; }
  int64_t output_slot(int64_t o) const { return 1 + inputs + carries + o; }
};

HloInstruction* Add(HloComputation* c, HloOpcode op, const Shape& shape,
                    std::vector<HloInstruction*> operands) {
  return AddNew(c, op, shape, operands);
}

HloInstruction* Element(HloComputation* c, HloInstruction* tuple, int64_t i) {
  HloInstruction* gte = Add(c, HloOpcode::kGetTupleElement,
                            tuple->shape().tuple_shapes(i), {tuple});
  gte->set_index(i);
  return gte;
}

HloInstruction* S64(HloComputation* c, int64_t value) {
  return AddConstant(c, Literal::ScalarInt(PrimitiveType::kS64, value));
}

// `x` in `shape` (a copy where only the layout differs; tuples are left to
// MakeLayoutsConsistent, which runs later).
HloInstruction* Coerce(HloComputation* c, HloInstruction* x,
                       const Shape& shape) {
  if (x->shape() == shape || shape.IsTuple()) return x;
  return Add(c, HloOpcode::kCopy, shape, {x});
}

HloInstruction* NewParameter(HloComputation* c, const Shape& shape) {
  std::unique_ptr<HloInstruction> p =
      HloInstruction::Create(HloOpcode::kParameter, shape);
  p->set_index(0);
  p->set_name(c->parent()->NewInstructionName("state"));
  return c->AddInstruction(std::move(p));
}

// `shape` with dimension `dim` of size 1 (default layout).
Shape UnitAt(const Shape& shape, int64_t dim, int64_t at_size = 1) {
  std::vector<int64_t> dims(shape.dimensions().begin(),
                            shape.dimensions().end());
  dims.insert(dims.begin() + dim, at_size);
  return Shape(shape.element_type(), dims);
}

HloComputation* BuildCondition(HloModule& module, const ScanParts& p) {
  auto owned = std::make_unique<HloComputation>(
      module.NewComputationName(p.scan->name() + ".cond"));
  HloComputation* c = module.AddComputation(std::move(owned));
  HloInstruction* state = NewParameter(c, Shape::Tuple(p.state));
  HloInstruction* lt =
      Add(c, HloOpcode::kCompare, Shape(PrimitiveType::kPred, {}),
          {Element(c, state, 0), S64(c, p.steps)});
  lt->mutable_attrs().direction = ComparisonDirection::kLt;
  lt->mutable_attrs().comparison_type = ComparisonType::kSigned;
  c->set_root_instruction(lt);
  return c;
}

HloComputation* BuildBody(HloModule& module, const ScanParts& p) {
  auto owned = std::make_unique<HloComputation>(
      module.NewComputationName(p.scan->name() + ".body"));
  HloComputation* c = module.AddComputation(std::move(owned));
  HloComputation* f = p.scan->to_apply();
  HloInstruction* state = NewParameter(c, Shape::Tuple(p.state));
  HloInstruction* t = Element(c, state, 0);
  HloInstruction* at =
      p.scan->attrs().is_reverse
          ? Add(c, HloOpcode::kSubtract, t->shape(), {S64(c, p.steps - 1), t})
          : t;
  // Start indices: `at` along the scanned dimension, 0 elsewhere.
  auto starts = [&](int64_t rank) {
    std::vector<HloInstruction*> s;
    for (int64_t d = 0; d < rank; ++d) s.push_back(d == p.dim ? at : S64(c, 0));
    return s;
  };
  std::vector<HloInstruction*> args, next(p.state.size());
  for (int64_t i = 0; i < p.inputs; ++i) {
    HloInstruction* input = Element(c, state, 1 + i);
    next[1 + i] = input;
    const Shape& slab = f->parameter_instruction(i)->shape();
    std::vector<HloInstruction*> operands = {input};
    for (HloInstruction* s : starts(input->shape().rank())) {
      operands.push_back(s);
    }
    HloInstruction* slice =
        Add(c, HloOpcode::kDynamicSlice, UnitAt(slab, p.dim), operands);
    std::vector<int64_t> sizes(slice->shape().dimensions().begin(),
                               slice->shape().dimensions().end());
    slice->mutable_attrs().dynamic_slice_sizes = sizes;
    args.push_back(AddReshape(c, slice, slab));
  }
  for (int64_t k = 0; k < p.carries; ++k) {
    args.push_back(Element(c, state, p.carry_slot(k)));
  }
  HloInstruction* call =
      Add(c, HloOpcode::kCall, f->root_instruction()->shape(), args);
  call->AppendCalledComputation(f);
  for (int64_t k = 0; k < p.carries; ++k) {
    next[p.carry_slot(k)] =
        Coerce(c, Element(c, call, p.outputs + k), p.state[p.carry_slot(k)]);
  }
  for (int64_t o = 0; o < p.outputs; ++o) {
    HloInstruction* stacked = Element(c, state, p.output_slot(o));
    HloInstruction* part = Element(c, call, o);
    HloInstruction* update = AddReshape(c, part, UnitAt(part->shape(), p.dim));
    std::vector<HloInstruction*> operands = {stacked, update};
    for (HloInstruction* s : starts(stacked->shape().rank())) {
      operands.push_back(s);
    }
    next[p.output_slot(o)] =
        Add(c, HloOpcode::kDynamicUpdateSlice, stacked->shape(), operands);
  }
  next[0] = Add(c, HloOpcode::kAdd, t->shape(), {t, S64(c, 1)});
  c->set_root_instruction(
      Add(c, HloOpcode::kTuple, Shape::Tuple(p.state), next));
  return c;
}

// Whether `scan` slices and stacks arrays (carries may be anything), as
// this rewrite handles.
bool Convertible(const HloInstruction* scan) {
  const int64_t carries = scan->attrs().num_carries;
  const int64_t inputs = scan->operand_count() - carries;
  const int64_t outputs = scan->shape().IsTuple()
                              ? scan->shape().tuple_shapes_size() - carries
                              : -1;
  if (inputs < 1 || carries < 0 || outputs < 0 ||
      scan->dimensions().size() != 1 || scan->to_apply() == nullptr) {
    return false;
  }
  for (int64_t i = 0; i < inputs; ++i) {
    if (!scan->operand(i)->shape().IsArray()) return false;
  }
  for (int64_t o = 0; o < outputs; ++o) {
    if (!scan->shape().tuple_shapes(o).IsArray()) return false;
  }
  const HloInstruction* root = scan->to_apply()->root_instruction();
  return root->shape().IsTuple() &&
         root->shape().tuple_shapes_size() ==
             scan->shape().tuple_shapes_size() &&
         scan->to_apply()->num_parameters() == scan->operand_count();
}

absl::Status Convert(HloInstruction* scan) {
  HloComputation* c = scan->parent();
  HloModule& module = *c->parent();
  ScanParts p{scan};
  p.carries = scan->attrs().num_carries;
  p.inputs = scan->operand_count() - p.carries;
  p.outputs = scan->shape().tuple_shapes_size() - p.carries;
  p.dim = scan->dimensions(0);
  p.steps = scan->operand(0)->shape().dimensions(p.dim);
  p.state.push_back(Shape(PrimitiveType::kS64, {}));
  std::vector<HloInstruction*> init = {S64(c, 0)};
  for (int64_t i = 0; i < p.inputs + p.carries; ++i) {
    p.state.push_back(scan->operand(i)->shape());
    init.push_back(scan->mutable_operand(i));
  }
  for (int64_t o = 0; o < p.outputs; ++o) {
    const Shape& out = scan->shape().tuple_shapes(o);
    p.state.push_back(out);
    init.push_back(AddFilledLike(c, out, 0, scan));
  }
  HloComputation* condition = BuildCondition(module, p);
  HloComputation* body = BuildBody(module, p);
  HloInstruction* loop =
      Add(c, HloOpcode::kWhile, Shape::Tuple(p.state),
          {Add(c, HloOpcode::kTuple, Shape::Tuple(p.state), init)});
  loop->AppendCalledComputation(body);
  loop->AppendCalledComputation(condition);
  loop->set_location(scan->location());
  std::vector<HloInstruction*> results;
  for (int64_t o = 0; o < p.outputs; ++o) {
    results.push_back(Element(c, loop, p.output_slot(o)));
  }
  for (int64_t k = 0; k < p.carries; ++k) {
    results.push_back(Coerce(c, Element(c, loop, p.carry_slot(k)),
                             scan->shape().tuple_shapes(p.outputs + k)));
  }
  return ReplaceKeepingShape(scan,
                             Add(c, HloOpcode::kTuple, scan->shape(), results));
}

}  // namespace

absl::StatusOr<bool> ConvertScanToWhile(HloModule& module) {
  bool changed = false;
  for (HloComputation* c : module.MakeComputationPostOrder()) {
    for (HloInstruction* scan : InstructionsWithOpcode(c, HloOpcode::kScan)) {
      if (!Convertible(scan)) continue;
      if (absl::Status s = Convert(scan); !s.ok()) return s;
      changed = true;
    }
  }
  return changed;
}

}  // namespace xlite
