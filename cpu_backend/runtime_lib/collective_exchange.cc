// CollectiveExchange: the two-barrier rendezvous of in-process collectives.

#include "cpu_backend/runtime_lib/collective_exchange.h"

#include <algorithm>
#include <sstream>

namespace xlite::cpu {

struct CollectiveExchange::Round {
  std::string key;
  std::vector<int64_t> participants;
  std::vector<const void*> contributions;  // by participant position
  int64_t arrived = 0;
  int64_t left = 0;
};

namespace {

std::string Join(const std::vector<int64_t>& ids) {
  std::ostringstream os;
  for (size_t i = 0; i < ids.size(); ++i) os << (i ? "," : "") << ids[i];
  return os.str();
}

}  // namespace

CollectiveExchange::CollectiveExchange(int64_t replicas, int64_t partitions,
                                       std::chrono::milliseconds timeout)
    : replicas_(replicas),
      partitions_(partitions),
      timeout_(timeout),
      runs_(replicas * partitions),
      waiting_(replicas * partitions),
      finished_(replicas * partitions, false) {}

const std::vector<const void*>& CollectiveExchange::Contributions(
    const Round& round) {
  return round.contributions;
}

bool CollectiveExchange::Deadlocked() const {
  bool anyone_waiting = false;
  for (size_t d = 0; d < waiting_.size(); ++d) {
    if (finished_[d]) continue;
    if (waiting_[d].empty()) return false;  // still running
    anyone_waiting = true;
  }
  return anyone_waiting;
}

std::string CollectiveExchange::WaitStates() const {
  std::ostringstream os;
  for (size_t d = 0; d < waiting_.size(); ++d) {
    os << (d ? "; " : "") << "device " << d << ": "
       << (finished_[d]          ? std::string("finished")
           : waiting_[d].empty() ? std::string("running")
                                 : "waits in " + waiting_[d]);
  }
  return os.str();
}

void CollectiveExchange::FailLocked(const std::string& message) {
  if (error_.empty()) error_ = message;
  cv_.notify_all();
}

void CollectiveExchange::Fail(const std::string& message) {
  std::lock_guard<std::mutex> lock(mu_);
  FailLocked(message);
}

std::string CollectiveExchange::error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

std::shared_ptr<CollectiveExchange::Round> CollectiveExchange::Arrive(
    int64_t device, const std::string& name,
    const std::vector<int64_t>& participants, const void* contribution) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!error_.empty()) return nullptr;
  const int64_t run = runs_[device][name]++;
  const std::string key =
      name + "#" + std::to_string(run) + "@{" + Join(participants) + "}";
  std::shared_ptr<Round>& slot = open_[key];
  if (slot == nullptr) {
    slot = std::make_shared<Round>();
    slot->key = key;
    slot->participants = participants;
    slot->contributions.resize(participants.size(), nullptr);
  }
  std::shared_ptr<Round> round = slot;
  const auto at = std::find(participants.begin(), participants.end(), device);
  round->contributions[at - participants.begin()] = contribution;
  if (++round->arrived == static_cast<int64_t>(participants.size())) {
    open_.erase(key);
    for (int64_t d : participants) waiting_[d].clear();
    cv_.notify_all();
    return round;
  }
  waiting_[device] = key;
  if (Deadlocked()) {
    FailLocked("collective deadlock: " + WaitStates());
    return nullptr;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  const int64_t needed = participants.size();
  if (!cv_.wait_until(lock, deadline, [&] {
        return round->arrived == needed || !error_.empty();
      })) {
    FailLocked("collective " + key + " timed out after " +
               std::to_string(timeout_.count()) + " ms: " + WaitStates());
  }
  waiting_[device].clear();
  if (round->arrived != needed) return nullptr;
  return round;
}

bool CollectiveExchange::Leave(Round& round) {
  std::unique_lock<std::mutex> lock(mu_);
  const int64_t needed = round.participants.size();
  if (++round.left == needed) {
    cv_.notify_all();
    return true;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  if (!cv_.wait_until(lock, deadline, [&] { return round.left == needed; })) {
    FailLocked("collective " + round.key + " timed out after " +
               std::to_string(timeout_.count()) +
               " ms waiting for participants to finish reading");
    return false;
  }
  return true;
}

void CollectiveExchange::Finish(int64_t device) {
  std::lock_guard<std::mutex> lock(mu_);
  finished_[device] = true;
  waiting_[device].clear();
  if (error_.empty() && Deadlocked()) {
    FailLocked("collective deadlock (other devices finished): " + WaitStates());
  }
}

}  // namespace xlite::cpu
