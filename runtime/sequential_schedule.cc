#include "runtime/sequential_schedule.h"

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace xlite::runtime {
namespace {

// Bytes a scheduler may count as freed when the last reader of a value
// runs: values this computation computes (not parameters, constants or
// loop state, which stay live regardless).
bool IsFreeable(const HloValue& value, const HloComputation& computation) {
  return value.instruction->parent() == &computation && !value.is_phi &&
         value.instruction->opcode() != HloOpcode::kParameter &&
         value.instruction->opcode() != HloOpcode::kConstant;
}

class ListScheduler {
 public:
  ListScheduler(const HloComputation& computation,
                const AliasAnalysis& analysis)
      : computation_(computation), analysis_(analysis) {}

  std::vector<const HloInstruction*> Run() {
    Init();
    std::vector<const HloInstruction*> order;
    order.reserve(instructions_.size());
    while (!ready_.empty()) {
      const int i = ready_.begin()->second;
      ready_.erase(ready_.begin());
      scheduled_[i] = true;
      order.push_back(instructions_[i]);
      for (int v : reads_[i]) {
        if (--remaining_[v] != 1) continue;
        for (int reader : readers_[v]) Reprioritize(reader);
      }
      for (int s : successors_[i]) {
        if (--pending_[s] == 0) Push(s);
      }
    }
    return order;
  }

 private:
  void Init() {
    for (HloInstruction* h : computation_.instructions()) {
      index_[h] = static_cast<int>(instructions_.size());
      instructions_.push_back(h);
    }
    const size_t n = instructions_.size();
    pending_.assign(n, 0);
    successors_.assign(n, {});
    reads_.assign(n, {});
    defined_.assign(n, 0);
    scheduled_.assign(n, false);
    key_.assign(n, {0, -1});
    for (size_t i = 0; i < n; ++i) {
      const HloInstruction* h = instructions_[i];
      absl::flat_hash_set<const HloInstruction*> preds;
      for (const HloInstruction* p : h->operands()) preds.insert(p);
      for (const HloInstruction* p : h->control_predecessors()) {
        preds.insert(p);
      }
      for (const HloInstruction* p : preds) {
        auto it = index_.find(p);
        if (it == index_.end()) continue;
        ++pending_[i];
        successors_[it->second].push_back(static_cast<int>(i));
      }
      for (int v : analysis_.ValuesRead(h)) {
        if (!IsFreeable(analysis_.value(v), computation_)) continue;
        reads_[i].push_back(v);
        readers_[v].push_back(static_cast<int>(i));
        ++remaining_[v];
      }
      for (const auto& [leaf, v] : analysis_.Leaves(h)) {
        const HloValue& value = analysis_.value(v);
        if (value.instruction == h && !value.is_phi) defined_[i] += value.size;
      }
    }
    // Values the root returns outlive every reader.
    for (const auto& [leaf, v] :
         analysis_.Leaves(computation_.root_instruction())) {
      ++remaining_[v];
    }
    for (size_t i = 0; i < n; ++i) {
      if (pending_[i] == 0) Push(static_cast<int>(i));
    }
  }

  int64_t Priority(int i) const {
    int64_t freed = 0;
    for (int v : reads_[i]) {
      auto it = remaining_.find(v);
      if (it != remaining_.end() && it->second == 1) {
        freed += analysis_.value(v).size;
      }
    }
    return freed - defined_[i];
  }

  void Push(int i) {
    key_[i] = {-Priority(i), i};
    ready_.insert(key_[i]);
  }

  void Reprioritize(int i) {
    if (scheduled_[i] || key_[i].second < 0) return;
    if (ready_.erase(key_[i]) == 0) return;  // not ready yet
    Push(i);
  }

  const HloComputation& computation_;
  const AliasAnalysis& analysis_;
  std::vector<const HloInstruction*> instructions_;
  absl::flat_hash_map<const HloInstruction*, int> index_;
  std::vector<int> pending_;
  std::vector<std::vector<int>> successors_;
  std::vector<std::vector<int>> reads_;
  std::vector<int64_t> defined_;
  std::vector<bool> scheduled_;
  std::vector<std::pair<int64_t, int>> key_;
  absl::flat_hash_map<int, std::vector<int>> readers_;
  absl::flat_hash_map<int, int> remaining_;
  std::set<std::pair<int64_t, int>> ready_;
};

}  // namespace

bool IsValidSchedule(const HloComputation& computation,
                     const std::vector<const HloInstruction*>& order) {
  if (static_cast<int64_t>(order.size()) != computation.instruction_count()) {
    return false;
  }
  absl::flat_hash_set<const HloInstruction*> done;
  for (const HloInstruction* h : order) {
    if (h->parent() != &computation) return false;
    for (const HloInstruction* p : h->operands()) {
      if (!done.contains(p)) return false;
    }
    for (const HloInstruction* p : h->control_predecessors()) {
      if (p->parent() == &computation && !done.contains(p)) return false;
    }
    if (!done.insert(h).second) return false;
  }
  return true;
}

std::vector<const HloInstruction*> ScheduleComputation(
    const HloComputation& computation, const AliasAnalysis& analysis,
    bool keep_module_order) {
  if (keep_module_order) {
    std::vector<HloInstruction*> listed = computation.instructions();
    std::vector<const HloInstruction*> order(listed.begin(), listed.end());
    if (IsValidSchedule(computation, order)) return order;
  }
  return ListScheduler(computation, analysis).Run();
}

}  // namespace xlite::runtime
