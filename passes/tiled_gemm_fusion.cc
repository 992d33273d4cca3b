#include "passes/tiled_gemm_fusion.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/module.h"
#include "hlo/ir/opcode.h"
#include "hlo/ir/tiled_gemm_config.h"
#include "passes/fusion_builder.h"

namespace xlite {
namespace {

using O = HloOpcode;
using PT = PrimitiveType;
using Set = absl::flat_hash_set<const HloInstruction*>;

// Bounds on what one kernel applies per element loaded / stored.
constexpr size_t kMaxProducers = 16;
constexpr size_t kMaxConsumers = 32;

bool HasControlEdges(const HloInstruction* h) {
  return !h->control_predecessors().empty() || !h->control_successors().empty();
}

bool IsTiledFloat(PT t) {
  return t == PT::kF32 || t == PT::kF16 || t == PT::kBF16;
}

// f8 operands convert exactly to f16, bf16 (e4m3) and f32 as they load.
bool IsTiledFloatOperand(PT t) {
  return IsTiledFloat(t) || t == PT::kF8E4M3FN || t == PT::kF8E5M2;
}

bool IsScalarConstant(const HloInstruction* h) {
  return h->opcode() == O::kConstant && h->shape().IsArray() &&
         h->shape().ElementCount() == 1;
}

bool IsScalarBroadcast(const HloInstruction* h) {
  return h->opcode() == O::kBroadcast &&
         h->operand(0)->shape().ElementCount() == 1;
}

// Cheap enough to compute in the fusion and outside it too.
bool IsCopyable(const HloInstruction* h) {
  return IsScalarConstant(h) ||
         (IsScalarBroadcast(h) && IsScalarConstant(h->operand(0)));
}

// A producer the kernel applies to each element it loads.
bool IsProducerOpcode(const HloInstruction* p) {
  if (!p->shape().IsArray() || HasControlEdges(p) || p->HasSideEffect()) {
    return false;
  }
  switch (p->opcode()) {
    case O::kConvert:
    case O::kBitcast:
    case O::kReshape:
    case O::kCopy:
    case O::kBroadcast:
    case O::kTranspose:
    case O::kPad:
      return true;
    case O::kConstant:
      return IsScalarConstant(p);
    case O::kMultiply:
      // Scales: per tensor (a broadcast scalar) or per block (the
      // block-scaling expansion's broadcast and reshape of the scales).
      return true;
    case O::kDivide:
      return IsScalarBroadcast(p->operand(1));
    default:
      return false;
  }
}

bool AllUsersIn(const HloInstruction* h, const Set& members) {
  if (h->IsRoot()) return false;
  return std::all_of(
      h->users().begin(), h->users().end(),
      [&](const HloInstruction* u) { return members.contains(u); });
}

// Adds the fusible producers of the dot's operands to `members`.
void CollectProducers(const HloInstruction* dot, Set& members) {
  std::vector<const HloInstruction*> stack(dot->operands().begin(),
                                           dot->operands().end());
  size_t added = 0;
  while (!stack.empty() && added < kMaxProducers) {
    const HloInstruction* p = stack.back();
    stack.pop_back();
    if (members.contains(p) || !IsProducerOpcode(p)) continue;
    if (!AllUsersIn(p, members) && !IsCopyable(p)) continue;
    members.insert(p);
    ++added;
    for (const HloInstruction* o : p->operands()) stack.push_back(o);
  }
}

// Whether `h` is `target` or computed from it.
bool DependsOn(const HloInstruction* h, const HloInstruction* target,
               Set& seen) {
  if (h == target) return true;
  if (!seen.insert(h).second) return false;
  for (const HloInstruction* o : h->operands()) {
    if (DependsOn(o, target, seen)) return true;
  }
  return false;
}

// An elementwise consumer of the dot's dimensions whose operands are in
// `region` or independent of the dot. Not a dead one (no users, not the
// root; a pipeline without dead code elimination keeps them): inside the
// fusion nothing would lead from it to the fusion's root, and the kernel
// computes only instructions the root reaches.
bool IsEpilogueStep(const HloInstruction* u, const HloInstruction* dot,
                    const Set& region) {
  if (!IsElementwiseOpcode(u->opcode()) || u->opcode() == O::kCopy ||
      !u->shape().IsArray() || HasControlEdges(u) || u->HasSideEffect() ||
      u->shape().dimensions() != dot->shape().dimensions() ||
      (u->user_count() == 0 && !u->IsRoot())) {
    return false;
  }
  for (const HloInstruction* o : u->operands()) {
    if (region.contains(o)) continue;
    Set seen;
    if (DependsOn(o, dot, seen)) return false;
  }
  return true;
}

// The members of `region` read outside it (or the computation's root).
std::vector<const HloInstruction*> Outputs(
    const std::vector<const HloInstruction*>& order, const Set& region) {
  std::vector<const HloInstruction*> out;
  for (const HloInstruction* m : order) {
    if (!AllUsersIn(m, region)) out.push_back(m);
  }
  return out;
}

// The dot and its epilogue: every reachable epilogue step when one of them
// alone is read outside, else the chain of single-user steps. Returns the
// root; `region` gets the members.
const HloInstruction* CollectConsumers(const HloInstruction* dot, Set& region) {
  region = {dot};
  std::vector<const HloInstruction*> order = {dot};
  for (size_t i = 0; i < order.size() && order.size() <= kMaxConsumers; ++i) {
    for (const HloInstruction* u : order[i]->users()) {
      if (region.contains(u) || !IsEpilogueStep(u, dot, region)) continue;
      region.insert(u);
      order.push_back(u);
    }
  }
  std::vector<const HloInstruction*> outs = Outputs(order, region);
  if (outs.size() == 1) return outs.front();
  region = {dot};
  const HloInstruction* root = dot;
  while (region.size() <= kMaxConsumers && root->user_count() == 1 &&
         !root->IsRoot() && IsEpilogueStep(root->users()[0], dot, region)) {
    root = root->users()[0];
    region.insert(root);
  }
  return root;
}

// The epilogue's other operands worth computing inside: scalar constants
// and broadcasts (with the scalar constant they broadcast).
void CollectSideInputs(const Set& region, Set& members) {
  for (const HloInstruction* m : region) {
    if (m->opcode() == O::kDot) continue;
    for (const HloInstruction* o : m->operands()) {
      if (region.contains(o)) continue;
      if (IsScalarConstant(o)) members.insert(o);
      if (o->opcode() == O::kBroadcast && !HasControlEdges(o)) {
        members.insert(o);
        if (IsScalarConstant(o->operand(0))) members.insert(o->operand(0));
      }
    }
  }
}

}  // namespace

bool IsTiledGemmCandidate(const HloInstruction& dot) {
  if (dot.opcode() != O::kDot || dot.operand_count() != 2 ||
      !dot.shape().IsArray() || HasControlEdges(&dot) ||
      dot.shape().ElementCount() == 0) {
    return false;
  }
  for (const HloInstruction* o : dot.operands()) {
    if (!o->shape().IsArray() || o->shape().ElementCount() == 0) return false;
  }
  const PT lt = dot.operand(0)->shape().element_type();
  const PT rt = dot.operand(1)->shape().element_type();
  const PT out = dot.shape().element_type();
  if (IsTiledFloatOperand(lt) && IsTiledFloatOperand(rt) && IsTiledFloat(out)) {
    return true;
  }
  return lt == PT::kS8 && rt == PT::kS8 && out == PT::kS32;
}

TiledGemmFusionPlan PlanTiledGemmFusion(HloInstruction* dot) {
  HloComputation& parent = *dot->parent();
  Set region;
  const HloInstruction* root = CollectConsumers(dot, region);
  Set members = region;
  CollectSideInputs(region, members);
  CollectProducers(dot, members);
  TiledGemmFusionPlan plan;
  for (HloInstruction* h : parent.MakeInstructionPostOrder()) {
    if (members.contains(h)) plan.members.push_back(h);
  }
  plan.root = const_cast<HloInstruction*>(root);
  return plan;
}

absl::StatusOr<HloInstruction*> FuseTiledGemm(HloInstruction* dot) {
  HloComputation& parent = *dot->parent();
  TiledGemmFusionPlan plan = PlanTiledGemmFusion(dot);
  const std::vector<HloInstruction*>& ordered = plan.members;
  HloInstruction* old_root = plan.root;
  HloInstruction* fusion =
      BuildFusion(parent, ordered, old_root, FusionKind::kCustom);
  fusion->set_name(parent.parent()->NewInstructionName("gemm_fusion"));
  fusion->set_backend_config(UntiledGemmBackendConfig());
  if (absl::Status s = old_root->ReplaceAllUsesWith(fusion); !s.ok()) {
    return s;
  }
  for (auto it = ordered.rbegin(); it != ordered.rend(); ++it) {
    if ((*it)->user_count() == 0 && !(*it)->IsRoot()) {
      if (absl::Status s = parent.RemoveInstruction(*it); !s.ok()) return s;
    }
  }
  return fusion;
}

absl::StatusOr<bool> RunTiledGemmFusion(HloModule& module) {
  bool changed = false;
  for (HloComputation* c : SequentialComputations(module)) {
    std::vector<HloInstruction*> dots;
    for (HloInstruction* h : c->MakeInstructionPostOrder()) {
      if (IsTiledGemmCandidate(*h)) dots.push_back(h);
    }
    for (HloInstruction* dot : dots) {
      absl::StatusOr<HloInstruction*> fusion = FuseTiledGemm(dot);
      if (!fusion.ok()) return fusion.status();
      changed = true;
    }
  }
  return changed;
}

}  // namespace xlite
