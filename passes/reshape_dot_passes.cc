// reshape-mover and dot-decomposer.

#include <algorithm>
#include <numeric>

#include "passes/hlo_util.h"
#include "passes/passes.h"

namespace xlite {
namespace {

bool IsRearrange(const HloInstruction* h) {
  return h->opcode() == HloOpcode::kReshape ||
         h->opcode() == HloOpcode::kTranspose;
}

// Same kind of rearrangement from same-shaped sources.
bool SameRearrange(const HloInstruction* a, const HloInstruction* b) {
  return a->opcode() == b->opcode() && a->dimensions() == b->dimensions() &&
         ShapesSameDimensions(a->operand(0)->shape(), b->operand(0)->shape()) &&
         ShapesSameDimensions(a->shape(), b->shape());
}

absl::StatusOr<bool> MoveReshapes(HloComputation* c, HloInstruction* h) {
  if (!IsElementwiseOpcode(h->opcode()) || h->HasSideEffect() ||
      HasControlDeps(h) ||
      !h->shape().IsArray() || h->operand_count() == 0) {
    return false;
  }
  const HloInstruction* first = nullptr;
  for (const HloInstruction* o : h->operands()) {
    if (IsRearrange(o) && !UniformValue(o).has_value()) {
      // Not across a bitcast-convert between widths, which adds or drops
      // a minor dimension.
      if (!ShapesSameDimensions(o->shape(), h->shape())) return false;
      if (first == nullptr) first = o;
      if (!SameRearrange(first, o)) return false;
    } else if (!UniformValue(o).has_value()) {
      return false;
    }
  }
  if (first == nullptr) return false;
  // Worth it only if some rearranged operand has no other user (it goes
  // away) — otherwise moving would only add work.
  bool frees = false;
  for (const HloInstruction* o : h->operands()) {
    if (IsRearrange(o) && o->user_count() == 1) frees = true;
  }
  if (!frees) return false;
  const Shape& source = first->operand(0)->shape();
  std::vector<HloInstruction*> operands;
  for (HloInstruction* o : h->operands()) {
    std::optional<double> v = UniformValue(o);
    if (v.has_value() && !(IsRearrange(o) && SameRearrange(first, o))) {
      Shape s(o->shape().element_type(), source.dimensions());
      operands.push_back(AddFilledFrom(c, LayoutLike(s, o), o));
    } else {
      operands.push_back(o->mutable_operand(0));
    }
  }
  Shape inner = LayoutLike(Shape(h->shape().element_type(), source.dimensions()), h);
  std::unique_ptr<HloInstruction> op = h->CloneWithNewOperands(inner, operands);
  op->set_name(c->parent()->NewInstructionName(h->name()));
  HloInstruction* moved = c->AddInstruction(std::move(op));
  std::unique_ptr<HloInstruction> re =
      first->CloneWithNewOperands(h->shape(), {moved});
  re->set_name(c->parent()->NewInstructionName(first->name()));
  HloInstruction* outer = c->AddInstruction(std::move(re));
  absl::Status s = ReplaceInstruction(h, outer);
  if (!s.ok()) return s;
  return true;
}

}  // namespace

absl::StatusOr<bool> RunReshapeMover(HloModule& module) {
  bool changed = false;
  for (HloComputation* c : module.computations()) {
    for (HloInstruction* h : c->MakeInstructionPostOrder()) {
      absl::StatusOr<bool> moved = MoveReshapes(c, h);
      if (!moved.ok()) return moved.status();
      changed |= *moved;
    }
  }
  return changed;
}

namespace {

std::vector<int64_t> Complement(int64_t rank, const std::vector<int64_t>& a,
                                const std::vector<int64_t>& b) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(a.begin(), a.end(), d) == a.end() &&
        std::find(b.begin(), b.end(), d) == b.end()) {
      out.push_back(d);
    }
  }
  return out;
}

bool Leading(const std::vector<int64_t>& dims) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

// Transposes `x` to `order` (when not the identity) and reshapes it to
// batch dims + the products of `groups`.
HloInstruction* Canonicalize(HloComputation* c, HloInstruction* x,
                             const std::vector<int64_t>& batch,
                             const std::vector<int64_t>& g1,
                             const std::vector<int64_t>& g2,
                             const HloInstruction* like) {
  std::vector<int64_t> order = batch;
  order.insert(order.end(), g1.begin(), g1.end());
  order.insert(order.end(), g2.begin(), g2.end());
  const Shape& s = x->shape();
  std::vector<int64_t> dims;
  for (int64_t d : order) dims.push_back(s.dimensions(d));
  if (!Leading(order)) {
    HloInstruction* t = AddNew(
        c, HloOpcode::kTranspose,
        LayoutLike(Shape(s.element_type(), dims), like), {x});
    *t->mutable_dimensions() = order;
    t->set_has_dimensions(true);
    x = t;
  }
  std::vector<int64_t> shape;
  for (int64_t d : batch) shape.push_back(s.dimensions(d));
  int64_t p1 = 1, p2 = 1;
  for (int64_t d : g1) p1 *= s.dimensions(d);
  for (int64_t d : g2) p2 *= s.dimensions(d);
  shape.push_back(p1);
  shape.push_back(p2);
  if (!ShapesSameDimensions(x->shape(), Shape(s.element_type(), shape))) {
    x = AddReshape(c, x, LayoutLike(Shape(s.element_type(), shape), like));
  }
  return x;
}

}  // namespace

absl::StatusOr<bool> RunDotDecomposer(HloModule& module) {
  bool changed = false;
  for (HloComputation* c : module.computations()) {
    for (HloInstruction* dot : c->MakeInstructionPostOrder()) {
      if (dot->opcode() != HloOpcode::kDot || dot->operand_count() != 2 ||
          !dot->shape().IsArray()) {
        continue;
      }
      const DotDimensionNumbers& d = dot->attrs().dot->dnums;
      const int64_t lrank = dot->operand(0)->shape().rank();
      const int64_t rrank = dot->operand(1)->shape().rank();
      const std::vector<int64_t> lfree =
          Complement(lrank, d.lhs_batch_dimensions, d.lhs_contracting_dimensions);
      const std::vector<int64_t> rfree =
          Complement(rrank, d.rhs_batch_dimensions, d.rhs_contracting_dimensions);
      const bool canonical_enough =
          d.lhs_contracting_dimensions.size() <= 1 &&
          d.rhs_contracting_dimensions.size() <= 1 && lfree.size() <= 1 &&
          rfree.size() <= 1 && Leading(d.lhs_batch_dimensions) &&
          Leading(d.rhs_batch_dimensions);
      if (canonical_enough) continue;
      HloInstruction* lhs =
          Canonicalize(c, dot->mutable_operand(0), d.lhs_batch_dimensions, lfree,
                       d.lhs_contracting_dimensions, dot);
      HloInstruction* rhs =
          Canonicalize(c, dot->mutable_operand(1), d.rhs_batch_dimensions,
                       d.rhs_contracting_dimensions, rfree, dot);
      const int64_t b = d.lhs_batch_dimensions.size();
      std::vector<int64_t> dims;
      for (int64_t i = 0; i < b; ++i) dims.push_back(lhs->shape().dimensions(i));
      dims.push_back(lhs->shape().dimensions(b));
      dims.push_back(rhs->shape().dimensions(b + 1));
      std::unique_ptr<HloInstruction> clone = dot->CloneWithNewOperands(
          LayoutLike(Shape(dot->shape().element_type(), dims), dot),
          {lhs, rhs});
      clone->set_name(module.NewInstructionName(dot->name()));
      DotDimensionNumbers& nd = clone->mutable_attrs().dot->dnums;
      nd.lhs_batch_dimensions.clear();
      nd.rhs_batch_dimensions.clear();
      for (int64_t i = 0; i < b; ++i) {
        nd.lhs_batch_dimensions.push_back(i);
        nd.rhs_batch_dimensions.push_back(i);
      }
      nd.lhs_contracting_dimensions = {b + 1};
      nd.rhs_contracting_dimensions = {b};
      HloInstruction* canonical = c->AddInstruction(std::move(clone));
      HloInstruction* result = AddReshape(c, canonical, dot->shape());
      absl::Status s = ReplaceInstruction(dot, result);
      if (!s.ok()) return s;
      changed = true;
    }
  }
  return changed;
}

}  // namespace xlite
