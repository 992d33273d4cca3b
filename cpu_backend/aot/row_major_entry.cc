#include "cpu_backend/aot/row_major_entry.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "cpu_backend/aot/c_interface.h"
#include "hlo/ir/literal.h"

namespace xlite::cpu {

namespace {

bool RowMajor(const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape& element : shape.tuple_shapes()) {
      if (!RowMajor(element)) return false;
    }
    return true;
  }
  return !shape.IsArray() || PhysicalOrderIsLogical(shape);
}

Shape RowMajorShape(const Shape& shape) {
  std::vector<int64_t> minor_to_major;
  for (int64_t d = shape.rank() - 1; d >= 0; --d) minor_to_major.push_back(d);
  Shape out = shape;
  out.set_layout(Layout(minor_to_major));
  return out;
}

HloInstruction* Add(HloComputation* c, HloOpcode opcode, const Shape& shape,
                    std::vector<HloInstruction*> operands,
                    const std::string& name) {
  auto instruction = HloInstruction::Create(opcode, shape, operands);
  instruction->set_name(c->parent()->NewInstructionName(name));
  return c->AddInstruction(std::move(instruction));
}

// `node`'s value with every array leaf row-major: `node` itself when it
// is, else copies of the leaves that are not under (new) tuples.
HloInstruction* RowMajorValue(HloComputation* c, HloInstruction* node) {
  const Shape& shape = node->shape();
  if (RowMajor(shape)) return node;
  if (!shape.IsTuple()) {
    return Add(c, HloOpcode::kCopy, RowMajorShape(shape), {node}, "copy");
  }
  std::vector<HloInstruction*> elements;
  std::vector<Shape> shapes;
  for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
    HloInstruction* element = node->opcode() == HloOpcode::kTuple
                                  ? node->mutable_operand(i)
                                  : nullptr;
    if (element == nullptr) {
      element = Add(c, HloOpcode::kGetTupleElement, shape.tuple_shapes(i),
                    {node}, "get-tuple-element");
      element->set_index(i);
    }
    elements.push_back(RowMajorValue(c, element));
    shapes.push_back(elements.back()->shape());
  }
  return Add(c, HloOpcode::kTuple, Shape::Tuple(std::move(shapes)), elements,
             "tuple");
}

// A parameter stored otherwise becomes row-major, copied for its users.
absl::StatusOr<bool> RowMajorParameter(HloComputation* c,
                                       HloInstruction* param) {
  const Shape old = param->shape();
  if (RowMajor(old)) return false;
  if (old.IsTuple()) {
    return LocatedError(
        param,
        absl::StrCat("an ahead-of-time library cannot pass %", param->name(),
                     ": a leaf of its ", old.ToString(true),
                     " is not stored row-major (only array parameters "
                     "are converted)"));
  }
  const std::vector<HloInstruction*> users = param->users();
  const bool root = c->root_instruction() == param;
  *param->mutable_shape() = RowMajorShape(old);
  HloInstruction* copy = Add(c, HloOpcode::kCopy, old, {param}, "copy");
  for (HloInstruction* user : users) {
    if (absl::Status s = param->ReplaceUseWith(user, copy); !s.ok()) {
      return s;
    }
  }
  if (root) c->set_root_instruction(copy);
  return true;
}

}  // namespace

absl::StatusOr<bool> MakeEntryRowMajor(HloModule& module) {
  HloComputation* entry = module.entry_computation();
  bool changed = false;
  for (HloInstruction* param : entry->parameter_instructions()) {
    absl::StatusOr<bool> done = RowMajorParameter(entry, param);
    if (!done.ok()) return done.status();
    changed |= *done;
  }
  HloInstruction* root = RowMajorValue(entry, entry->root_instruction());
  if (root != entry->root_instruction()) {
    entry->set_root_instruction(root);
    changed = true;
  }
  if (!changed) return false;
  std::vector<Shape> parameters;
  for (const HloInstruction* param : entry->parameter_instructions()) {
    parameters.push_back(param->shape());
  }
  module.config().entry_parameter_layouts = std::move(parameters);
  module.config().entry_result_layout = root->shape();
  entry->Resequence();
  return true;
}

}  // namespace xlite::cpu
