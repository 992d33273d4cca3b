// InsertCopies: the copies (and control dependencies) that keep every
// must-alias set of buffer assignment free of interference. The rules are
// XLA's copy insertion restated for one buffer per set:
//
// - while init: a leaf that is an entry parameter or a constant (their
//   bytes are not the loop's to overwrite), that appears twice, that the
//   caller still reads after the loop, or that the caller got from outside
//   (a branch or callee parameter) gets a copy; a reader the loop need not
//   precede is ordered before it instead. A leaf the loop only reads (its
//   body returns it unchanged, nothing reads it from the result) needs no
//   copy unless it appears twice.
// - while body root: a leaf that is not the same leaf of the parameter gets
//   a copy when it is a constant, another leaf of the parameter, or
//   repeated, or when the old state leaf is read at or after the point the
//   new one is written (an in-place update that is the last read aside).
//   Otherwise, and after every copy, control dependencies order the old
//   leaf's readers before the new leaf's definition.
// - conditional branch roots and call callee roots: a leaf that is a
//   constant, repeated, or not computed by the branch itself (a parameter,
//   forwarded) gets a copy.

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/alias_analysis.h"
#include "runtime/buffer_assignment.h"
#include "runtime/flatten_sequential_calls.h"

namespace xlite::runtime {
namespace {

using LeafSet = std::vector<ShapeIndex>;

// True if `to` runs after `from` in every schedule: a path of uses and
// control dependencies.
bool Reaches(const HloInstruction* from, const HloInstruction* to) {
  absl::flat_hash_set<const HloInstruction*> seen;
  std::vector<const HloInstruction*> stack = {from};
  while (!stack.empty()) {
    const HloInstruction* h = stack.back();
    stack.pop_back();
    if (h == to) return true;
    if (!seen.insert(h).second) continue;
    for (const HloInstruction* u : h->users()) stack.push_back(u);
    for (const HloInstruction* u : h->control_successors()) stack.push_back(u);
  }
  return false;
}

class CopyInserter {
 public:
  explicit CopyInserter(HloModule& module) : module_(module) {}

  absl::StatusOr<bool> Run();

 private:
  absl::Status Analyze();
  absl::Status ForWhileInit(HloInstruction* loop);
  absl::Status ForWhileBody(HloInstruction* loop);
  absl::Status ForCalleeRoot(HloComputation* callee);
  bool IsFixed(int v) const;
  bool IsReadOnlyState(const HloInstruction* loop, const ShapeIndex& leaf) const;
  std::vector<HloInstruction*> Readers(const HloComputation* c, int v) const;
  bool ReadsInPlace(const HloInstruction* d, int p, const ShapeIndex& out) const;
  bool LeavesEnclosingState(const HloInstruction* loop, const ShapeIndex& leaf,
                            const HloValue& value) const;
  absl::StatusOr<bool> OrderReadersBefore(HloComputation* body, int p,
                                  HloInstruction* d);

  HloInstruction* AddCopy(HloComputation* c, HloInstruction* operand);
  HloInstruction* Rebuild(HloComputation* c, HloInstruction* node,
                          const LeafSet& leaves, bool reuse_tuple);
  void ReplaceRoot(HloComputation* c, const LeafSet& leaves);

  HloModule& module_;
  std::optional<AliasAnalysis> analysis_;
  absl::flat_hash_set<const HloInstruction*> inserted_;
  bool changed_ = false;
};

absl::Status CopyInserter::Analyze() {
  absl::StatusOr<AliasAnalysis> analysis = AliasAnalysis::Run(module_);
  if (!analysis.ok()) return analysis.status();
  analysis_.emplace(*std::move(analysis));
  return absl::OkStatus();
}

bool CopyInserter::IsFixed(int v) const {
  const HloValue& value = analysis_->value(v);
  const HloOpcode op = value.instruction->opcode();
  return op == HloOpcode::kConstant ||
         (op == HloOpcode::kParameter && !value.is_phi &&
          value.instruction->parent() == module_.entry_computation());
}

// True when the loop never writes state leaf `leaf` (its body returns the
// parameter's leaf as it came) and nothing reads that leaf of the loop's
// result: the init's bytes can serve as the state, even a parameter's or
// a constant's, and however long the caller reads them.
bool CopyInserter::IsReadOnlyState(const HloInstruction* loop,
                                   const ShapeIndex& leaf) const {
  const HloComputation* body = loop->while_body();
  const int p = analysis_->ValueAt(body->parameter_instruction(0), leaf);
  if (p < 0 || analysis_->ValueAt(body->root_instruction(), leaf) != p ||
      leaf.empty() || loop->IsRoot()) {
    return false;
  }
  for (const HloInstruction* user : loop->users()) {
    if (user->opcode() != HloOpcode::kGetTupleElement ||
        user->tuple_index() == leaf[0]) {
      return false;
    }
  }
  return true;
}

std::vector<HloInstruction*> CopyInserter::Readers(const HloComputation* c,
                                                   int v) const {
  std::vector<HloInstruction*> readers;
  for (HloInstruction* h : c->instructions()) {
    for (int r : analysis_->ValuesRead(h)) {
      if (r == v) {
        readers.push_back(h);
        break;
      }
    }
  }
  return readers;
}

HloInstruction* CopyInserter::AddCopy(HloComputation* c,
                                      HloInstruction* operand) {
  std::unique_ptr<HloInstruction> copy =
      HloInstruction::Create(HloOpcode::kCopy, operand->shape(), {operand});
  copy->set_name(module_.NewInstructionName("copy"));
  HloInstruction* added = c->AddInstruction(std::move(copy));
  inserted_.insert(added);
  changed_ = true;
  return added;
}

// `node` with a copy at each of `leaves` (relative to it): a new tuple over
// the untouched elements, or `node` itself mutated when `reuse_tuple` and
// it is a tuple nothing else reads.
HloInstruction* CopyInserter::Rebuild(HloComputation* c, HloInstruction* node,
                                      const LeafSet& leaves,
                                      bool reuse_tuple) {
  if (leaves.empty()) return node;
  for (const ShapeIndex& leaf : leaves) {
    if (leaf.empty()) return AddCopy(c, node);
  }
  const Shape& shape = node->shape();
  const bool in_place = reuse_tuple && node->opcode() == HloOpcode::kTuple;
  std::vector<HloInstruction*> elements;
  for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
    LeafSet sub;
    for (const ShapeIndex& leaf : leaves) {
      if (leaf[0] == i) sub.push_back(ShapeIndex(leaf.begin() + 1, leaf.end()));
    }
    HloInstruction* element = nullptr;
    if (node->opcode() == HloOpcode::kTuple) {
      element = node->mutable_operand(i);
    } else {
      auto gte = HloInstruction::Create(HloOpcode::kGetTupleElement,
                                        shape.tuple_shapes(i), {node});
      gte->set_index(i);
      gte->set_name(module_.NewInstructionName("get-tuple-element"));
      element = c->AddInstruction(std::move(gte));
    }
    HloInstruction* rebuilt = Rebuild(c, element, sub, /*reuse_tuple=*/false);
    if (in_place && rebuilt != element) {
      (void)node->ReplaceOperandWith(i, rebuilt);
    }
    elements.push_back(rebuilt);
  }
  if (in_place) return node;
  auto tuple = HloInstruction::Create(HloOpcode::kTuple, shape, elements);
  tuple->set_name(module_.NewInstructionName("tuple"));
  return c->AddInstruction(std::move(tuple));
}

void CopyInserter::ReplaceRoot(HloComputation* c, const LeafSet& leaves) {
  if (leaves.empty()) return;
  HloInstruction* root = c->root_instruction();
  HloInstruction* rebuilt =
      Rebuild(c, root, leaves, /*reuse_tuple=*/root->user_count() == 0);
  c->set_root_instruction(rebuilt);
}

// Whether `loop`, nested in another loop's body, starts leaf `leaf` from
// the enclosing loop's old state `value` but its result there does not go
// back to that same enclosing leaf: the nested loop would then run in the
// buffer another enclosing leaf is written into.
bool CopyInserter::LeavesEnclosingState(const HloInstruction* loop,
                                        const ShapeIndex& leaf,
                                        const HloValue& value) const {
  const HloComputation* body = loop->parent();
  const HloInstruction* outer = analysis_->Caller(body);
  if (!value.is_phi || value.instruction->opcode() != HloOpcode::kParameter ||
      outer == nullptr || outer->opcode() != HloOpcode::kWhile ||
      outer->while_body() != body) {
    return false;
  }
  return analysis_->ValueAt(body->root_instruction(), value.index) !=
         analysis_->ValueAt(loop, leaf);
}

absl::Status CopyInserter::ForWhileInit(HloInstruction* loop) {
  HloComputation* caller = loop->parent();
  const HloInstruction* root = caller->root_instruction();
  LeafSet copies;
  std::vector<HloInstruction*> order_before;
  absl::flat_hash_set<int> seen;
  for (const auto& [leaf, v] : analysis_->Leaves(loop->operand(0))) {
    const HloValue& value = analysis_->value(v);
    if (value.size == 0) continue;
    if (IsReadOnlyState(loop, leaf)) {
      if (!seen.insert(v).second) copies.push_back(leaf);
      continue;
    }
    bool copy = IsFixed(v) || !seen.insert(v).second ||
                value.instruction->parent() != caller ||
                LeavesEnclosingState(loop, leaf, value);
    for (const auto& [root_leaf, r] : analysis_->Leaves(root)) {
      copy |= r == v;  // returned by the caller: outlives the loop
    }
    std::vector<HloInstruction*> later;
    for (HloInstruction* h : Readers(caller, v)) {
      if (h == loop || Reaches(h, loop)) continue;
      if (Reaches(loop, h)) {
        copy = true;
      } else {
        later.push_back(h);
      }
    }
    if (copy) {
      copies.push_back(leaf);
    } else {
      order_before.insert(order_before.end(), later.begin(), later.end());
    }
  }
  for (HloInstruction* h : order_before) {
    absl::Status status = h->AddControlDependencyTo(loop);
    if (!status.ok()) return status;
    changed_ = true;
  }
  if (copies.empty()) return absl::OkStatus();
  HloInstruction* init = loop->mutable_operand(0);
  HloInstruction* rebuilt =
      Rebuild(caller, init, copies, /*reuse_tuple=*/init->user_count() == 1);
  if (rebuilt != init) return loop->ReplaceOperandWith(0, rebuilt);
  return absl::OkStatus();
}

// Whether `d`, defining its leaf `out`, may read the old state `p` where it
// writes the new one: an in-place update of `p` read nowhere else by `d`,
// or a nested loop whose state at that leaf starts as `p`.
bool CopyInserter::ReadsInPlace(const HloInstruction* d, int p,
                                const ShapeIndex& out) const {
  int reads = 0;
  for (const HloInstruction* operand : d->operands()) {
    for (const auto& [leaf, v] : analysis_->Leaves(operand)) reads += v == p;
  }
  if (reads != 1) return false;
  if (d->opcode() == HloOpcode::kWhile) {
    return analysis_->ValueAt(d->operand(0), out) == p;
  }
  for (const InPlaceCandidate& c : analysis_->in_place_candidates()) {
    if (c.instruction == d && c.output_index == out &&
        analysis_->ValueAt(d->operand(c.operand_number), c.operand_index) ==
            p) {
      return true;
    }
  }
  return false;
}

// Control dependencies so every reader of the old state `p` runs before
// `d` writes the new one. A copy of another state leaf that would close a
// cycle (two leaves swapped) reads through a fresh copy instead. False,
// adding nothing, when another reader already runs after `d` (two leaves
// computed from each other's old state): the caller copies the leaf.
absl::StatusOr<bool> CopyInserter::OrderReadersBefore(HloComputation* body,
                                                      int p,
                                                      HloInstruction* d) {
  for (HloInstruction* h : Readers(body, p)) {
    if (h != d && !Reaches(h, d) && Reaches(d, h) &&
        (!inserted_.contains(h) || h->opcode() != HloOpcode::kCopy)) {
      return false;
    }
  }
  for (HloInstruction* h : Readers(body, p)) {
    if (h == d || Reaches(h, d)) continue;
    if (Reaches(d, h)) {
      HloInstruction* first = AddCopy(body, h->mutable_operand(0));
      absl::Status status = h->ReplaceOperandWith(0, first);
      if (!status.ok()) return status;
      h = first;
    }
    absl::Status status = h->AddControlDependencyTo(d);
    if (!status.ok()) return status;
    changed_ = true;
  }
  return true;
}

absl::Status CopyInserter::ForWhileBody(HloInstruction* loop) {
  HloComputation* body = loop->while_body();
  const HloInstruction* param = body->parameter_instruction(0);
  LeafSet copies;
  absl::flat_hash_set<int> seen;
  for (const auto& [leaf, r] : analysis_->Leaves(body->root_instruction())) {
    const int p = analysis_->ValueAt(param, leaf);
    const HloValue& value = analysis_->value(r);
    if (r == p || value.size == 0) continue;
    const HloInstruction* d = value.instruction;
    bool copy = IsFixed(r) || !seen.insert(r).second || d == param ||
                d->parent() != body;
    // A nested loop's result that did not start from this leaf's old state
    // (it ran in a buffer of its own, see LeavesEnclosingState).
    copy |= d->opcode() == HloOpcode::kWhile &&
            analysis_->ValueAt(d->operand(0), value.index) != p;
    if (!copy && p >= 0) {
      for (HloInstruction* h : Readers(body, p)) {
        if (h == d) {
          copy |= !ReadsInPlace(d, p, value.index);
        } else if (Reaches(d, h)) {
          copy = true;
        }
      }
    }
    if (copy) copies.push_back(leaf);
  }
  ReplaceRoot(body, copies);
  // With the copies in place, order the old state's readers before each
  // new leaf's definition.
  absl::Status status = Analyze();
  if (!status.ok()) return status;
  // (A copy: each step below analyzes the module afresh.)
  const std::vector<std::pair<ShapeIndex, int>> leaves =
      analysis_->Leaves(body->root_instruction());
  for (const auto& [leaf, unused] : leaves) {
    const int r = analysis_->ValueAt(body->root_instruction(), leaf);
    const int p = analysis_->ValueAt(param, leaf);
    if (p < 0 || r < 0 || r == p || analysis_->value(r).size == 0) continue;
    HloInstruction* d =
        const_cast<HloInstruction*>(analysis_->value(r).instruction);
    absl::StatusOr<bool> ordered = OrderReadersBefore(body, p, d);
    if (ordered.ok() && !*ordered) {
      // The leaf is computed after a reader of its old state that another
      // new leaf needs first: it goes through a copy, which can wait.
      ReplaceRoot(body, {leaf});
      status = Analyze();
      if (!status.ok()) return status;
      d = const_cast<HloInstruction*>(
          analysis_->value(analysis_->ValueAt(body->root_instruction(), leaf))
              .instruction);
      ordered = OrderReadersBefore(body, p, d);
      if (ordered.ok() && !*ordered) {
        return absl::FailedPreconditionError(absl::StrCat(
            "a reader of the old loop state runs after %", d->name(),
            " writes the new one in %", body->name()));
      }
    }
    if (!ordered.ok()) return ordered.status();
    status = Analyze();
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status CopyInserter::ForCalleeRoot(HloComputation* callee) {
  LeafSet copies;
  absl::flat_hash_set<int> seen;
  for (const auto& [leaf, r] : analysis_->Leaves(callee->root_instruction())) {
    const HloValue& value = analysis_->value(r);
    if (value.size == 0) continue;
    if (IsFixed(r) || !seen.insert(r).second ||
        value.instruction->parent() != callee ||
        value.instruction->opcode() == HloOpcode::kParameter) {
      copies.push_back(leaf);
    }
  }
  ReplaceRoot(callee, copies);
  return absl::OkStatus();
}

absl::StatusOr<bool> CopyInserter::Run() {
  absl::StatusOr<bool> flattened = FlattenSequentialCalls(module_);
  if (!flattened.ok()) return flattened.status();
  changed_ = *flattened;
  absl::Status status = Analyze();
  if (!status.ok()) return status;
  std::vector<HloInstruction*> control_flow;
  for (const HloComputation* c : analysis_->sequential_computations()) {
    for (HloInstruction* h : c->instructions()) {
      const HloOpcode op = h->opcode();
      if (op == HloOpcode::kWhile || op == HloOpcode::kConditional ||
          op == HloOpcode::kCall) {
        control_flow.push_back(h);
      }
    }
  }
  absl::flat_hash_set<HloComputation*> touched;
  for (HloInstruction* h : control_flow) {
    if (h->opcode() == HloOpcode::kWhile) {
      status = ForWhileInit(h);
      if (status.ok()) status = Analyze();
      if (status.ok()) status = ForWhileBody(h);
    } else {
      for (HloComputation* callee : h->called_computations()) {
        if (status.ok()) status = ForCalleeRoot(callee);
        if (status.ok()) status = Analyze();
        touched.insert(callee);
      }
    }
    if (status.ok()) status = Analyze();
    if (!status.ok()) {
      return absl::Status(status.code(),
                          absl::StrCat("InsertCopies at %", h->name(), ": ",
                                       status.message()));
    }
    touched.insert(h->parent());
    for (HloComputation* callee : h->called_computations()) {
      touched.insert(callee);
    }
  }
  // New instructions land just before their first user; control
  // dependencies are respected (a scheduled module stays scheduled).
  for (HloComputation* c : touched) c->Resequence();
  return changed_;
}

}  // namespace

absl::StatusOr<bool> InsertCopies(HloModule& module) {
  return CopyInserter(module).Run();
}

}  // namespace xlite::runtime
