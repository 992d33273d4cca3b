// Pattern matching for while-loop-all-reduce-code-motion (see the header
// and ../shared/specs/while-loop-all-reduce-code-motion.md).

#include "passes/all_reduce_code_motion_match.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "hlo/ir/primitive_type.h"
#include "passes/hlo_util.h"

namespace xlite {
namespace {

// Ops that carry values elementwise from the collective to the buffer (or
// back), so reducing before or after them gives the same elements.
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

// A single-operand array collective free of control edges.
bool IsSimpleCollective(const HloInstruction* c) {
  return c->operand_count() == 1 && c->shape().IsArray() && !HasControlDeps(c);
}

// A SUM collective of a type the loop can accumulate in.
bool IsSummingCollective(const HloInstruction* c) {
  return IsSimpleCollective(c) && ReductionKind(c) == HloOpcode::kAdd &&
         SummableType(c->shape().element_type());
}

HloInstruction* SingleUser(const HloInstruction* h) {
  return h->user_count() == 1 ? h->users()[0] : nullptr;
}

bool IsParamElement(const HloInstruction* h, const LoopBody& lb) {
  return h->opcode() == HloOpcode::kGetTupleElement &&
         h->operand(0) == lb.body->parameter_instruction(0);
}

bool SameOffsets(const HloInstruction* ds, const HloInstruction* dus) {
  // dynamic-slice(operand, i...) and dynamic-update-slice(operand, update,
  // i...)
  if (ds->operand_count() + 1 != dus->operand_count()) return false;
  for (int64_t i = 1; i < ds->operand_count(); ++i) {
    if (ds->operand(i) != dus->operand(i + 1)) return false;
  }
  return true;
}

// The buffer's tuple element `index` is private to the pattern: `out`
// reaches the body's ROOT exactly once, at `index`; `buffer` is the only
// get-tuple-element of that index; no loop's condition reads it.
bool OwnsTupleElement(const LoopBody& lb, const HloInstruction* buffer,
                      const HloInstruction* out, int64_t index) {
  const HloInstruction* root = lb.body->root_instruction();
  int64_t uses = 0;
  for (int64_t i = 0; i < root->operand_count(); ++i) {
    if (root->operand(i) == out) {
      if (i != index) return false;
      ++uses;
    }
  }
  if (uses != 1) return false;
  for (const HloInstruction* u : lb.body->parameter_instruction(0)->users()) {
    if (u->opcode() != HloOpcode::kGetTupleElement) return false;
    if (u->tuple_index() == index && u != buffer) return false;
  }
  for (const HloInstruction* loop : lb.loops) {
    for (const HloInstruction* u :
         loop->while_condition()->parameter_instruction(0)->users()) {
      if (u->opcode() != HloOpcode::kGetTupleElement ||
          u->tuple_index() == index) {
        return false;
      }
    }
  }
  return true;
}

// Every loop starts tuple element `index` at zero.
bool InitIsZero(const LoopBody& lb, int64_t index) {
  for (const HloInstruction* loop : lb.loops) {
    const HloInstruction* init = loop->operand(0);
    if (init->opcode() != HloOpcode::kTuple ||
        !IsUniform(init->operand(index), 0)) {
      return false;
    }
  }
  return true;
}

// select(p, x, zero) or select(p, zero, x) with `x` at operand `x_index`.
bool IsSelectWithZero(const HloInstruction* select, int64_t x_index) {
  return select->opcode() == HloOpcode::kSelect && x_index != 0 &&
         select->operand(0) != select->operand(x_index) &&
         IsUniform(select->operand(3 - x_index), 0);
}

// ---------------------------------------------------------------------------
// Dynamic-update-slice pattern.

// i + c, c + i, i - c or c - i for the induction variable i.
struct AffineIndex {
  int64_t scale = 1;  // +1 or -1
  int64_t offset = 0;
};

std::optional<AffineIndex> AffineInInductionVariable(const HloInstruction* h,
                                                     const LoopBody& lb,
                                                     int64_t indvar) {
  auto is_indvar = [&](const HloInstruction* x) {
    return IsParamElement(x, lb) && x->tuple_index() == indvar;
  };
  if (is_indvar(h)) return AffineIndex{1, 0};
  const bool add = h->opcode() == HloOpcode::kAdd;
  if (!add && h->opcode() != HloOpcode::kSubtract) return std::nullopt;
  if (is_indvar(h->operand(0))) {
    std::optional<int64_t> c = ScalarIntConstant(h->operand(1));
    if (c.has_value()) return AffineIndex{1, add ? *c : -*c};
  }
  if (is_indvar(h->operand(1))) {
    std::optional<int64_t> c = ScalarIntConstant(h->operand(0));
    if (c.has_value()) return AffineIndex{add ? 1 : -1, *c};
  }
  return std::nullopt;
}

// The trip count every loop of the body shares, with the induction
// variable's tuple index: each must count from 0 by 1.
std::optional<CountedLoop> SharedCountedLoop(const LoopBody& lb) {
  std::optional<CountedLoop> shared;
  for (const HloInstruction* loop : lb.loops) {
    std::optional<CountedLoop> counted = AnalyzeCountedLoop(*loop);
    if (!counted.has_value() || counted->init != 0 || counted->step != 1 ||
        counted->trip_count < 1) {
      return std::nullopt;
    }
    if (shared.has_value() && (shared->index != counted->index ||
                               shared->trip_count != counted->trip_count)) {
      return std::nullopt;
    }
    shared = counted;
  }
  return shared;
}

// Largest (trip count + 1) x all-reduce bytes the DUS pattern accepts.
constexpr int64_t kDusSizeLimitBytes = int64_t{1} << 30;

// Moves one DUS level's interval (in the update's coordinates) into the
// operand's coordinates; false if the index is not supported. DUS clamps
// its start so the update fits, and so does this.
bool ComposeDusLevel(const HloInstruction* dus, const HloInstruction* update,
                     const LoopBody& lb, const CountedLoop& counted,
                     std::vector<std::pair<int64_t, int64_t>>* region) {
  for (int64_t d = 0; d < dus->shape().rank(); ++d) {
    const HloInstruction* index = dus->operand(d + 2);
    const int64_t size = update->shape().dimensions(d);
    const int64_t dim = dus->shape().dimensions(d);
    auto& [lo, hi] = (*region)[d];
    if (std::optional<int64_t> c = ScalarIntConstant(index)) {
      const int64_t start = std::clamp<int64_t>(*c, 0, dim - size);
      lo += start;
      hi += start;
      continue;
    }
    std::optional<AffineIndex> a =
        AffineInInductionVariable(index, lb, counted.index);
    // Rows written one per iteration: the update is one row thick there.
    if (!a.has_value() || size != 1) return false;
    const int64_t last = counted.trip_count - 1;
    const int64_t first_value = a->offset;
    const int64_t last_value = a->offset + a->scale * last;
    lo = std::clamp<int64_t>(std::min(first_value, last_value), 0, dim - 1);
    hi = std::clamp<int64_t>(std::max(first_value, last_value), 0, dim - 1) + 1;
  }
  return true;
}

// The all-reduce's value, through reshape/convert, is written by a chain
// of DUS ops at constant or induction-variable-affine offsets into a
// buffer the loops carry. Any reduction kind.
std::optional<Accumulation> MatchDynamicUpdateSlice(HloInstruction* ar,
                                                    const LoopBody& lb) {
  std::optional<HloOpcode> kind = ReductionKind(ar);
  if (!IsSimpleCollective(ar) || !kind.has_value() ||
      (*kind != HloOpcode::kAdd && *kind != HloOpcode::kMultiply &&
       *kind != HloOpcode::kMinimum && *kind != HloOpcode::kMaximum)) {
    return std::nullopt;
  }
  std::optional<CountedLoop> counted = SharedCountedLoop(lb);
  if (!counted.has_value()) return std::nullopt;
  const int64_t bytes =
      ar->shape().ElementCount() * StorageBytes(ar->shape().element_type());
  if ((counted->trip_count + 1) * bytes > kDusSizeLimitBytes) {
    return std::nullopt;
  }
  HloInstruction* cur = ar;
  while (HloInstruction* user = SingleUser(cur)) {
    if (user->opcode() != HloOpcode::kReshape &&
        user->opcode() != HloOpcode::kConvert) {
      break;
    }
    cur = user;
  }
  // The region of the last DUS's result that holds the collective's
  // values, composed level by level from the update's full extent.
  std::vector<std::pair<int64_t, int64_t>> region;
  for (int64_t d : cur->shape().dimensions()) region.push_back({0, d});
  HloInstruction* last = nullptr;
  while (HloInstruction* user = SingleUser(cur)) {
    if (user->opcode() != HloOpcode::kDynamicUpdateSlice ||
        user->operand(1) != cur || user->operand(0) == cur ||
        !ComposeDusLevel(user, cur, lb, *counted, &region)) {
      break;
    }
    last = user;
    cur = user;
  }
  if (last == nullptr || cur != last) return std::nullopt;
  const HloInstruction* buffer = last->operand(0);
  if (!IsParamElement(buffer, lb) || buffer->user_count() != 1) {
    return std::nullopt;
  }
  const int64_t index = buffer->tuple_index();
  if (SingleUser(last) != lb.body->root_instruction() ||
      !OwnsTupleElement(lb, buffer, last, index)) {
    return std::nullopt;
  }
  Accumulation m{ar, index, MoveKind::kRegion};
  m.region = std::move(region);
  return m;
}

// ---------------------------------------------------------------------------
// Scatter pattern: all-reduce(scatter(buffer, ...)) returned as the buffer.

// XLA moves this whenever the buffer is a loop-carried value. But the
// all-reduce then sums the carried part too, multiplying it by the group
// size every iteration, which one all-reduce after the loop cannot
// reproduce. It is a plain accumulation only when the scatter's base is
// zero in every iteration: a select against zero whose constant predicate
// picks the zero, with the buffer starting at zero.
std::optional<Accumulation> MatchScatter(HloInstruction* ar,
                                         const LoopBody& lb) {
  if (!IsSummingCollective(ar)) return std::nullopt;
  const HloInstruction* in = ar->operand(0);
  while (IsForwarding(in) || in->opcode() == HloOpcode::kSlice) {
    in = in->operand(0);
  }
  if (in->opcode() != HloOpcode::kScatter || in->operand_count() != 3 ||
      in->operand(0)->user_count() != 1) {
    return std::nullopt;
  }
  const HloInstruction* base = in->operand(0);
  bool zeroed = false;
  while (base->opcode() == HloOpcode::kSelect) {
    const bool zero_true = IsUniform(base->operand(1), 0);
    const bool zero_false = IsUniform(base->operand(2), 0);
    if (zero_true == zero_false) return std::nullopt;
    std::optional<double> p = UniformValue(base->operand(0));
    zeroed |= p.has_value() && (*p != 0) == zero_true;
    base = base->operand(zero_true ? 2 : 1);
    if (base->user_count() != 1) return std::nullopt;
  }
  if (!zeroed || !IsParamElement(base, lb)) return std::nullopt;
  const int64_t index = base->tuple_index();
  // The all-reduce's value returns to the same element.
  const HloInstruction* out = ar;
  while (HloInstruction* user = SingleUser(out)) {
    if (user == lb.body->root_instruction()) break;
    if (!IsForwarding(user)) return std::nullopt;
    out = user;
  }
  if (SingleUser(out) != lb.body->root_instruction() ||
      !OwnsTupleElement(lb, base, out, index) || !InitIsZero(lb, index)) {
    return std::nullopt;
  }
  return Accumulation{ar, index};
}

// ---------------------------------------------------------------------------
// Accumulation pattern (SUM): the collective's values, through ops that
// commute with a sum across devices, are added to loop-carried buffers.

// Whether `user` passes the collective's value `cur` on unchanged up to a
// map every group member applies alike.
bool PassesValueOn(const HloInstruction* ar, const HloInstruction* cur,
                   const HloInstruction* user, const LoopBody& lb) {
  switch (user->opcode()) {
    case HloOpcode::kConvert:
    case HloOpcode::kBitcast:
    case HloOpcode::kReshape:
    case HloOpcode::kTranspose:
    case HloOpcode::kSlice:
    case HloOpcode::kBroadcast:
      return true;
    case HloOpcode::kSelect:
      // Dropping the value on some iterations is linear only if every group
      // member drops it alike.
      return IsSelectWithZero(user, user->operand(1) == cur ? 1 : 2) &&
             (user->operand(1) == cur || user->operand(2) == cur) &&
             lb.replication->IsReplicatedWithin(user->operand(0), *ar);
    case HloOpcode::kMultiply:
      // A non-scalar all-reduce times a value every group member holds (a
      // broadcast scalar all-reduce, a constant) is linear, so it may move;
      // a scalar all-reduce times anything stays (the other factor could be
      // a collective that moves too).
      return ar->shape().rank() > 0 && user->operand(0) != user->operand(1) &&
             lb.replication->IsReplicatedWithin(
                 user->operand(user->operand(0) == cur ? 1 : 0), *ar);
    default:
      return false;
  }
}

// The buffer side of an accumulation `add` whose other operand carries the
// collective's value `cur`.
std::optional<Accumulation> MatchAdd(HloInstruction* ar,
                                     const HloInstruction* cur,
                                     const HloInstruction* add,
                                     const LoopBody& lb) {
  if (add->operand(0) == add->operand(1)) return std::nullopt;
  // The buffer: forwarding ops, at most one dynamic-slice, selects against
  // zero that every group member takes alike (a reset), then
  // get-tuple-element(parameter(0)).
  const HloInstruction* buffer = add->operand(add->operand(0) == cur ? 1 : 0);
  const HloInstruction* ds = nullptr;
  bool reset = false;
  while (true) {
    const HloInstruction* next = nullptr;
    if (IsForwarding(buffer)) {
      next = buffer->operand(0);
    } else if (buffer->opcode() == HloOpcode::kDynamicSlice && ds == nullptr) {
      ds = buffer;
      next = buffer->operand(0);
    } else if (buffer->opcode() == HloOpcode::kSelect && ds == nullptr &&
               IsSelectWithZero(buffer,
                                IsUniform(buffer->operand(2), 0) ? 1 : 2) &&
               lb.replication->IsReplicatedWithin(buffer->operand(0), *ar)) {
      reset = true;
      next = buffer->operand(IsUniform(buffer->operand(2), 0) ? 1 : 2);
    } else {
      break;
    }
    if (buffer->user_count() != 1) return std::nullopt;
    buffer = next;
  }
  if (!IsParamElement(buffer, lb)) return std::nullopt;
  const int64_t index = buffer->tuple_index();
  // The sum returns to the same tuple element (at most one DUS on the way,
  // pairing with the dynamic-slice).
  const HloInstruction* out = add;
  const HloInstruction* dus = nullptr;
  while (true) {
    const HloInstruction* user = SingleUser(out);
    if (user == nullptr) return std::nullopt;
    if (user == lb.body->root_instruction()) break;
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
      if (!lb.replication->IsReplicatedWithin(ds->operand(i), *ar)) {
        return std::nullopt;
      }
    }
  }
  // The buffer has no other reader: its get-tuple-element feeds only the
  // chain (and the DUS).
  const int64_t expected_users = dus != nullptr ? 2 : 1;
  if (buffer->user_count() != expected_users ||
      !OwnsTupleElement(lb, buffer, out, index)) {
    return std::nullopt;
  }
  // A reset drops the initial value in the original loop, while the
  // rewrite adds it back after the loop: only a zero start agrees.
  if (reset && !InitIsZero(lb, index)) return std::nullopt;
  return Accumulation{ar, index};
}

// Walks every use of `ar`; all of them must end in accumulations.
std::vector<Accumulation> MatchAccumulations(HloInstruction* ar,
                                             const LoopBody& lb) {
  if (!IsSummingCollective(ar)) return {};
  std::vector<Accumulation> out;
  std::vector<const HloInstruction*> work = {ar};
  absl::flat_hash_set<const HloInstruction*> seen;
  while (!work.empty()) {
    const HloInstruction* cur = work.back();
    work.pop_back();
    if (cur->IsRoot() || cur->users().empty()) return {};
    for (const HloInstruction* user : cur->users()) {
      if (user->opcode() == HloOpcode::kAdd) {
        std::optional<Accumulation> m = MatchAdd(ar, cur, user, lb);
        if (!m.has_value()) return {};
        out.push_back(*m);
      } else if (!PassesValueOn(ar, cur, user, lb)) {
        return {};
      } else if (seen.insert(user).second) {
        work.push_back(user);
      }
    }
  }
  return out;
}

// reduce-scatter(x) added straight into get-tuple-element(param, i) and
// returned at i: the body can accumulate x itself (the buffer widens to
// x's shape) and one reduce-scatter runs after the loop.
std::optional<Accumulation> MatchReduceScatter(HloInstruction* rs,
                                               const LoopBody& lb) {
  if (!IsSummingCollective(rs)) return std::nullopt;
  HloInstruction* add = SingleUser(rs);
  if (add == nullptr || add->opcode() != HloOpcode::kAdd ||
      add->operand(0) == add->operand(1)) {
    return std::nullopt;
  }
  HloInstruction* buffer = add->mutable_operand(add->operand(0) == rs ? 1 : 0);
  if (!IsParamElement(buffer, lb) || buffer->user_count() != 1 ||
      !OwnsTupleElement(lb, buffer, add, buffer->tuple_index())) {
    return std::nullopt;
  }
  Accumulation m{rs, buffer->tuple_index(), MoveKind::kReduceScatter};
  m.scatter_add = add;
  m.scatter_buffer = buffer;
  return m;
}

}  // namespace

std::vector<Accumulation> MatchCollective(HloInstruction* collective,
                                          const LoopBody& body,
                                          bool enable_reduce_scatter) {
  if (collective->opcode() == HloOpcode::kReduceScatter) {
    if (!enable_reduce_scatter) return {};
    std::optional<Accumulation> m = MatchReduceScatter(collective, body);
    if (m.has_value()) return {*m};
    return {};
  }
  if (collective->opcode() != HloOpcode::kAllReduce) return {};
  std::optional<Accumulation> m = MatchDynamicUpdateSlice(collective, body);
  if (!m.has_value()) m = MatchScatter(collective, body);
  if (m.has_value()) return {*m};
  return MatchAccumulations(collective, body);
}

}  // namespace xlite
