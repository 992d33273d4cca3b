#include "passes/hlo_util.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "hlo/ir/opcode.h"

namespace xlite {

Shape LayoutLike(Shape shape, const HloInstruction* like) {
  const Shape& s = like->shape();
  const bool has = s.IsTuple() ? (s.tuple_shapes_size() > 0 &&
                                  s.tuple_shapes(0).has_layout())
                               : s.has_layout();
  if (has) {
    shape.FillMissingLayouts();
  } else {
    shape.ClearLayouts();
  }
  return shape;
}

Shape WithElementType(const Shape& shape, PrimitiveType type) {
  Shape out = shape;
  out.set_element_type(type);
  if (out.has_layout()) out.mutable_layout().set_element_size_in_bits(0);
  return out;
}

HloInstruction* AddNew(HloComputation* c, HloOpcode opcode, const Shape& shape,
                       absl::Span<HloInstruction* const> operands) {
  std::unique_ptr<HloInstruction> hlo =
      HloInstruction::Create(opcode, shape, operands);
  HloModule* module = c->parent();
  const std::string prefix(HloOpcodeString(opcode));
  hlo->set_name(module != nullptr ? module->NewInstructionName(prefix)
                                  : prefix);
  return c->AddInstruction(std::move(hlo));
}

HloInstruction* AddConstant(HloComputation* c, Literal literal) {
  Shape shape = literal.shape();
  HloInstruction* hlo = AddNew(c, HloOpcode::kConstant, shape, {});
  hlo->mutable_attrs().literal = std::move(literal);
  return hlo;
}

HloInstruction* AddFilledLike(HloComputation* c, const Shape& shape,
                              double value, const HloInstruction* like) {
  Literal scalar = Literal::Scalar(shape.element_type(), value);
  scalar.mutable_shape_for_layout() =
      LayoutLike(Shape(shape.element_type(), {}), like);
  HloInstruction* constant = AddConstant(c, std::move(scalar));
  if (shape.rank() == 0) return constant;
  return AddBroadcast(c, constant, shape, {});
}

HloInstruction* AddFilledFrom(HloComputation* c, const Shape& shape,
                              const HloInstruction* uniform) {
  const HloInstruction* source = uniform;
  while (source->opcode() != HloOpcode::kConstant) source = source->operand(0);
  Literal scalar = Literal::Scalar(shape.element_type(), 0);
  scalar.SetBits(0, source->attrs().literal->GetBits(0));
  scalar.mutable_shape_for_layout() =
      LayoutLike(Shape(shape.element_type(), {}), uniform);
  HloInstruction* constant = AddConstant(c, std::move(scalar));
  if (shape.rank() == 0) return constant;
  return AddBroadcast(c, constant, shape, {});
}

HloInstruction* AddBroadcast(HloComputation* c, HloInstruction* operand,
                             const Shape& shape,
                             std::vector<int64_t> dimensions) {
  HloInstruction* b = AddNew(c, HloOpcode::kBroadcast, shape, {operand});
  *b->mutable_dimensions() = std::move(dimensions);
  b->set_has_dimensions(true);
  return b;
}

HloInstruction* AddReshape(HloComputation* c, HloInstruction* operand,
                           const Shape& shape) {
  return AddNew(c, HloOpcode::kReshape, shape, {operand});
}

bool IsRemovableWhenDead(const HloInstruction* hlo) {
  return hlo->opcode() != HloOpcode::kParameter && !HasSideEffectDeep(hlo) &&
         hlo->control_successors().empty() && !hlo->IsRoot();
}

absl::Status ReplaceInstruction(HloInstruction* old,
                                HloInstruction* replacement,
                                bool always_remove) {
  if (old == replacement) return absl::OkStatus();
  absl::Status s = old->ReplaceAllUsesWith(replacement);
  if (!s.ok()) return s;
  // Control edges move to the replacement.
  for (HloInstruction* succ : std::vector<HloInstruction*>(
           old->control_successors())) {
    s = old->RemoveControlDependencyTo(succ);
    if (!s.ok()) return s;
    if (succ != replacement) {
      s = replacement->AddControlDependencyTo(succ);
      if (!s.ok()) return s;
    }
  }
  for (HloInstruction* pred : std::vector<HloInstruction*>(
           old->control_predecessors())) {
    s = pred->RemoveControlDependencyTo(old);
    if (!s.ok()) return s;
    if (pred != replacement) {
      s = pred->AddControlDependencyTo(replacement);
      if (!s.ok()) return s;
    }
  }
  HloComputation* c = old->parent();
  if (!old->users().empty() || old->IsRoot() ||
      old->opcode() == HloOpcode::kParameter) {
    return absl::OkStatus();
  }
  std::vector<HloInstruction*> worklist;
  if (always_remove) {
    worklist = old->operands();
    s = c->RemoveInstruction(old);
    if (!s.ok()) return s;
  } else if (IsRemovableWhenDead(old)) {
    worklist = {old};
  }
  // Remove `old` and operands that are dead now.
  absl::flat_hash_set<HloInstruction*> seen;
  while (!worklist.empty()) {
    HloInstruction* h = worklist.back();
    worklist.pop_back();
    if (!seen.insert(h).second) continue;
    if (!h->users().empty() || !IsRemovableWhenDead(h) || h == replacement) {
      seen.erase(h);
      continue;
    }
    std::vector<HloInstruction*> operands = h->operands();
    s = c->RemoveInstruction(h);
    if (!s.ok()) return s;
    for (HloInstruction* o : operands) worklist.push_back(o);
  }
  return absl::OkStatus();
}

absl::Status ReplaceKeepingShape(HloInstruction* old,
                                 HloInstruction* replacement) {
  if (replacement->shape() != old->shape() &&
      replacement->users().empty() && replacement != old) {
    *replacement->mutable_shape() = old->shape();
    if (replacement->opcode() == HloOpcode::kConstant &&
        replacement->attrs().literal.has_value()) {
      replacement->mutable_attrs().literal->mutable_shape_for_layout() =
          old->shape();
    }
  }
  return ReplaceInstruction(old, replacement);
}

std::optional<double> UniformValue(const HloInstruction* hlo) {
  while (hlo->opcode() == HloOpcode::kBroadcast ||
         hlo->opcode() == HloOpcode::kReshape ||
         hlo->opcode() == HloOpcode::kCopy ||
         hlo->opcode() == HloOpcode::kBitcast) {
    if (hlo->opcode() == HloOpcode::kBitcast &&
        hlo->shape().element_type() !=
            hlo->operand(0)->shape().element_type()) {
      return std::nullopt;
    }
    hlo = hlo->operand(0);
  }
  if (hlo->opcode() != HloOpcode::kConstant || !hlo->has_attrs() ||
      !hlo->attrs().literal.has_value()) {
    return std::nullopt;
  }
  const Literal& l = *hlo->attrs().literal;
  if (l.is_unknown() || !l.shape().IsArray() || l.element_count() == 0) {
    return std::nullopt;
  }
  const PrimitiveType t = l.shape().element_type();
  if (t == PrimitiveType::kC64 || t == PrimitiveType::kC128) {
    return std::nullopt;
  }
  const uint64_t bits = l.GetBits(0);
  for (int64_t i = 1; i < l.element_count(); ++i) {
    if (l.GetBits(i) != bits) return std::nullopt;
  }
  return l.GetAsDouble(0);
}

bool IsUniform(const HloInstruction* hlo, double value) {
  std::optional<double> v = UniformValue(hlo);
  return v.has_value() && *v == value;
}

bool IsConstantLike(const HloInstruction* hlo) {
  while (hlo->opcode() == HloOpcode::kBroadcast) hlo = hlo->operand(0);
  return hlo->opcode() == HloOpcode::kConstant;
}

std::vector<HloInstruction*> InstructionsWithOpcode(const HloComputation* c,
                                                    HloOpcode opcode) {
  std::vector<HloInstruction*> out;
  for (HloInstruction* h : c->MakeInstructionPostOrder()) {
    if (h->opcode() == opcode) out.push_back(h);
  }
  return out;
}

std::vector<HloComputation*> ReachableComputations(const HloModule& module) {
  std::vector<HloComputation*> post = module.MakeComputationPostOrder();
  std::reverse(post.begin(), post.end());
  return post;
}

absl::flat_hash_set<const HloComputation*> FusionComputations(
    const HloModule& module) {
  absl::flat_hash_set<const HloComputation*> out;
  std::vector<const HloComputation*> work;
  for (const HloComputation* c : module.computations()) {
    for (const HloInstruction* h : c->instructions()) {
      if (h->opcode() == HloOpcode::kFusion) {
        for (const HloComputation* f : h->called_computations()) {
          work.push_back(f);
        }
      }
    }
  }
  // Computations nested in fused computations are fused too.
  while (!work.empty()) {
    const HloComputation* c = work.back();
    work.pop_back();
    if (!out.insert(c).second) continue;
    for (const HloInstruction* h : c->instructions()) {
      for (const HloComputation* f : h->called_computations()) {
        work.push_back(f);
      }
    }
  }
  return out;
}

bool HasSideEffectDeep(const HloInstruction* hlo) {
  if (hlo->HasSideEffect()) return true;
  for (const HloComputation* c : hlo->called_computations()) {
    for (const HloInstruction* h : c->instructions()) {
      if (HasSideEffectDeep(h)) return true;
    }
  }
  return false;
}

bool SameInstructionIgnoringOperands(const HloInstruction& a,
                                     const HloInstruction& b) {
  if (!a.IdenticalIgnoringOperands(b)) return false;
  if (a.called_computations().size() != b.called_computations().size()) {
    return false;
  }
  for (size_t i = 0; i < a.called_computations().size(); ++i) {
    if (!ComputationsEquivalent(*a.called_computations()[i],
                                *b.called_computations()[i])) {
      return false;
    }
  }
  return true;
}

bool ComputationsEquivalent(const HloComputation& a, const HloComputation& b) {
  if (&a == &b) return true;
  if (a.num_parameters() != b.num_parameters() ||
      a.instruction_count() != b.instruction_count()) {
    return false;
  }
  std::vector<HloInstruction*> pa = a.MakeInstructionPostOrder();
  std::vector<HloInstruction*> pb = b.MakeInstructionPostOrder();
  if (pa.size() != pb.size()) return false;
  absl::flat_hash_map<const HloInstruction*, const HloInstruction*> map;
  for (size_t i = 0; i < pa.size(); ++i) {
    const HloInstruction* x = pa[i];
    const HloInstruction* y = pb[i];
    if (!SameInstructionIgnoringOperands(*x, *y)) return false;
    for (int64_t k = 0; k < x->operand_count(); ++k) {
      auto it = map.find(x->operand(k));
      if (it == map.end() || it->second != y->operand(k)) return false;
    }
    map[x] = y;
  }
  return map[a.root_instruction()] == b.root_instruction();
}

absl::flat_hash_map<const HloComputation*, int64_t> CallerCounts(
    const HloModule& module) {
  absl::flat_hash_map<const HloComputation*, int64_t> counts;
  for (const HloComputation* c : module.computations()) {
    for (const HloInstruction* h : c->instructions()) {
      for (const HloComputation* f : h->called_computations()) ++counts[f];
    }
  }
  return counts;
}

absl::StatusOr<HloInstruction*> InlineComputation(
    HloComputation* into, const HloComputation& callee,
    absl::Span<HloInstruction* const> args) {
  HloModule* module = into->parent();
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> map;
  for (const HloInstruction* h : callee.MakeInstructionPostOrder()) {
    if (h->opcode() == HloOpcode::kParameter) {
      map[h] = args[h->parameter_number()];
      continue;
    }
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* o : h->operands()) operands.push_back(map.at(o));
    std::unique_ptr<HloInstruction> copy =
        h->CloneWithNewOperands(h->shape(), operands);
    copy->set_name(module->NewInstructionName(h->name()));
    map[h] = into->AddInstruction(std::move(copy));
  }
  for (const HloInstruction* h : callee.instructions()) {
    for (const HloInstruction* s : h->control_successors()) {
      absl::Status st = map.at(h)->AddControlDependencyTo(map.at(s));
      if (!st.ok()) return st;
    }
  }
  return map.at(callee.root_instruction());
}

HloComputation* CloneComputation(HloModule& module,
                                 const HloComputation& computation,
                                 absl::string_view name) {
  auto clone = std::make_unique<HloComputation>(
      module.NewComputationName(name));
  clone->set_execution_thread(computation.execution_thread());
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> map;
  for (const HloInstruction* h : computation.MakeInstructionPostOrder()) {
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* o : h->operands()) operands.push_back(map.at(o));
    std::unique_ptr<HloInstruction> copy =
        h->CloneWithNewOperands(h->shape(), operands);
    copy->set_name(module.NewInstructionName(h->name()));
    map[h] = clone->AddInstruction(std::move(copy));
  }
  for (const HloInstruction* h : computation.instructions()) {
    for (const HloInstruction* s : h->control_successors()) {
      (void)map.at(h)->AddControlDependencyTo(map.at(s));
    }
  }
  clone->set_root_instruction(map.at(computation.root_instruction()));
  return module.AddComputation(std::move(clone));
}

}  // namespace xlite
