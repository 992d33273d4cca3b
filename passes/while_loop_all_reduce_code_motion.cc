// while-loop-all-reduce-code-motion: an all-reduce whose result is only
// accumulated into a loop-carried buffer moves after the loop (the body
// accumulates unreduced values; one all-reduce runs on the total). See
// ../shared/specs/while-loop-all-reduce-code-motion.md.

#include "passes/while_loop_all_reduce_code_motion.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/primitive_type.h"
#include "passes/hlo_util.h"
#include "passes/loop_analysis.h"

namespace xlite {
namespace {

bool IsForwarding(const HloInstruction* h) {
  switch (h->opcode()) {
    case HloOpcode::kConvert:
    case HloOpcode::kBitcast:
    case HloOpcode::kReshape:
    case HloOpcode::kTranspose:
      return true;
    default:
      return false;
  }
}

// The reducer is a single binary op of its parameters; returns it.
std::optional<HloOpcode> ReductionKind(const HloInstruction* ar) {
  const HloComputation* f = ar->to_apply();
  const HloInstruction* r = f->root_instruction();
  if (f->num_parameters() != 2 || r->operand_count() != 2) return std::nullopt;
  const bool params = (r->operand(0) == f->parameter_instruction(0) &&
                       r->operand(1) == f->parameter_instruction(1)) ||
                      (r->operand(0) == f->parameter_instruction(1) &&
                       r->operand(1) == f->parameter_instruction(0));
  if (!params) return std::nullopt;
  return r->opcode();
}

bool SummableType(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::kBF16:
    case PrimitiveType::kF16:
    case PrimitiveType::kF32:
    case PrimitiveType::kF64:
    case PrimitiveType::kS8:
    case PrimitiveType::kS16:
    case PrimitiveType::kS32:
    case PrimitiveType::kS64:
    case PrimitiveType::kU8:
    case PrimitiveType::kU16:
    case PrimitiveType::kU32:
    case PrimitiveType::kU64:
      return true;
    default:
      return false;
  }
}

HloInstruction* SingleUser(const HloInstruction* h) {
  return h->user_count() == 1 ? h->users()[0] : nullptr;
}

bool SameOffsets(const HloInstruction* ds, const HloInstruction* dus) {
  // dynamic-slice(operand, i...) and dynamic-update-slice(operand, update, i...)
  if (ds->operand_count() + 1 != dus->operand_count()) return false;
  for (int64_t i = 1; i < ds->operand_count(); ++i) {
    if (ds->operand(i) != dus->operand(i + 1)) return false;
  }
  return true;
}

// One all-reduce to move: where its accumulated buffer lives.
struct Accumulation {
  HloInstruction* all_reduce;
  int64_t index;  // tuple element of the buffer
  // Dynamic-update-slice pattern: the region of the buffer the loop writes
  // (start, limit per dimension); empty for the accumulation pattern.
  std::vector<std::pair<int64_t, int64_t>> region;
  // Reduce-scatter: the accumulation add and the buffer's element read,
  // whose shapes widen to the pre-scatter shape.
  HloInstruction* scatter_add = nullptr;
  HloInstruction* scatter_buffer = nullptr;
};

// Largest (trip count + 1) x all-reduce bytes the DUS pattern accepts.
constexpr int64_t kDusSizeLimitBytes = int64_t{1} << 30;

// The buffer's tuple element `index` is private to the pattern: `out`
// reaches the body's ROOT exactly once, at `index`; `buffer` is the only
// get-tuple-element of that index; the condition never reads it.
bool OwnsTupleElement(const HloInstruction* loop, const HloInstruction* buffer,
                      const HloInstruction* out, int64_t index) {
  const HloComputation* body = loop->while_body();
  const HloInstruction* root = body->root_instruction();
  int64_t uses = 0;
  for (int64_t i = 0; i < root->operand_count(); ++i) {
    if (root->operand(i) == out) {
      if (i != index) return false;
      ++uses;
    }
  }
  if (uses != 1) return false;
  for (const HloInstruction* u : body->parameter_instruction(0)->users()) {
    if (u->opcode() != HloOpcode::kGetTupleElement) return false;
    if (u->tuple_index() == index && u != buffer) return false;
  }
  for (const HloInstruction* u :
       loop->while_condition()->parameter_instruction(0)->users()) {
    if (u->opcode() != HloOpcode::kGetTupleElement ||
        u->tuple_index() == index) {
      return false;
    }
  }
  return true;
}

// The dynamic-update-slice pattern (any reduction): the all-reduce's value,
// through reshape/convert, is written by a chain of DUS ops at constant or
// induction-variable offsets into a buffer the loop carries.
std::optional<Accumulation> MatchDynamicUpdateSlice(HloInstruction* ar,
                                                    const HloInstruction* loop) {
  const HloComputation* body = loop->while_body();
  const HloInstruction* param = body->parameter_instruction(0);
  const HloInstruction* root = body->root_instruction();
  std::optional<HloOpcode> kind = ReductionKind(ar);
  if (ar->operand_count() != 1 || !ar->shape().IsArray() ||
      !kind.has_value() || HasControlDeps(ar) ||
      (*kind != HloOpcode::kAdd && *kind != HloOpcode::kMultiply &&
       *kind != HloOpcode::kMinimum && *kind != HloOpcode::kMaximum)) {
    return std::nullopt;
  }
  std::optional<CountedLoop> counted = AnalyzeCountedLoop(*loop);
  if (!counted.has_value() || counted->init != 0 || counted->step != 1) {
    return std::nullopt;
  }
  const int64_t bytes =
      ar->shape().ElementCount() * StorageBytes(ar->shape().element_type());
  if ((counted->bound + 1) * bytes > kDusSizeLimitBytes) return std::nullopt;
  auto is_indvar = [&](const HloInstruction* h) {
    return h->opcode() == HloOpcode::kGetTupleElement &&
           h->operand(0) == param && h->tuple_index() == counted->index;
  };
  HloInstruction* cur = ar;
  while (true) {
    HloInstruction* user = SingleUser(cur);
    if (user == nullptr) return std::nullopt;
    if (user->opcode() == HloOpcode::kReshape ||
        user->opcode() == HloOpcode::kConvert) {
      cur = user;
      continue;
    }
    break;
  }
  // The chain of dynamic-update-slices, each updating with the previous.
  HloInstruction* last = nullptr;
  std::vector<std::pair<int64_t, int64_t>> region;
  while (true) {
    HloInstruction* user = SingleUser(cur);
    if (user == nullptr || user->opcode() != HloOpcode::kDynamicUpdateSlice ||
        user->operand(1) != cur || user->operand(0) == cur) {
      break;
    }
    const Shape& update = cur->shape();
    region.clear();
    for (int64_t d = 2; d < user->operand_count(); ++d) {
      const HloInstruction* index = user->operand(d);
      const int64_t size = update.dimensions(d - 2);
      const int64_t dim = user->shape().dimensions(d - 2);
      if (std::optional<int64_t> c = ScalarIntConstant(index)) {
        const int64_t start = std::clamp<int64_t>(*c, 0, dim - size);
        region.push_back({start, start + size});
      } else if (is_indvar(index) && size == 1) {
        region.push_back({0, std::min(counted->trip_count, dim)});
      } else {
        return std::nullopt;
      }
    }
    last = user;
    cur = user;
  }
  if (last == nullptr) return std::nullopt;
  const HloInstruction* buffer = last->operand(0);
  if (buffer->opcode() != HloOpcode::kGetTupleElement ||
      buffer->operand(0) != param || buffer->user_count() != 1) {
    return std::nullopt;
  }
  const int64_t index = buffer->tuple_index();
  if (SingleUser(last) != root || !OwnsTupleElement(loop, buffer, last, index)) {
    return std::nullopt;
  }
  return Accumulation{ar, index, region};
}

// Checks the SUM accumulation pattern for `ar` in `loop`'s body.
std::optional<Accumulation> MatchAccumulation(
    HloInstruction* ar, const HloInstruction* loop,
    const ReplicationAnalysis& replication) {
  const HloComputation* body = loop->while_body();
  const HloInstruction* param = body->parameter_instruction(0);
  const HloInstruction* root = body->root_instruction();
  if (ar->operand_count() != 1 || !ar->shape().IsArray() ||
      ReductionKind(ar) != HloOpcode::kAdd ||
      !SummableType(ar->shape().element_type()) || HasControlDeps(ar)) {
    return std::nullopt;
  }
  // all-reduce -> forwarding ops, broadcasts and selects against zero
  // (with a predicate every replica agrees on) -> add.
  HloInstruction* cur = ar;
  HloInstruction* add = nullptr;
  while (true) {
    HloInstruction* user = SingleUser(cur);
    if (user == nullptr) return std::nullopt;
    if (user->opcode() == HloOpcode::kAdd) {
      add = user;
      break;
    }
    const bool select_with_zero =
        user->opcode() == HloOpcode::kSelect &&
        user->operand(0) != cur &&
        replication.IsReplicated(user->operand(0)) &&
        ((user->operand(1) == cur && IsUniform(user->operand(2), 0)) ||
         (user->operand(2) == cur && IsUniform(user->operand(1), 0)));
    // Multiplying a non-scalar all-reduce by a value every replica holds
    // (a broadcast scalar all-reduce, a constant) is linear, so it may
    // move; a scalar all-reduce times anything stays (the other factor
    // could be a collective that moves too).
    const bool linear_multiply =
        user->opcode() == HloOpcode::kMultiply && ar->shape().rank() > 0 &&
        user->operand(0) != user->operand(1) &&
        replication.IsReplicated(
            user->operand(user->operand(0) == cur ? 1 : 0));
    if (!IsForwarding(user) && user->opcode() != HloOpcode::kBroadcast &&
        user->opcode() != HloOpcode::kSlice && !select_with_zero &&
        !linear_multiply) {
      return std::nullopt;
    }
    cur = user;
  }
  if (add->operand(0) == add->operand(1)) return std::nullopt;
  // The buffer: forwarding ops, at most one dynamic-slice, then
  // get-tuple-element(parameter(0)).
  HloInstruction* buffer = add->mutable_operand(add->operand(0) == cur ? 1 : 0);
  const HloInstruction* ds = nullptr;
  while (IsForwarding(buffer) || buffer->opcode() == HloOpcode::kDynamicSlice) {
    if (buffer->opcode() == HloOpcode::kDynamicSlice) {
      if (ds != nullptr) return std::nullopt;
      ds = buffer;
    }
    if (buffer->user_count() != 1) return std::nullopt;
    buffer = buffer->mutable_operand(0);
  }
  if (buffer->opcode() != HloOpcode::kGetTupleElement ||
      buffer->operand(0) != param) {
    return std::nullopt;
  }
  const int64_t index = buffer->tuple_index();
  // The sum returns to the same tuple element (at most one DUS on the way,
  // pairing with the dynamic-slice).
  HloInstruction* out = add;
  const HloInstruction* dus = nullptr;
  while (true) {
    HloInstruction* user = SingleUser(out);
    if (user == nullptr) return std::nullopt;
    if (user == root) break;
    if (user->opcode() == HloOpcode::kDynamicUpdateSlice &&
        user->operand(1) == out && dus == nullptr) {
      dus = user;
    } else if (!IsForwarding(user)) {
      return std::nullopt;
    }
    out = user;
  }
  if ((ds == nullptr) != (dus == nullptr)) return std::nullopt;
  if (ds != nullptr) {
    if (dus->operand(0) != buffer || !SameOffsets(ds, dus)) return std::nullopt;
    for (int64_t i = 1; i < ds->operand_count(); ++i) {
      if (!replication.IsReplicated(ds->operand(i))) return std::nullopt;
    }
  }
  // The buffer has no other reader: its get-tuple-element feeds only the
  // chain (and the DUS).
  const int64_t expected_users = dus != nullptr ? 2 : 1;
  if (buffer->user_count() != expected_users ||
      !OwnsTupleElement(loop, buffer, out, index)) {
    return std::nullopt;
  }
  return Accumulation{ar, index};
}

// reduce-scatter(x) added straight into get-tuple-element(param, i) and
// returned at i: the body can accumulate x itself (the buffer widens to
// x's shape) and one reduce-scatter runs after the loop.
std::optional<Accumulation> MatchReduceScatter(HloInstruction* rs,
                                               const HloInstruction* loop) {
  const HloInstruction* param = loop->while_body()->parameter_instruction(0);
  if (rs->operand_count() != 1 || !rs->shape().IsArray() ||
      ReductionKind(rs) != HloOpcode::kAdd ||
      !SummableType(rs->shape().element_type()) || HasControlDeps(rs)) {
    return std::nullopt;
  }
  HloInstruction* add = SingleUser(rs);
  if (add == nullptr || add->opcode() != HloOpcode::kAdd ||
      add->operand(0) == add->operand(1)) {
    return std::nullopt;
  }
  HloInstruction* buffer = add->mutable_operand(add->operand(0) == rs ? 1 : 0);
  if (buffer->opcode() != HloOpcode::kGetTupleElement ||
      buffer->operand(0) != param || buffer->user_count() != 1 ||
      !OwnsTupleElement(loop, buffer, add, buffer->tuple_index())) {
    return std::nullopt;
  }
  Accumulation m{rs, buffer->tuple_index()};
  m.scatter_add = add;
  m.scatter_buffer = buffer;
  return m;
}

absl::StatusOr<bool> MoveOutOf(HloInstruction* loop,
                               const ReplicationAnalysis& replication,
                               const AllReduceCodeMotionOptions& options) {
  HloComputation* body = loop->while_body();
  HloComputation* c = loop->parent();
  HloModule& module = *c->parent();
  if (!loop->shape().IsTuple() ||
      body->parameter_instruction(0)->IsRoot() ||
      body->root_instruction()->opcode() != HloOpcode::kTuple) {
    return false;
  }
  std::vector<Accumulation> moves;
  absl::flat_hash_set<int64_t> indices;
  for (HloInstruction* h : body->MakeInstructionPostOrder()) {
    std::optional<Accumulation> m;
    if (h->opcode() == HloOpcode::kAllReduce) {
      // The DUS pattern first (any reduction), then the SUM accumulation.
      m = MatchDynamicUpdateSlice(h, loop);
      if (!m.has_value()) m = MatchAccumulation(h, loop, replication);
    } else if (h->opcode() == HloOpcode::kReduceScatter &&
               options.enable_reduce_scatter) {
      m = MatchReduceScatter(h, loop);
    }
    if (m.has_value() && indices.insert(m->index).second) moves.push_back(*m);
  }
  if (moves.empty()) return false;
  const Shape state = loop->shape();
  // The loop state after the rewrite: reduce-scatter buffers widen.
  Shape new_state = state;
  for (const Accumulation& m : moves) {
    if (m.scatter_add != nullptr) {
      new_state.mutable_tuple_shapes()[m.index] =
          m.all_reduce->operand(0)->shape();
    }
  }
  HloInstruction* old_init = loop->mutable_operand(0);
  // Elements of the old initial state.
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
  // 1. The accumulators start at zero.
  std::vector<HloInstruction*> new_elements = init_elements;
  for (const Accumulation& m : moves) {
    if (!m.region.empty()) continue;  // DUS buffers keep their contents
    new_elements[m.index] =
        AddFilledLike(c, new_state.tuple_shapes(m.index), 0, loop);
  }
  HloInstruction* new_init =
      AddNew(c, HloOpcode::kTuple, new_state, new_elements);
  absl::Status s = loop->ReplaceOperandWithDifferentShape(0, new_init);
  if (!s.ok()) return s;
  if (new_state != state) {
    // Widen the state: the loop, both parameters and the body's root.
    *loop->mutable_shape() = new_state;
    *body->parameter_instruction(0)->mutable_shape() = new_state;
    *loop->while_condition()->parameter_instruction(0)->mutable_shape() =
        new_state;
    *body->root_instruction()->mutable_shape() = new_state;
  }
  if (old_init->opcode() == HloOpcode::kTuple && old_init->users().empty() &&
      IsRemovableWhenDead(old_init)) {
    s = c->RemoveInstruction(old_init);
    if (!s.ok()) return s;
  }
  // 2. Inside, the all-reduces become their operands.
  std::vector<std::unique_ptr<HloInstruction>> templates;
  for (const Accumulation& m : moves) {
    templates.push_back(m.all_reduce->CloneWithNewOperands(
        m.all_reduce->shape(), {m.all_reduce->mutable_operand(0)}));
    if (m.scatter_add != nullptr) {
      // The body accumulates the full, unscattered values.
      HloInstruction* x = m.all_reduce->mutable_operand(0);
      *m.scatter_buffer->mutable_shape() = x->shape();
      HloInstruction* sum =
          AddNew(body, HloOpcode::kAdd, x->shape(), {x, m.scatter_buffer});
      s = body->root_instruction()->ReplaceOperandWithDifferentShape(m.index,
                                                                     sum);
      if (!s.ok()) return s;
      s = body->RemoveInstruction(m.scatter_add);
      if (!s.ok()) return s;
      s = body->RemoveInstruction(m.all_reduce);
      if (!s.ok()) return s;
      continue;
    }
    s = ReplaceInstruction(m.all_reduce, m.all_reduce->mutable_operand(0),
                           /*always_remove=*/true);
    if (!s.ok()) return s;
  }
  // 3. After the loop: all-reduce the totals and add the initial values.
  const std::vector<HloInstruction*> users = loop->users();
  const bool was_root = loop->IsRoot();
  std::vector<HloInstruction*> results;
  for (int64_t i = 0; i < new_state.tuple_shapes_size(); ++i) {
    HloInstruction* g = AddNew(c, HloOpcode::kGetTupleElement,
                               new_state.tuple_shapes(i), {loop});
    g->set_index(i);
    results.push_back(g);
  }
  for (size_t k = 0; k < moves.size(); ++k) {
    const int64_t i = moves[k].index;
    const HloInstruction* tmpl = templates[k].get();
    const Shape& buffer = state.tuple_shapes(i);
    HloInstruction* total = results[i];
    const PrimitiveType ar_type = tmpl->shape().element_type();
    if (moves[k].scatter_add != nullptr) {
      std::unique_ptr<HloInstruction> rs =
          tmpl->CloneWithNewOperands(tmpl->shape(), {total});
      rs->set_name(module.NewInstructionName(tmpl->name()));
      if (!rs->mutable_attrs().channel_id.has_value()) {
        rs->mutable_attrs().channel_id = 1;
      }
      HloInstruction* scattered = c->AddInstruction(std::move(rs));
      results[i] = AddNew(c, HloOpcode::kAdd, buffer,
                          {scattered, init_elements[i]});
      continue;
    }
    const std::vector<std::pair<int64_t, int64_t>>& region = moves[k].region;
    bool sliced = false;
    if (!region.empty()) {
      // Reduce only the region the loop wrote.
      std::vector<int64_t> dims;
      std::vector<SliceDimension> slice;
      for (size_t d = 0; d < region.size(); ++d) {
        dims.push_back(region[d].second - region[d].first);
        slice.push_back({region[d].first, region[d].second, 1});
        sliced |= dims.back() != buffer.dimensions(d);
      }
      if (sliced) {
        total = AddNew(c, HloOpcode::kSlice,
                       LayoutLike(Shape(buffer.element_type(), dims), loop),
                       {total});
        total->mutable_attrs().slice = slice;
      }
    }
    Shape ar_shape = total->shape();
    ar_shape.set_element_type(ar_type);
    if (buffer.element_type() != ar_type) {
      total = AddNew(c, HloOpcode::kConvert, ar_shape, {total});
    }
    std::unique_ptr<HloInstruction> ar =
        tmpl->CloneWithNewOperands(ar_shape, {total});
    ar->set_name(module.NewInstructionName(tmpl->name()));
    if (!ar->mutable_attrs().channel_id.has_value()) {
      ar->mutable_attrs().channel_id = 1;
    }
    HloInstruction* reduced = c->AddInstruction(std::move(ar));
    if (buffer.element_type() != ar_type) {
      Shape back = ar_shape;
      back.set_element_type(buffer.element_type());
      reduced = AddNew(c, HloOpcode::kConvert, back, {reduced});
    }
    if (!region.empty()) {
      if (sliced) {
        std::vector<HloInstruction*> operands = {results[i], reduced};
        for (const auto& [start, limit] : region) {
          Literal offset = Literal::ScalarInt(PrimitiveType::kS64, start);
          offset.mutable_shape_for_layout() =
              LayoutLike(Shape(PrimitiveType::kS64, {}), loop);
          operands.push_back(AddConstant(c, std::move(offset)));
        }
        reduced = AddNew(c, HloOpcode::kDynamicUpdateSlice, buffer, operands);
      }
      results[i] = reduced;
      continue;
    }
    results[i] = AddNew(c, HloOpcode::kAdd, buffer,
                        {reduced, init_elements[i]});
  }
  // get-tuple-element users read the new values directly; others (and the
  // root) see a tuple equivalent to the old result.
  HloInstruction* tuple = nullptr;
  for (HloInstruction* u : users) {
    if (u->opcode() == HloOpcode::kGetTupleElement) {
      s = ReplaceInstruction(u, results[u->tuple_index()]);
    } else {
      if (tuple == nullptr) {
        tuple = AddNew(c, HloOpcode::kTuple, state, results);
      }
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
        g->opcode() == HloOpcode::kGetTupleElement) {
      s = c->RemoveInstruction(g);
      if (!s.ok()) return s;
    }
  }
  return true;
}

// Setup: add(convert(all-reduce(x)), y) -> add(all-reduce(convert(x)), y)
// inside loop bodies, so the collective runs in the accumulator's type.
absl::StatusOr<bool> SinkConverts(HloModule& module) {
  bool changed = false;
  for (HloComputation* c : module.MakeComputationPostOrder()) {
    for (HloInstruction* loop : InstructionsWithOpcode(c, HloOpcode::kWhile)) {
      HloComputation* body = loop->while_body();
      for (HloInstruction* ar :
           InstructionsWithOpcode(body, HloOpcode::kAllReduce)) {
        if (ar->operand_count() != 1 ||
            !ar->shape().IsArray() || HasControlDeps(ar)) {
          continue;
        }
        HloInstruction* cv = SingleUser(ar);
        if (cv == nullptr || cv->opcode() != HloOpcode::kConvert ||
            SingleUser(cv) == nullptr ||
            SingleUser(cv)->opcode() != HloOpcode::kAdd) {
          continue;
        }
        std::optional<HloOpcode> kind = ReductionKind(ar);
        const PrimitiveType t = cv->shape().element_type();
        if (kind != HloOpcode::kAdd || !SummableType(t)) continue;
        // The same reduction in the wider type.
        auto reducer = std::make_unique<HloComputation>(
            module.NewComputationName(ar->to_apply()->name()));
        HloComputation* f = module.AddComputation(std::move(reducer));
        std::vector<HloInstruction*> params;
        for (int64_t i = 0; i < 2; ++i) {
          std::unique_ptr<HloInstruction> p =
              HloInstruction::Create(HloOpcode::kParameter, Shape(t, {}));
          p->set_index(i);
          p->set_name(module.NewInstructionName(i == 0 ? "x" : "y"));
          params.push_back(f->AddInstruction(std::move(p)));
        }
        f->set_root_instruction(
            AddNew(f, HloOpcode::kAdd, Shape(t, {}), params));
        HloInstruction* wide =
            AddNew(body, HloOpcode::kConvert, cv->shape(),
                   {ar->mutable_operand(0)});
        std::unique_ptr<HloInstruction> moved =
            ar->CloneWithNewOperands(cv->shape(), {wide});
        moved->set_name(module.NewInstructionName(ar->name()));
        moved->set_called_computation(0, f);
        HloInstruction* raw = body->AddInstruction(std::move(moved));
        absl::Status s = cv->ReplaceAllUsesWith(raw);
        if (!s.ok()) return s;
        s = body->RemoveInstruction(cv);
        if (!s.ok()) return s;
        s = body->RemoveInstruction(ar);
        if (!s.ok()) return s;
        changed = true;
      }
    }
  }
  return changed;
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
        spmd |= h->has_sharding() ||
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
    absl::StatusOr<bool> setup = SinkConverts(module);
    if (!setup.ok()) return setup.status();
    changed |= *setup;
  }
  // Callees first: an inner loop's collective moves into the outer body,
  // where the outer loop may move it again.
  // The replication analysis runs once per computation with loops: what an
  // earlier rewrite adds is unknown to it, so it counts as not replicated.
  for (HloComputation* c : module.MakeComputationPostOrder()) {
    const std::vector<HloInstruction*> loops =
        InstructionsWithOpcode(c, HloOpcode::kWhile);
    if (loops.empty()) continue;
    const ReplicationAnalysis replication = ReplicationAnalysis::Run(module);
    for (HloInstruction* loop : loops) {
      absl::StatusOr<bool> moved = MoveOutOf(loop, replication, options);
      if (!moved.ok()) return moved.status();
      changed |= *moved;
    }
  }
  return changed;
}

}  // namespace xlite
