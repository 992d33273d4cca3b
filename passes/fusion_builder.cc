#include "passes/fusion_builder.h"

#include <deque>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/ir/module.h"

namespace xlite {
namespace {

// Copies members into one new fused computation.
class FusedComputationBuilder {
 public:
  FusedComputationBuilder(HloComputation& parent, absl::string_view root_name)
      : parent_(parent), module_(*parent.parent()) {
    fused_ = std::make_unique<HloComputation>(
        module_.NewComputationName(absl::StrCat("fused_", root_name)));
    fused_->set_execution_thread(parent.execution_thread());
  }

  // Copies `member` (inlining a fusion's body); operands already copied
  // are read directly, others through parameters. Returns the copy of what
  // `member` computes.
  HloInstruction* Inline(HloInstruction* member) {
    HloInstruction* result;
    if (member->opcode() == HloOpcode::kFusion) {
      absl::flat_hash_map<const HloInstruction*, HloInstruction*> inner;
      const HloComputation* body = member->fused_computation();
      for (const HloInstruction* h : body->MakeInstructionPostOrder()) {
        if (h->opcode() == HloOpcode::kParameter) {
          inner[h] = ValueOf(member->mutable_operand(h->parameter_number()));
          continue;
        }
        std::vector<HloInstruction*> operands;
        for (const HloInstruction* o : h->operands()) {
          operands.push_back(inner.at(o));
        }
        inner[h] = Add(h->CloneWithNewOperands(h->shape(), operands), h->name());
      }
      result = inner.at(body->root_instruction());
    } else {
      std::vector<HloInstruction*> operands;
      for (HloInstruction* o : member->operands()) {
        operands.push_back(ValueOf(o));
      }
      result = Add(member->CloneWithNewOperands(member->shape(), operands),
                   member->name());
    }
    copies_[member] = result;
    return result;
  }

  // The copies of what `value` computes, one per result leaf.
  std::vector<HloInstruction*> Leaves(HloInstruction* copy) {
    if (copy->opcode() == HloOpcode::kTuple) {
      dropped_tuples_.push_back(copy);  // replaced by the new root tuple
      return copy->operands();
    }
    if (!copy->shape().IsTuple()) return {copy};
    std::vector<HloInstruction*> leaves;
    for (int64_t i = 0; i < copy->shape().tuple_shapes_size(); ++i) {
      auto gte = HloInstruction::Create(HloOpcode::kGetTupleElement,
                                        copy->shape().tuple_shapes(i), {copy});
      gte->set_index(i);
      leaves.push_back(Add(std::move(gte), "get-tuple-element"));
    }
    return leaves;
  }

  HloInstruction* Tuple(const std::vector<HloInstruction*>& leaves) {
    std::vector<Shape> shapes;
    for (const HloInstruction* l : leaves) shapes.push_back(l->shape());
    return Add(HloInstruction::Create(HloOpcode::kTuple, Shape::Tuple(shapes),
                                      leaves),
               "tuple");
  }

  // Adds the computation and a fusion instruction computing `root`.
  HloInstruction* Finish(HloInstruction* root, FusionKind kind,
                         const HloInstruction* origin) {
    fused_->set_root_instruction(root);
    for (HloInstruction* tuple : dropped_tuples_) {
      if (tuple != root && tuple->users().empty()) {
        // Only fails for an instruction of another computation.
        fused_->RemoveInstruction(tuple).IgnoreError();
      }
    }
    const Shape shape = root->shape();
    HloComputation* callee = module_.AddComputation(std::move(fused_));
    auto fusion = HloInstruction::Create(HloOpcode::kFusion, shape, outside_);
    fusion->mutable_attrs().fusion_kind = kind;
    fusion->AppendCalledComputation(callee);
    const char* prefix = kind == FusionKind::kInput ? "input_fusion"
                                                    : "loop_fusion";
    fusion->set_name(module_.NewInstructionName(
        shape.IsTuple() ? "multi_output_fusion" : prefix));
    if (origin->has_metadata()) fusion->set_metadata(origin->metadata());
    fusion->set_location(origin->location());
    return parent_.AddInstruction(std::move(fusion));
  }

 private:
  HloInstruction* ValueOf(HloInstruction* value) {
    if (auto it = copies_.find(value); it != copies_.end()) return it->second;
    auto [it, inserted] = parameters_.try_emplace(value, nullptr);
    if (inserted) {
      const int64_t number = static_cast<int64_t>(outside_.size());
      auto p = HloInstruction::Create(HloOpcode::kParameter, value->shape());
      p->set_index(number);
      it->second = Add(std::move(p), absl::StrCat("param_", number));
      outside_.push_back(value);
    }
    return it->second;
  }

  HloInstruction* Add(std::unique_ptr<HloInstruction> h,
                      absl::string_view name) {
    h->set_name(module_.NewInstructionName(name));
    return fused_->AddInstruction(std::move(h));
  }

  HloComputation& parent_;
  HloModule& module_;
  std::unique_ptr<HloComputation> fused_;
  std::vector<HloInstruction*> outside_;  // the fusion's operands, in order
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> parameters_;
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> copies_;
  std::vector<HloInstruction*> dropped_tuples_;
};

}  // namespace

HloInstruction* BuildFusion(HloComputation& parent,
                            absl::Span<HloInstruction* const> members,
                            HloInstruction* root, FusionKind kind) {
  FusedComputationBuilder builder(parent, root->name());
  HloInstruction* root_copy = nullptr;
  for (HloInstruction* m : members) {
    HloInstruction* copy = builder.Inline(m);
    if (m == root) root_copy = copy;
  }
  return builder.Finish(root_copy, kind, root);
}

HloInstruction* FuseProducerIntoConsumer(HloComputation& parent,
                                         HloInstruction* producer,
                                         HloInstruction* consumer,
                                         FusionKind kind,
                                         bool producer_as_output) {
  FusedComputationBuilder builder(parent, consumer->name());
  HloInstruction* produced = builder.Inline(producer);
  HloInstruction* root = builder.Inline(consumer);
  if (producer_as_output) {
    std::vector<HloInstruction*> leaves = builder.Leaves(root);
    leaves.push_back(produced);
    root = builder.Tuple(leaves);
  }
  return builder.Finish(root, kind, consumer);
}

HloInstruction* MergeIntoMultiOutput(HloComputation& parent, HloInstruction* a,
                                     HloInstruction* b, FusionKind kind) {
  FusedComputationBuilder builder(parent,
                                  absl::StrCat(a->name(), "_", b->name()));
  std::vector<HloInstruction*> leaves = builder.Leaves(builder.Inline(a));
  for (HloInstruction* leaf : builder.Leaves(builder.Inline(b))) {
    leaves.push_back(leaf);
  }
  if (a->opcode() == HloOpcode::kFusion) kind = a->attrs().fusion_kind;
  return builder.Finish(builder.Tuple(leaves), kind, a);
}

int64_t ResultLeafCount(const HloInstruction& hlo) {
  if (hlo.opcode() == HloOpcode::kFusion) {
    const HloInstruction* root = hlo.fused_computation()->root_instruction();
    if (root->opcode() == HloOpcode::kTuple) return root->operand_count();
  }
  return hlo.shape().IsTuple() ? hlo.shape().tuple_shapes_size() : 1;
}

absl::Status RedirectToMultiOutput(HloComputation& parent, HloInstruction* old,
                                   HloInstruction* merged, int64_t first) {
  HloModule& module = *parent.parent();
  if (old->shape().IsTuple()) {
    for (HloInstruction* user : std::vector<HloInstruction*>(old->users())) {
      if (user->opcode() != HloOpcode::kGetTupleElement) {
        return absl::InternalError(absl::StrCat(
            "a multi-output result read whole by ", user->name()));
      }
      user->set_index(first + user->tuple_index());
      for (int64_t i = 0; i < user->operand_count(); ++i) {
        if (user->operand(i) != old) continue;
        if (absl::Status s = user->ReplaceOperandWithDifferentShape(i, merged);
            !s.ok()) {
          return s;
        }
      }
    }
  } else {
    auto gte = HloInstruction::Create(HloOpcode::kGetTupleElement,
                                      old->shape(), {merged});
    gte->set_index(first);
    gte->set_name(module.NewInstructionName(old->name()));
    HloInstruction* read = parent.AddInstruction(std::move(gte));
    if (absl::Status s = old->ReplaceAllUsesWith(read); !s.ok()) return s;
    if (parent.root_instruction() == old) parent.set_root_instruction(read);
  }
  return parent.RemoveInstruction(old);
}

absl::Status RemoveUncalledComputations(
    HloModule& module, absl::Span<HloComputation* const> candidates) {
  absl::flat_hash_set<const HloComputation*> called;
  for (const HloComputation* c : module.computations()) {
    for (const HloInstruction* h : c->instructions()) {
      for (const HloComputation* callee : h->called_computations()) {
        called.insert(callee);
      }
    }
  }
  absl::flat_hash_set<const HloComputation*> removed;
  for (HloComputation* c : candidates) {
    if (called.contains(c) || c == module.entry_computation() ||
        !removed.insert(c).second) {
      continue;
    }
    if (absl::Status s = module.RemoveComputation(c); !s.ok()) return s;
  }
  return absl::OkStatus();
}

std::vector<HloComputation*> SequentialComputations(const HloModule& module) {
  std::vector<HloComputation*> result;
  absl::flat_hash_set<const HloComputation*> seen;
  std::deque<HloComputation*> queue = {module.entry_computation()};
  while (!queue.empty()) {
    HloComputation* c = queue.front();
    queue.pop_front();
    if (c == nullptr || !seen.insert(c).second) continue;
    result.push_back(c);
    for (const HloInstruction* hlo : c->instructions()) {
      switch (hlo->opcode()) {
        case HloOpcode::kWhile:
        case HloOpcode::kConditional:
        case HloOpcode::kCall:
          for (HloComputation* callee : hlo->called_computations()) {
            queue.push_back(callee);
          }
          break;
        default:
          break;
      }
    }
  }
  return result;
}

}  // namespace xlite
