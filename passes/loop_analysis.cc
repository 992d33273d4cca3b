#include "passes/loop_analysis.h"

#include <algorithm>

#include "passes/hlo_util.h"

namespace xlite {
std::optional<int64_t> ScalarIntConstant(const HloInstruction* h) {
  if (h->opcode() != HloOpcode::kConstant || h->shape().rank() != 0 ||
      !h->attrs().literal.has_value() || h->attrs().literal->is_unknown() ||
      !IsInteger(h->shape().element_type())) {
    return std::nullopt;
  }
  return h->attrs().literal->GetAsInt64(0);
}

namespace {

bool IsParamElement(const HloInstruction* h, const HloComputation* c,
                    int64_t* index) {
  if (h->opcode() != HloOpcode::kGetTupleElement ||
      h->operand(0) != c->parameter_instruction(0)) {
    return false;
  }
  *index = h->tuple_index();
  return true;
}

}  // namespace

std::optional<CountedLoop> AnalyzeCountedLoop(const HloInstruction& loop) {
  if (loop.opcode() != HloOpcode::kWhile || !loop.shape().IsTuple()) {
    return std::nullopt;
  }
  const HloComputation* body = loop.while_body();
  const HloComputation* cond = loop.while_condition();
  const HloInstruction* compare = cond->root_instruction();
  if (compare->opcode() != HloOpcode::kCompare ||
      body->root_instruction()->opcode() != HloOpcode::kTuple ||
      loop.operand(0)->opcode() != HloOpcode::kTuple) {
    return std::nullopt;
  }
  // compare(gte(param, i), bound) with the bound a constant or an element
  // the body passes through unchanged whose initial value is a constant.
  int64_t index = -1;
  if (!IsParamElement(compare->operand(0), cond, &index)) return std::nullopt;
  const HloInstruction* init_tuple = loop.operand(0);
  std::optional<int64_t> bound = ScalarIntConstant(compare->operand(1));
  int64_t bound_index = -1;
  if (!bound.has_value() &&
      IsParamElement(compare->operand(1), cond, &bound_index)) {
    const HloInstruction* out = body->root_instruction()->operand(bound_index);
    int64_t same = -1;
    if (IsParamElement(out, body, &same) && same == bound_index) {
      bound = ScalarIntConstant(init_tuple->operand(bound_index));
    }
  }
  std::optional<int64_t> init = ScalarIntConstant(init_tuple->operand(index));
  if (!bound.has_value() || !init.has_value()) return std::nullopt;
  // The body's update: add(gte(param, i), constant step).
  const HloInstruction* next = body->root_instruction()->operand(index);
  if (next->opcode() != HloOpcode::kAdd) return std::nullopt;
  std::optional<int64_t> step;
  for (int side : {0, 1}) {
    int64_t i = -1;
    if (IsParamElement(next->operand(side), body, &i) && i == index) {
      step = ScalarIntConstant(next->operand(1 - side));
    }
  }
  if (!step.has_value() || *step == 0) return std::nullopt;
  CountedLoop result{index, *init, *step, *bound, 0};
  const int64_t s = *step;
  int64_t trips = 0;
  switch (compare->attrs().direction) {
    case ComparisonDirection::kLt:
      if (s <= 0) return std::nullopt;
      trips = *bound > *init ? (*bound - *init + s - 1) / s : 0;
      break;
    case ComparisonDirection::kLe:
      if (s <= 0) return std::nullopt;
      trips = *bound >= *init ? (*bound - *init) / s + 1 : 0;
      break;
    case ComparisonDirection::kGt:
      if (s >= 0) return std::nullopt;
      trips = *init > *bound ? (*init - *bound + (-s) - 1) / (-s) : 0;
      break;
    case ComparisonDirection::kNe:
      if ((*bound - *init) % s != 0 || (*bound - *init) / s < 0) {
        return std::nullopt;
      }
      trips = (*bound - *init) / s;
      break;
    default:
      return std::nullopt;
  }
  result.trip_count = trips;
  return result;
}

ReplicationAnalysis ReplicationAnalysis::Run(const HloModule& module) {
  ReplicationAnalysis analysis;
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) return analysis;
  std::vector<Flags> params;
  for (const HloInstruction* p : entry->parameter_instructions()) {
    const int64_t n = p->shape().IsTuple() ? p->shape().tuple_shapes_size() : 1;
    Flags flags(n, false);
    if (p->has_attrs() && p->attrs().parameter_replication.has_value()) {
      const std::vector<bool>& r = *p->attrs().parameter_replication;
      if (static_cast<int64_t>(r.size()) == n) {
        flags = r;
      } else if (r.size() == 1) {
        flags.assign(n, r[0]);
      }
    }
    params.push_back(flags);
  }
  analysis.VisitComputation(entry, params);
  return analysis;
}

ReplicationAnalysis::Flags ReplicationAnalysis::Elements(
    const HloInstruction* hlo) const {
  auto it = replicated_.find(hlo);
  const int64_t n =
      hlo->shape().IsTuple() ? hlo->shape().tuple_shapes_size() : 1;
  if (it == replicated_.end()) return Flags(n, false);
  if (static_cast<int64_t>(it->second.size()) == n) return it->second;
  const bool all = std::all_of(it->second.begin(), it->second.end(),
                               [](bool b) { return b; });
  return Flags(n, all);
}

void ReplicationAnalysis::Set(const HloInstruction* hlo, Flags flags) {
  replicated_[hlo] = std::move(flags);
}

bool ReplicationAnalysis::IsReplicated(const HloInstruction* hlo) const {
  auto it = replicated_.find(hlo);
  return it != replicated_.end() && !it->second.empty() &&
         std::all_of(it->second.begin(), it->second.end(),
                     [](bool b) { return b; });
}

void ReplicationAnalysis::VisitComputation(const HloComputation* c,
                                           const std::vector<Flags>& params) {
  for (const HloInstruction* h : c->MakeInstructionPostOrder()) {
    switch (h->opcode()) {
      case HloOpcode::kParameter: {
        const int64_t n = h->parameter_number();
        const int64_t width =
            h->shape().IsTuple() ? h->shape().tuple_shapes_size() : 1;
        Set(h, n < static_cast<int64_t>(params.size()) &&
                       static_cast<int64_t>(params[n].size()) == width
                   ? params[n]
                   : Flags(width, false));
        continue;
      }
      case HloOpcode::kTuple: {
        Flags flags;
        for (const HloInstruction* o : h->operands()) {
          flags.push_back(IsReplicated(o));
        }
        Set(h, flags);
        continue;
      }
      case HloOpcode::kGetTupleElement: {
        const Flags flags = Elements(h->operand(0));
        const bool r = h->tuple_index() < static_cast<int64_t>(flags.size()) &&
                       flags[h->tuple_index()];
        Set(h, Flags(h->shape().IsTuple() ? h->shape().tuple_shapes_size() : 1,
                     r));
        continue;
      }
      case HloOpcode::kWhile: {
        // Per-element fixed point: an element stays replicated while its
        // initial value and every iteration's value are.
        Flags state = Elements(h->operand(0));
        for (int round = 0; round <= static_cast<int>(state.size()); ++round) {
          VisitComputation(h->while_body(), {state});
          Flags next = Elements(h->while_body()->root_instruction());
          bool same = true;
          for (size_t i = 0; i < state.size() && i < next.size(); ++i) {
            if (state[i] && !next[i]) {
              state[i] = false;
              same = false;
            }
          }
          if (same) break;
        }
        VisitComputation(h->while_condition(), {state});
        Set(h, state);
        continue;
      }
      case HloOpcode::kCall:
      case HloOpcode::kConditional: {
        bool all = h->opcode() == HloOpcode::kCall || IsReplicated(h->operand(0));
        for (size_t k = 0; k < h->called_computations().size(); ++k) {
          const HloComputation* f = h->called_computations()[k];
          std::vector<Flags> args;
          if (h->opcode() == HloOpcode::kCall) {
            for (const HloInstruction* o : h->operands()) {
              args.push_back(Elements(o));
            }
          } else {
            args.push_back(Elements(h->operand(k + 1)));
          }
          VisitComputation(f, args);
          all &= IsReplicated(f->root_instruction());
        }
        Set(h, Flags(h->shape().IsTuple() ? h->shape().tuple_shapes_size() : 1,
                     all));
        continue;
      }
      default:
        Set(h, Flags(h->shape().IsTuple() ? h->shape().tuple_shapes_size() : 1,
                     Compute(h)));
    }
  }
}

bool ReplicationAnalysis::Compute(const HloInstruction* h) {
  switch (h->opcode()) {
    case HloOpcode::kConstant:
    case HloOpcode::kIota:
      return true;
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllGather:
      // Identical within each group of the collective.
      return true;
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
    case HloOpcode::kRng:
    case HloOpcode::kRngBitGenerator:
    case HloOpcode::kRngGetAndUpdateState:
    case HloOpcode::kInfeed:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
    case HloOpcode::kCustomCall:
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kReduceScatter:
      return false;
    default:
      break;
  }
  if (HasSideEffectDeep(h)) return false;
  // Called computations (fusions, reducers) must not ask for the device.
  std::vector<const HloComputation*> work(h->called_computations().begin(),
                                          h->called_computations().end());
  while (!work.empty()) {
    const HloComputation* f = work.back();
    work.pop_back();
    for (const HloInstruction* i : f->instructions()) {
      if (i->opcode() == HloOpcode::kReplicaId ||
          i->opcode() == HloOpcode::kPartitionId ||
          i->opcode() == HloOpcode::kRng) {
        return false;
      }
      work.insert(work.end(), i->called_computations().begin(),
                  i->called_computations().end());
    }
  }
  for (const HloInstruction* o : h->operands()) {
    if (!IsReplicated(o)) return false;
  }
  return true;
}

}  // namespace xlite
