#include "cpu_backend/instruction_fusion.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "cpu_backend/fusion_rules.h"
#include "hlo/ir/opcode.h"
#include "passes/fusion_builder.h"

namespace xlite::cpu {
namespace {

// Distinct indices one fused value may be computed at per element of its
// kernel's root; past it, it stays materialized (code size grows with it).
constexpr size_t kMaxIndexings = 8;
// Reductions per kernel (each one a nested loop); XLA:CPU stops at 5.
constexpr int kMaxReductions = 5;
constexpr size_t kMaxMembers = 200;

// How a fused value is read by its kernel: the index classes it is
// computed at (values read at one index class share one computation per
// root element), and whether an element of it serves several root elements.
struct Reads {
  std::vector<int> classes;
  bool reused = false;
};

struct Group {
  HloInstruction* root = nullptr;
  std::vector<HloInstruction*> members;
  absl::flat_hash_map<const HloInstruction*, Reads> reads;
  int reductions = 0;
  int next_class = 1;
};

bool IsReduction(const HloInstruction* hlo) {
  return hlo->opcode() == HloOpcode::kReduce ||
         hlo->opcode() == HloOpcode::kReduceWindow;
}

void AddClass(std::vector<int>& classes, int c) {
  if (std::find(classes.begin(), classes.end(), c) == classes.end()) {
    classes.push_back(c);
  }
}

// Plans and builds the fusions of one sequential computation.
class ComputationFusion {
 public:
  explicit ComputationFusion(HloComputation& computation)
      : computation_(computation),
        post_order_(computation.MakeInstructionPostOrder()) {
    for (size_t i = 0; i < post_order_.size(); ++i) position_[post_order_[i]] = i;
  }

  void Plan() {
    for (auto it = post_order_.rbegin(); it != post_order_.rend(); ++it) {
      PlanInstruction(*it);
    }
  }

  absl::StatusOr<bool> Build();

 private:
  void PlanInstruction(HloInstruction* x);
  Reads ReadsIn(Group& group, const HloInstruction* x) const;
  bool Accepts(const Group& group, const HloInstruction* x,
               const Reads& reads) const;
  void AddTo(int g, HloInstruction* x, Reads reads) {
    Group& group = groups_[g];
    group.members.push_back(x);
    group.reads[x] = std::move(reads);
    if (IsReduction(x)) ++group.reductions;
    groups_of_[x].push_back(g);
  }
  void StartGroup(HloInstruction* x) {
    Group group;
    group.root = x;
    groups_.push_back(std::move(group));
    AddTo(static_cast<int>(groups_.size()) - 1, x, Reads{{0}, false});
  }

  HloComputation& computation_;
  std::vector<HloInstruction*> post_order_;
  absl::flat_hash_map<const HloInstruction*, size_t> position_;
  std::vector<Group> groups_;
  absl::flat_hash_map<const HloInstruction*, std::vector<int>> groups_of_;
  // Emitted as themselves: their users outside any kernel read memory.
  absl::flat_hash_set<const HloInstruction*> standalone_;
};

Reads ComputationFusion::ReadsIn(Group& group, const HloInstruction* x) const {
  Reads result;
  for (const HloInstruction* user : x->users()) {
    auto it = group.reads.find(user);
    if (it == group.reads.end()) continue;
    const Reads& by_user = it->second;
    for (int64_t i = 0; i < user->operand_count(); ++i) {
      if (user->operand(i) != x) continue;
      result.reused |= by_user.reused || ReusesOperand(*user, i);
      if (x->shape().rank() == 0) {
        AddClass(result.classes, 0);  // one scalar, whatever the index
      } else if (ReadsAtSameIndex(*user, i)) {
        for (int c : by_user.classes) AddClass(result.classes, c);
      } else {
        for (size_t k = 0; k < by_user.classes.size(); ++k) {
          AddClass(result.classes, group.next_class++);
        }
      }
    }
  }
  return result;
}

bool ComputationFusion::Accepts(const Group& group, const HloInstruction* x,
                                const Reads& reads) const {
  if (group.members.size() >= kMaxMembers ||
      reads.classes.size() > kMaxIndexings) {
    return false;
  }
  if (IsExpensive(*x) && (reads.reused || reads.classes.size() > 1)) {
    return false;
  }
  if (IsReduction(x) && group.reductions >= kMaxReductions) return false;
  // An in-place dynamic-update-slice must be the only reader of its
  // buffer inside the kernel.
  if (group.root->opcode() == HloOpcode::kDynamicUpdateSlice) {
    const HloInstruction* buffer = group.root->operand(0);
    if (x == buffer) return false;
    for (const HloInstruction* operand : x->operands()) {
      if (operand == buffer) return false;
    }
  }
  return true;
}

void ComputationFusion::PlanInstruction(HloInstruction* x) {
  bool read_outside = x == computation_.root_instruction();
  std::vector<int> sites;
  for (const HloInstruction* user : x->users()) {
    if (standalone_.contains(user)) read_outside = true;
    auto it = groups_of_.find(user);
    if (it == groups_of_.end()) continue;
    for (int g : it->second) {
      if (std::find(sites.begin(), sites.end(), g) == sites.end()) {
        sites.push_back(g);
      }
    }
  }
  if (CanFuseAsProducer(*x) && !sites.empty()) {
    std::vector<std::pair<int, Reads>> accepted;
    for (int g : sites) {
      Reads reads = ReadsIn(groups_[g], x);
      if (Accepts(groups_[g], x, reads)) accepted.push_back({g, std::move(reads)});
    }
    const bool everywhere = !read_outside && accepted.size() == sites.size();
    // An expensive value is computed in one kernel only.
    if (everywhere && (sites.size() == 1 || !IsExpensive(*x))) {
      for (auto& [g, reads] : accepted) AddTo(g, x, std::move(reads));
      return;
    }
    if (!IsExpensive(*x)) {
      for (auto& [g, reads] : accepted) AddTo(g, x, std::move(reads));
    }
  }
  if (CanRootFusion(*x)) {
    StartGroup(x);
  } else {
    standalone_.insert(x);
  }
}

absl::StatusOr<bool> ComputationFusion::Build() {
  std::vector<std::pair<HloInstruction*, HloInstruction*>> replaced;
  for (Group& group : groups_) {
    if (group.members.size() <= 1) continue;
    std::sort(group.members.begin(), group.members.end(),
              [&](const HloInstruction* a, const HloInstruction* b) {
                return position_.at(a) < position_.at(b);
              });
    const FusionKind kind =
        IsReduction(group.root) ? FusionKind::kInput : FusionKind::kLoop;
    replaced.push_back(
        {group.root,
         BuildFusion(computation_, group.members, group.root, kind)});
  }
  for (auto& [root, fusion] : replaced) {
    if (absl::Status s = root->ReplaceAllUsesWith(fusion); !s.ok()) return s;
  }
  // What was fused everywhere it was read is dead now.
  for (auto it = post_order_.rbegin(); it != post_order_.rend(); ++it) {
    HloInstruction* x = *it;
    if (!x->users().empty() || x == computation_.root_instruction() ||
        x->opcode() == HloOpcode::kParameter || x->HasSideEffect() ||
        !x->control_predecessors().empty() ||
        !x->control_successors().empty()) {
      continue;
    }
    if (absl::Status s = computation_.RemoveInstruction(x); !s.ok()) return s;
  }
  return !replaced.empty();
}

}  // namespace

absl::StatusOr<bool> FuseInstructions(HloModule& module) {
  bool changed = false;
  for (HloComputation* computation : SequentialComputations(module)) {
    ComputationFusion fusion(*computation);
    fusion.Plan();
    absl::StatusOr<bool> built = fusion.Build();
    if (!built.ok()) return built.status();
    changed |= *built;
  }
  return changed;
}

}  // namespace xlite::cpu
