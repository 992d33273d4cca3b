// while-loop-all-reduce-code-motion: an all-reduce whose result is only
// accumulated into a loop-carried buffer moves after the loop (the body
// accumulates unreduced values; one all-reduce runs on the total). See
// ../shared/specs/while-loop-all-reduce-code-motion.md. The patterns live
// in all_reduce_code_motion_match.cc, the setup rewrites in
// all_reduce_code_motion_setup.cc; this file drives them and rewrites.

#include "passes/while_loop_all_reduce_code_motion.h"

#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "hlo/ir/primitive_type.h"
#include "passes/all_reduce_code_motion_match.h"
#include "passes/all_reduce_code_motion_setup.h"
#include "passes/hlo_util.h"
#include "passes/loop_analysis.h"

namespace xlite {
namespace {

// The while loops running each computation as their body, and the
// computations called some other way too. A body shared by several loops
// is rewritten for all of them at once (as XLA does); one also used as a
// condition or a callee is left alone.
struct LoopCallers {
  absl::flat_hash_map<const HloComputation*, std::vector<HloInstruction*>>
      loops;
  absl::flat_hash_set<const HloComputation*> other;
};

LoopCallers FindLoopCallers(const HloModule& module) {
  LoopCallers callers;
  for (const HloComputation* c : module.computations()) {
    for (HloInstruction* h : c->instructions()) {
      if (h->opcode() == HloOpcode::kWhile) {
        callers.loops[h->while_body()].push_back(h);
        callers.other.insert(h->while_condition());
        continue;
      }
      for (const HloComputation* callee : h->called_computations()) {
        callers.other.insert(callee);
      }
    }
  }
  return callers;
}

// The collective that replaces `tmpl` after the loop, on `operand`.
HloInstruction* AddCollectiveLike(HloComputation* c, const HloInstruction* tmpl,
                                  HloInstruction* operand, const Shape& shape) {
  std::unique_ptr<HloInstruction> copy =
      tmpl->CloneWithNewOperands(shape, {operand});
  copy->set_name(c->parent()->NewInstructionName(tmpl->name()));
  // Outside the loop the collective needs a channel of its own kind; XLA
  // gives the default id when the original had none.
  if (!copy->mutable_attrs().channel_id.has_value()) {
    copy->mutable_attrs().channel_id = 1;
  }
  return c->AddInstruction(std::move(copy));
}

HloInstruction* AddConvertTo(HloComputation* c, HloInstruction* h,
                             PrimitiveType type) {
  if (h->shape().element_type() == type) return h;
  Shape shape = h->shape();
  shape.set_element_type(type);
  return AddNew(c, HloOpcode::kConvert, shape, {h});
}

// After the loop, the dynamic-update-slice pattern: reduce only the region
// the loop wrote (in the collective's type) and write it back.
HloInstruction* ReduceRegion(HloComputation* c, const Accumulation& m,
                             const HloInstruction* tmpl,
                             HloInstruction* buffer) {
  const Shape& shape = buffer->shape();
  std::vector<int64_t> dims;
  std::vector<SliceDimension> slice;
  bool sliced = false;
  for (size_t d = 0; d < m.region.size(); ++d) {
    const auto [start, limit] = m.region[d];
    dims.push_back(limit - start);
    slice.push_back({start, limit, 1});
    sliced |= dims.back() != shape.dimensions(d);
  }
  HloInstruction* total = buffer;
  if (sliced) {
    total =
        AddNew(c, HloOpcode::kSlice,
               LayoutLike(Shape(shape.element_type(), dims), buffer), {buffer});
    total->mutable_attrs().slice = slice;
  }
  total = AddConvertTo(c, total, tmpl->shape().element_type());
  HloInstruction* reduced = AddCollectiveLike(c, tmpl, total, total->shape());
  reduced = AddConvertTo(c, reduced, shape.element_type());
  if (!sliced) return reduced;
  std::vector<HloInstruction*> operands = {buffer, reduced};
  for (const auto& region : m.region) {
    Literal offset = Literal::ScalarInt(PrimitiveType::kS64, region.first);
    offset.mutable_shape_for_layout() =
        LayoutLike(Shape(PrimitiveType::kS64, {}), buffer);
    operands.push_back(AddConstant(c, std::move(offset)));
  }
  return AddNew(c, HloOpcode::kDynamicUpdateSlice, shape, operands);
}

// After the loop, an accumulation: reduce the total (in the collective's
// type) and add the initial value the loop no longer starts from.
HloInstruction* ReduceTotal(HloComputation* c, const Accumulation& m,
                            const HloInstruction* tmpl, HloInstruction* total,
                            const Shape& buffer, HloInstruction* init) {
  if (m.kind == MoveKind::kReduceScatter) {
    HloInstruction* rs = AddCollectiveLike(c, tmpl, total, tmpl->shape());
    return AddNew(c, HloOpcode::kAdd, buffer, {rs, init});
  }
  total = AddConvertTo(c, total, tmpl->shape().element_type());
  HloInstruction* reduced = AddCollectiveLike(c, tmpl, total, total->shape());
  reduced = AddConvertTo(c, reduced, buffer.element_type());
  return AddNew(c, HloOpcode::kAdd, buffer, {reduced, init});
}

// Replaces the uses of `loop` by `results` (the old result's elements):
// get-tuple-element users read them directly; others (and the root) see
// an equivalent tuple.
absl::Status ForwardResults(HloInstruction* loop, const Shape& state,
                            const std::vector<HloInstruction*>& users,
                            bool was_root,
                            const std::vector<HloInstruction*>& results) {
  HloComputation* c = loop->parent();
  HloInstruction* tuple = nullptr;
  absl::Status s;
  for (HloInstruction* u : users) {
    if (u->opcode() == HloOpcode::kGetTupleElement) {
      s = ReplaceInstruction(u, results[u->tuple_index()]);
    } else {
      if (tuple == nullptr)
        tuple = AddNew(c, HloOpcode::kTuple, state, results);
      s = loop->ReplaceUseWith(u, tuple);
    }
    if (!s.ok()) return s;
  }
  if (was_root) {
    if (tuple == nullptr) tuple = AddNew(c, HloOpcode::kTuple, state, results);
    c->set_root_instruction(tuple);
  }
  // Element reads nobody needed.
  for (HloInstruction* g : results) {
    if (g->users().empty() && !g->IsRoot() && IsRemovableWhenDead(g) &&
        g->opcode() == HloOpcode::kGetTupleElement && g->operand(0) == loop) {
      s = c->RemoveInstruction(g);
      if (!s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

using Templates =
    absl::flat_hash_map<const HloInstruction*, std::unique_ptr<HloInstruction>>;

// Outside one loop: accumulators start at zero, the loop state takes
// `new_state`, and the moved collectives run on the loop's results.
absl::Status RewriteLoop(HloInstruction* loop,
                         const std::vector<Accumulation>& moves,
                         const Templates& templates, const Shape& new_state) {
  HloComputation* c = loop->parent();
  const Shape state = loop->shape();
  HloInstruction* old_init = loop->mutable_operand(0);
  std::vector<HloInstruction*> init_elements;
  for (int64_t i = 0; i < state.tuple_shapes_size(); ++i) {
    if (old_init->opcode() == HloOpcode::kTuple) {
      init_elements.push_back(old_init->mutable_operand(i));
    } else {
      HloInstruction* g = AddNew(c, HloOpcode::kGetTupleElement,
                                 state.tuple_shapes(i), {old_init});
      g->set_index(i);
      init_elements.push_back(g);
    }
  }
  std::vector<HloInstruction*> new_elements = init_elements;
  for (const Accumulation& m : moves) {
    if (m.kind == MoveKind::kRegion) continue;  // DUS buffers keep contents
    new_elements[m.index] =
        AddFilledLike(c, new_state.tuple_shapes(m.index), 0, loop);
  }
  HloInstruction* new_init =
      AddNew(c, HloOpcode::kTuple, new_state, new_elements);
  absl::Status s = loop->ReplaceOperandWithDifferentShape(0, new_init);
  if (!s.ok()) return s;
  *loop->mutable_shape() = new_state;
  if (old_init->opcode() == HloOpcode::kTuple && old_init->users().empty() &&
      IsRemovableWhenDead(old_init)) {
    s = c->RemoveInstruction(old_init);
    if (!s.ok()) return s;
  }
  const std::vector<HloInstruction*> users = loop->users();
  const bool was_root = loop->IsRoot();
  std::vector<HloInstruction*> results;
  for (int64_t i = 0; i < new_state.tuple_shapes_size(); ++i) {
    HloInstruction* g = AddNew(c, HloOpcode::kGetTupleElement,
                               new_state.tuple_shapes(i), {loop});
    g->set_index(i);
    results.push_back(g);
  }
  for (const Accumulation& m : moves) {
    const HloInstruction* tmpl = templates.at(m.collective).get();
    const int64_t i = m.index;
    results[i] = m.kind == MoveKind::kRegion
                     ? ReduceRegion(c, m, tmpl, results[i])
                     : ReduceTotal(c, m, tmpl, results[i],
                                   state.tuple_shapes(i), init_elements[i]);
  }
  return ForwardResults(loop, state, users, was_root, results);
}

// Inside the shared body: the collectives become their operands (a
// reduce-scatter's buffer widens to the unscattered shape), and the state
// shape of the body and of every loop's condition follows.
absl::Status RewriteBody(const LoopBody& lb,
                         const std::vector<Accumulation>& moves,
                         const Shape& new_state) {
  HloComputation* body = lb.body;
  if (body->parameter_instruction(0)->shape() != new_state) {
    *body->parameter_instruction(0)->mutable_shape() = new_state;
    *body->root_instruction()->mutable_shape() = new_state;
    for (HloInstruction* loop : lb.loops) {
      *loop->while_condition()->parameter_instruction(0)->mutable_shape() =
          new_state;
    }
  }
  absl::flat_hash_set<const HloInstruction*> done;
  for (const Accumulation& m : moves) {
    if (!done.insert(m.collective).second) continue;
    HloInstruction* x = m.collective->mutable_operand(0);
    absl::Status s;
    if (m.kind == MoveKind::kReduceScatter) {
      // The body accumulates the full, unscattered values.
      *m.scatter_buffer->mutable_shape() = x->shape();
      HloInstruction* sum =
          AddNew(body, HloOpcode::kAdd, x->shape(), {x, m.scatter_buffer});
      s = body->root_instruction()->ReplaceOperandWithDifferentShape(m.index,
                                                                     sum);
      if (s.ok()) s = body->RemoveInstruction(m.scatter_add);
      if (s.ok()) s = body->RemoveInstruction(m.collective);
    } else {
      s = ReplaceInstruction(m.collective, x, /*always_remove=*/true);
    }
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

// Moves what can move out of the loops running `lb.body`.
absl::StatusOr<bool> MoveOutOfBody(const LoopBody& lb,
                                   const AllReduceCodeMotionOptions& options) {
  const HloInstruction* param = lb.body->parameter_instruction(0);
  if (lb.body->num_parameters() != 1 || !param->shape().IsTuple() ||
      param->IsRoot() ||
      lb.body->root_instruction()->opcode() != HloOpcode::kTuple) {
    return false;
  }
  for (const HloInstruction* loop : lb.loops) {
    if (loop->shape() != param->shape()) return false;
  }
  std::vector<Accumulation> moves;
  absl::flat_hash_set<int64_t> indices;
  for (HloInstruction* h : lb.body->MakeInstructionPostOrder()) {
    if (h->opcode() != HloOpcode::kAllReduce &&
        h->opcode() != HloOpcode::kReduceScatter) {
      continue;
    }
    std::vector<Accumulation> found =
        MatchCollective(h, lb, options.enable_reduce_scatter);
    // A buffer fed by two collectives would need both moved together.
    bool clash = false;
    absl::flat_hash_set<int64_t> mine;
    for (const Accumulation& m : found) {
      clash |= indices.contains(m.index) || !mine.insert(m.index).second;
    }
    if (clash) continue;
    indices.insert(mine.begin(), mine.end());
    moves.insert(moves.end(), found.begin(), found.end());
  }
  if (moves.empty()) return false;
  Shape new_state = param->shape();
  for (const Accumulation& m : moves) {
    if (m.kind == MoveKind::kReduceScatter) {
      new_state.mutable_tuple_shapes()[m.index] =
          m.collective->operand(0)->shape();
    }
  }
  // The collectives to recreate after each loop, kept before the body
  // drops them.
  Templates templates;
  for (const Accumulation& m : moves) {
    if (!templates.contains(m.collective)) {
      templates[m.collective] = m.collective->CloneWithNewOperands(
          m.collective->shape(), {m.collective->mutable_operand(0)});
    }
  }
  for (HloInstruction* loop : lb.loops) {
    absl::Status s = RewriteLoop(loop, moves, templates, new_state);
    if (!s.ok()) return s;
  }
  absl::Status s = RewriteBody(lb, moves, new_state);
  if (!s.ok()) return s;
  return true;
}

}  // namespace

absl::StatusOr<bool> RunWhileLoopAllReduceCodeMotion(
    HloModule& module, const AllReduceCodeMotionOptions& options) {
  // MPMD programs (several partitions that are not SPMD) are skipped.
  // xlite's module config has no SPMD flag, so SPMD is recognized by what
  // JAX and XLA emit for it: shardings, or collectives over global device
  // ids.
  if (module.config().num_partitions > 1) {
    bool spmd = false;
    for (const HloComputation* c : module.computations()) {
      for (const HloInstruction* h : c->instructions()) {
        spmd |=
            h->has_sharding() ||
            (h->has_attrs() && h->attrs().collective->use_global_device_ids);
      }
    }
    if (!spmd) return false;
  }
  // Any candidate with constrain_layout makes the pass a no-op.
  for (const HloComputation* c : module.computations()) {
    for (const HloInstruction* h : c->instructions()) {
      if ((h->opcode() == HloOpcode::kAllReduce ||
           h->opcode() == HloOpcode::kReduceScatter) &&
          h->attrs().collective->constrain_layout) {
        return false;
      }
    }
  }
  bool changed = false;
  if (options.run_setup_passes) {
    if (options.enable_reduce_scatter) {
      absl::StatusOr<bool> setup = ReorderReduceScatterTranspose(module);
      if (!setup.ok()) return setup.status();
      changed |= *setup;
    }
    absl::StatusOr<bool> setup =
        ReorderConvertCollectiveAdd(module, options.enable_reduce_scatter);
    if (!setup.ok()) return setup.status();
    changed |= *setup;
  }
  // Callees first: an inner loop's collective moves into the outer body,
  // where the outer loop may move it again. The replication analysis is
  // redone after a rewrite, which adds and frees instructions.
  const LoopCallers callers = FindLoopCallers(module);
  std::optional<ReplicationAnalysis> replication;
  for (HloComputation* c : module.MakeComputationPostOrder()) {
    auto it = callers.loops.find(c);
    if (it == callers.loops.end() || callers.other.contains(c)) continue;
    if (!replication.has_value()) {
      replication = ReplicationAnalysis::Run(module);
    }
    const LoopBody lb{c, it->second, &*replication};
    absl::StatusOr<bool> moved = MoveOutOfBody(lb, options);
    if (!moved.ok()) return moved.status();
    if (*moved) {
      changed = true;
      replication.reset();
    }
  }
  return changed;
}

}  // namespace xlite
