#include "passes/priority_fusion.h"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "passes/fusion_builder.h"
#include "passes/gpu_fusion_rules.h"
#include "passes/gpu_kernel_model.h"

namespace xlite {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The users a producer fuses into: every user but bitcasts (which keep
// reading the producer, as in XLA), each once.
std::vector<HloInstruction*> FusionConsumers(const HloInstruction* producer) {
  std::vector<HloInstruction*> consumers;
  for (HloInstruction* user : producer->users()) {
    if (user->opcode() == HloOpcode::kBitcast) continue;
    if (std::find(consumers.begin(), consumers.end(), user) == consumers.end()) {
      consumers.push_back(user);
    }
  }
  return consumers;
}

// The priority queue and the fusion loop of one computation.
class PriorityFusionQueue {
 public:
  PriorityFusionQueue(HloComputation& computation,
                      const GpuFusionTarget& target,
                      std::vector<HloComputation*>& orphans)
      : computation_(computation), target_(target), orphans_(orphans) {}

  absl::StatusOr<bool> Run();

 private:
  double Priority(const HloInstruction* producer) const;
  void Update(HloInstruction* hlo);
  void Forget(HloInstruction* hlo);
  absl::Status Remove(HloInstruction* hlo);
  absl::StatusOr<std::vector<HloInstruction*>> FuseIntoConsumers(
      HloInstruction* producer);
  absl::StatusOr<bool> FuseSmallConstants();

  HloComputation& computation_;
  const GpuFusionTarget& target_;
  std::vector<HloComputation*>& orphans_;
  // (priority, order) -> producer; the largest key is fused next.
  std::map<std::pair<double, int64_t>, HloInstruction*> queue_;
  absl::flat_hash_map<const HloInstruction*, std::pair<double, int64_t>> key_;
  absl::flat_hash_map<const HloInstruction*, int64_t> order_;
  int64_t next_order_ = 0;
};

double PriorityFusionQueue::Priority(const HloInstruction* producer) const {
  if (producer->opcode() == HloOpcode::kConstant ||
      !IsGpuFusibleProducer(*producer)) {
    return -kInfinity;  // constants are fused at the end
  }
  if (producer->opcode() == HloOpcode::kBitcast) return kInfinity;
  const std::vector<HloInstruction*> consumers = FusionConsumers(producer);
  if (consumers.empty()) return -kInfinity;
  // Bitcast users keep the producer alive: its own kernel is then saved
  // by nothing.
  const bool disappears = consumers.size() == producer->users().size();
  double unfused = disappears ? UnfusedSeconds(*producer, target_) : 0;
  double fused = 0;
  for (const HloInstruction* consumer : consumers) {
    KernelAnalysis kernel;
    if (!CanFuseOnGpu(*producer, *consumer, target_, &kernel).empty()) {
      return -kInfinity;
    }
    unfused += UnfusedSeconds(*consumer, target_);
    fused += KernelSeconds(kernel, target_);
  }
  return unfused - fused;
}

void PriorityFusionQueue::Forget(HloInstruction* hlo) {
  auto it = key_.find(hlo);
  if (it == key_.end()) return;
  queue_.erase(it->second);
  key_.erase(it);
}

void PriorityFusionQueue::Update(HloInstruction* hlo) {
  Forget(hlo);
  auto [order, inserted] = order_.try_emplace(hlo, next_order_);
  if (inserted) ++next_order_;
  const double priority = Priority(hlo);
  if (priority < 0) return;
  const std::pair<double, int64_t> key = {priority, order->second};
  queue_[key] = hlo;
  key_[hlo] = key;
}

absl::Status PriorityFusionQueue::Remove(HloInstruction* hlo) {
  Forget(hlo);
  order_.erase(hlo);
  if (hlo->opcode() == HloOpcode::kFusion) {
    orphans_.push_back(hlo->fused_computation());
  }
  return computation_.RemoveInstruction(hlo);
}

absl::StatusOr<std::vector<HloInstruction*>>
PriorityFusionQueue::FuseIntoConsumers(HloInstruction* producer) {
  std::vector<HloInstruction*> fused;
  for (HloInstruction* consumer : FusionConsumers(producer)) {
    KernelAnalysis kernel;
    if (!CanFuseOnGpu(*producer, *consumer, target_, &kernel).empty()) {
      continue;  // only bitcast producers get here with a refusal
    }
    HloInstruction* fusion = FuseProducerIntoConsumer(
        computation_, producer, consumer, FusionKindFor(kernel.emitter));
    if (absl::Status s = consumer->ReplaceAllUsesWith(fusion); !s.ok()) {
      return s;
    }
    if (absl::Status s = Remove(consumer); !s.ok()) return s;
    fused.push_back(fusion);
  }
  return fused;
}

absl::StatusOr<bool> PriorityFusionQueue::FuseSmallConstants() {
  bool changed = false;
  // Collected first: fusing removes users, which the loop must not visit.
  std::vector<HloInstruction*> constants;
  for (HloInstruction* h : computation_.MakeInstructionPostOrder()) {
    if (h->opcode() == HloOpcode::kConstant && IsGpuFusibleProducer(*h)) {
      constants.push_back(h);
    }
  }
  for (HloInstruction* constant : constants) {
    for (HloInstruction* user : FusionConsumers(constant)) {
      KernelAnalysis kernel;
      if (!CanFuseOnGpu(*constant, *user, target_, &kernel).empty()) continue;
      HloInstruction* fusion = FuseProducerIntoConsumer(
          computation_, constant, user, FusionKindFor(kernel.emitter));
      if (absl::Status s = user->ReplaceAllUsesWith(fusion); !s.ok()) return s;
      if (absl::Status s = Remove(user); !s.ok()) return s;
      changed = true;
    }
    if (constant->users().empty() &&
        computation_.root_instruction() != constant) {
      if (absl::Status s = Remove(constant); !s.ok()) return s;
    }
  }
  return changed;
}

absl::StatusOr<bool> PriorityFusionQueue::Run() {
  for (HloInstruction* hlo : computation_.MakeInstructionPostOrder()) {
    Update(hlo);
  }
  bool changed = false;
  while (!queue_.empty()) {
    HloInstruction* producer = std::prev(queue_.end())->second;
    Forget(producer);
    absl::StatusOr<std::vector<HloInstruction*>> fused =
        FuseIntoConsumers(producer);
    if (!fused.ok()) return fused.status();
    if (fused->empty()) continue;
    changed = true;
    if (producer->users().empty()) {
      if (absl::Status s = Remove(producer); !s.ok()) return s;
    }
    // The new fusions are producers now, and their operands have new
    // consumers: their priorities change.
    absl::flat_hash_set<HloInstruction*> stale;
    for (HloInstruction* fusion : *fused) {
      stale.insert(fusion);
      for (HloInstruction* operand : fusion->operands()) stale.insert(operand);
    }
    std::vector<HloInstruction*> ordered(stale.begin(), stale.end());
    std::sort(ordered.begin(), ordered.end(),
              [](const HloInstruction* a, const HloInstruction* b) {
                return a->unique_id() < b->unique_id();
              });
    for (HloInstruction* hlo : ordered) Update(hlo);
  }
  absl::StatusOr<bool> constants = FuseSmallConstants();
  if (!constants.ok()) return constants.status();
  return changed || *constants;
}

}  // namespace

absl::StatusOr<bool> RunPriorityFusion(HloModule& module,
                                       const GpuFusionTarget& target) {
  bool changed = false;
  std::vector<HloComputation*> orphans;
  for (HloComputation* computation : SequentialComputations(module)) {
    PriorityFusionQueue queue(*computation, target, orphans);
    absl::StatusOr<bool> fused = queue.Run();
    if (!fused.ok()) return fused.status();
    changed |= *fused;
  }
  if (absl::Status s = RemoveUncalledComputations(module, orphans); !s.ok()) {
    return s;
  }
  return changed;
}

}  // namespace xlite
