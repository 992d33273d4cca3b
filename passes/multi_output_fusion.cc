#include "passes/multi_output_fusion.h"

#include <optional>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "passes/fusion_builder.h"
#include "passes/gpu_fusion_rules.h"
#include "passes/gpu_kernel_model.h"

namespace xlite {
namespace {

using O = HloOpcode;

// Rounds of sibling and producer-consumer merging per computation.
constexpr int kMaxRounds = 8;
// Sibling users of one array considered pairwise (bounds the work).
constexpr size_t kMaxSiblings = 32;

// What a kernel iterates over: a reduction's input and reduced
// dimensions, a tiled transpose's operand and permutation, or a loop's
// result dimensions.
struct IterationSpace {
  KernelEmitter emitter = KernelEmitter::kLoop;
  std::vector<int64_t> dims;
  std::vector<int64_t> extra;
  bool operator==(const IterationSpace&) const = default;
};

std::vector<int64_t> DimsOf(const Shape& s) {
  const Shape& leaf = s.IsTuple() && !s.tuple_shapes().empty()
                          ? s.tuple_shapes(0)
                          : s;
  return {leaf.dimensions().begin(), leaf.dimensions().end()};
}

// The space of a kernel whose results all agree on one; nullopt when
// they do not (or for scatters).
std::optional<IterationSpace> SpaceOf(const KernelAnalysis& k) {
  std::optional<IterationSpace> space;
  std::vector<std::vector<int64_t>> loop_dims;
  for (size_t i = 0; i < k.heroes.size(); ++i) {
    const HloInstruction* hero = k.heroes[i];
    IterationSpace s;
    if (hero->opcode() == O::kReduce) {
      s.emitter = KernelEmitter::kReduction;
      s.dims = DimsOf(hero->operand(0)->shape());
      s.extra = hero->dimensions();
    } else if (hero->opcode() == O::kTranspose && IsTiledTranspose(*hero)) {
      s.emitter = KernelEmitter::kTranspose;
      s.dims = DimsOf(hero->operand(0)->shape());
      s.extra = hero->dimensions();
    } else {
      loop_dims.push_back(DimsOf(k.result_nodes[i]->shape()));
      continue;
    }
    if (space.has_value() && !(*space == s)) return std::nullopt;
    space = s;
  }
  if (k.emitter == KernelEmitter::kScatter) return std::nullopt;
  for (const std::vector<int64_t>& d : loop_dims) {
    if (!space.has_value()) {
      space = IterationSpace{KernelEmitter::kLoop, d, {}};
    } else if (space->emitter == KernelEmitter::kTranspose ||
               space->dims != d) {
      return std::nullopt;  // a side output must cover the hero's input
    }
  }
  return space;
}

bool Compatible(const IterationSpace& a, const IterationSpace& b) {
  if (a.emitter == b.emitter) return a == b;
  if (a.emitter == KernelEmitter::kReduction &&
      b.emitter == KernelEmitter::kLoop) {
    return a.dims == b.dims;
  }
  if (b.emitter == KernelEmitter::kReduction &&
      a.emitter == KernelEmitter::kLoop) {
    return a.dims == b.dims;
  }
  return false;
}

KernelAnalysis Analyze(std::vector<const HloInstruction*> members,
                       std::vector<const HloInstruction*> outputs) {
  return AnalyzeKernel(KernelView{std::move(members), std::move(outputs)});
}

// A kernel that may gain results: a fusible instruction or fusion that
// launches a kernel and does not update a buffer in place.
bool IsMultiOutputCandidate(const HloInstruction* h) {
  if (!IsGpuFusible(*h) || LaunchesNoKernel(*h)) return false;
  if (h->opcode() != O::kFusion && !h->shape().IsArray()) return false;
  const HloInstruction* root = h->opcode() == O::kFusion
                                   ? h->fused_computation()->root_instruction()
                                   : h;
  return root->opcode() != O::kDynamicUpdateSlice &&
         root->opcode() != O::kScatter;
}

// An array worth reading once instead of twice.
bool IsSharedArray(const HloInstruction* h) {
  if (!h->shape().IsArray() || h->shape().ElementCount() <= 1) return false;
  if (h->opcode() == O::kConstant || h->opcode() == O::kIota) return false;
  return !(h->opcode() == O::kBroadcast &&
           h->operand(0)->shape().ElementCount() <= 1);
}

// True when `to` is reachable from `from` through operands or control
// predecessors.
bool Reaches(const HloInstruction* from, const HloInstruction* to) {
  std::vector<const HloInstruction*> stack = {from};
  absl::flat_hash_set<const HloInstruction*> seen;
  while (!stack.empty()) {
    const HloInstruction* h = stack.back();
    stack.pop_back();
    if (h == to) return true;
    if (!seen.insert(h).second) continue;
    for (const HloInstruction* o : h->operands()) stack.push_back(o);
    for (const HloInstruction* o : h->control_predecessors()) stack.push_back(o);
  }
  return false;
}

class ComputationMultiOutputFusion {
 public:
  ComputationMultiOutputFusion(HloComputation& computation,
                               const GpuFusionTarget& target,
                               std::vector<HloComputation*>& orphans)
      : computation_(computation), target_(target), orphans_(orphans) {}

  absl::StatusOr<bool> Run() {
    bool changed = false;
    for (int round = 0; round < kMaxRounds; ++round) {
      removed_.clear();
      absl::StatusOr<bool> siblings = SiblingRound();
      if (!siblings.ok()) return siblings.status();
      absl::StatusOr<bool> chains = ProducerConsumerRound();
      if (!chains.ok()) return chains.status();
      if (!*siblings && !*chains) break;
      changed = true;
    }
    return changed;
  }

 private:
  absl::StatusOr<bool> SiblingRound();
  absl::StatusOr<bool> ProducerConsumerRound();
  bool SiblingsMerge(const HloInstruction* a, const HloInstruction* b) const;
  bool ProducerMerges(const HloInstruction* producer,
                      const HloInstruction* consumer) const;

  void Orphan(HloInstruction* h) {
    removed_.insert(h);
    if (h->opcode() == O::kFusion) orphans_.push_back(h->fused_computation());
  }

  HloComputation& computation_;
  const GpuFusionTarget& target_;
  std::vector<HloComputation*>& orphans_;
  absl::flat_hash_set<const HloInstruction*> removed_;
};

bool ComputationMultiOutputFusion::SiblingsMerge(const HloInstruction* a,
                                                 const HloInstruction* b) const {
  const KernelAnalysis ka = Analyze({a}, {a});
  const KernelAnalysis kb = Analyze({b}, {b});
  std::optional<IterationSpace> sa = SpaceOf(ka);
  std::optional<IterationSpace> sb = SpaceOf(kb);
  if (!sa || !sb || !Compatible(*sa, *sb)) return false;
  const KernelAnalysis merged = Analyze({a, b}, {a, b});
  if (!FitsGpuBudget(merged, target_).empty()) return false;
  if (KernelSeconds(merged, target_) >=
      KernelSeconds(ka, target_) + KernelSeconds(kb, target_)) {
    return false;
  }
  return !Reaches(a, b) && !Reaches(b, a);
}

absl::StatusOr<bool> ComputationMultiOutputFusion::SiblingRound() {
  bool changed = false;
  for (HloInstruction* shared : computation_.MakeInstructionPostOrder()) {
    if (removed_.contains(shared) || !IsSharedArray(shared)) continue;
    bool merged_one = true;
    while (merged_one) {
      merged_one = false;
      std::vector<HloInstruction*> users;
      for (HloInstruction* u : shared->users()) {
        if (users.size() < kMaxSiblings && IsMultiOutputCandidate(u)) {
          users.push_back(u);
        }
      }
      for (size_t i = 0; i < users.size() && !merged_one; ++i) {
        for (size_t j = i + 1; j < users.size() && !merged_one; ++j) {
          HloInstruction* a = users[i];
          HloInstruction* b = users[j];
          if (!SiblingsMerge(a, b)) continue;
          const KernelAnalysis merged_kernel = Analyze({a, b}, {a, b});
          HloInstruction* merged = MergeIntoMultiOutput(
              computation_, a, b, FusionKindFor(merged_kernel.emitter));
          const int64_t a_leaves = ResultLeafCount(*a);
          Orphan(a);
          Orphan(b);
          if (absl::Status s = RedirectToMultiOutput(computation_, a, merged, 0);
              !s.ok()) {
            return s;
          }
          if (absl::Status s =
                  RedirectToMultiOutput(computation_, b, merged, a_leaves);
              !s.ok()) {
            return s;
          }
          merged_one = changed = true;
        }
      }
    }
  }
  return changed;
}

bool ComputationMultiOutputFusion::ProducerMerges(
    const HloInstruction* producer, const HloInstruction* consumer) const {
  if (!IsGpuFusibleProducer(*producer) || !IsMultiOutputCandidate(producer) ||
      !IsMultiOutputCandidate(consumer)) {
    return false;
  }
  switch (producer->opcode()) {
    case O::kBroadcast: case O::kIota: case O::kConstant: case O::kBitcast:
    case O::kReshape: case O::kSlice:
      return false;  // cheap to recompute: priority fusion's business
    default:
      break;
  }
  if (producer->user_count() < 2) return false;
  const KernelAnalysis kp = Analyze({producer}, {producer});
  const KernelAnalysis kc = Analyze({consumer}, {consumer});
  std::optional<IterationSpace> sp = SpaceOf(kp);
  std::optional<IterationSpace> sc = SpaceOf(kc);
  if (kp.emitter != KernelEmitter::kLoop || !sp || !sc ||
      !Compatible(*sp, *sc)) {
    return false;
  }
  if (!CanFuseOnGpu(*producer, *consumer, target_).empty()) return false;
  const KernelAnalysis merged =
      Analyze({producer, consumer}, {consumer, producer});
  if (merged.emitter != kc.emitter || !SpaceOf(merged) ||
      !FitsGpuBudget(merged, target_).empty()) {
    return false;
  }
  if (KernelSeconds(merged, target_) >=
      KernelSeconds(kp, target_) + KernelSeconds(kc, target_)) {
    return false;
  }
  // Another path from the producer to the consumer would become a cycle.
  for (const HloInstruction* operand : consumer->operands()) {
    if (operand != producer && Reaches(operand, producer)) return false;
  }
  return true;
}

absl::StatusOr<bool> ComputationMultiOutputFusion::ProducerConsumerRound() {
  bool changed = false;
  std::vector<HloInstruction*> order = computation_.MakeInstructionPostOrder();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    HloInstruction* consumer = *it;
    if (removed_.contains(consumer)) continue;
    for (HloInstruction* producer : consumer->operands()) {
      if (removed_.contains(producer) || !ProducerMerges(producer, consumer)) {
        continue;
      }
      const KernelAnalysis kernel =
          Analyze({producer, consumer}, {consumer, producer});
      HloInstruction* merged = FuseProducerIntoConsumer(
          computation_, producer, consumer, FusionKindFor(kernel.emitter),
          /*producer_as_output=*/true);
      const int64_t consumer_leaves = ResultLeafCount(*consumer);
      Orphan(consumer);
      Orphan(producer);
      if (absl::Status s =
              RedirectToMultiOutput(computation_, consumer, merged, 0);
          !s.ok()) {
        return s;
      }
      if (absl::Status s = RedirectToMultiOutput(computation_, producer, merged,
                                                 consumer_leaves);
          !s.ok()) {
        return s;
      }
      changed = true;
      break;  // the consumer is gone
    }
  }
  return changed;
}

}  // namespace

absl::StatusOr<bool> RunGpuMultiOutputFusion(HloModule& module,
                                             const GpuFusionTarget& target) {
  bool changed = false;
  std::vector<HloComputation*> orphans;
  for (HloComputation* computation : SequentialComputations(module)) {
    ComputationMultiOutputFusion fusion(*computation, target, orphans);
    absl::StatusOr<bool> fused = fusion.Run();
    if (!fused.ok()) return fused.status();
    changed |= *fused;
  }
  if (absl::Status s = RemoveUncalledComputations(module, orphans); !s.ok()) {
    return s;
  }
  return changed;
}

}  // namespace xlite
