// The simulated devices: the rendezvous and one thread per device.

#include "hlo/evaluator/device_group.h"

#include <thread>

#include "absl/strings/str_join.h"
#include "hlo/evaluator/internal.h"
#include "hlo/ir/denormal_mode.h"

namespace xlite::eval {

DeviceGroup::DeviceGroup(int64_t replicas, int64_t partitions)
    : replicas_(replicas),
      partitions_(partitions),
      waiting_(replicas * partitions),
      finished_(replicas * partitions, false) {}

bool DeviceGroup::Deadlocked() const {
  bool anyone_waiting = false;
  for (size_t d = 0; d < waiting_.size(); ++d) {
    if (finished_[d]) continue;
    if (waiting_[d].empty()) return false;  // still running
    anyone_waiting = true;
  }
  return anyone_waiting;
}

absl::StatusOr<std::vector<Literal>> DeviceGroup::Exchange(
    int64_t device, const std::string& key,
    const std::vector<int64_t>& participants, Literal value) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!deadlock_.empty()) return absl::AbortedError(deadlock_);
  Pending& p = pending_[key];
  if (p.participants.empty()) p.participants = participants;
  if (p.participants != participants) {
    return absl::InvalidArgumentError(
        absl::StrCat("devices disagree on the participants of ", key, ": {",
                     absl::StrJoin(p.participants, ","), "} vs {",
                     absl::StrJoin(participants, ","), "}"));
  }
  p.values[device] = std::move(value);
  if (p.values.size() == participants.size()) {
    for (int64_t d : participants) {
      p.result.push_back(std::move(p.values[d]));
      waiting_[d].clear();
    }
    p.complete = true;
    cv_.notify_all();
  } else {
    waiting_[device] = key;
    if (Deadlocked()) {
      std::vector<std::string> states;
      for (size_t d = 0; d < waiting_.size(); ++d) {
        states.push_back(absl::StrCat(
            "device ", d, ": ",
            finished_[d] ? std::string("finished")
                         : absl::StrCat("waits in ", waiting_[d])));
      }
      deadlock_ =
          absl::StrCat("collective deadlock: ", absl::StrJoin(states, "; "));
      cv_.notify_all();
      return absl::AbortedError(deadlock_);
    }
    cv_.wait(lock, [&] { return p.complete || !deadlock_.empty(); });
    if (!p.complete) return absl::AbortedError(deadlock_);
  }
  std::vector<Literal> result = p.result;
  if (++p.taken == static_cast<int64_t>(participants.size())) {
    pending_.erase(key);
  }
  return result;
}

void DeviceGroup::Finish(int64_t device) {
  std::lock_guard<std::mutex> lock(mu_);
  finished_[device] = true;
  waiting_[device].clear();
  if (deadlock_.empty() && Deadlocked()) {
    std::vector<std::string> states;
    for (size_t d = 0; d < waiting_.size(); ++d) {
      if (!finished_[d]) {
        states.push_back(absl::StrCat("device ", d, " waits in ", waiting_[d]));
      }
    }
    deadlock_ = absl::StrCat("collective deadlock (other devices finished): ",
                             absl::StrJoin(states, "; "));
    cv_.notify_all();
  }
}

absl::StatusOr<std::vector<Literal>> RunOnDevices(
    const HloModule& module, int64_t replicas, int64_t partitions,
    const std::vector<std::vector<Literal>>& arguments,
    const EvaluatorOptions& options) {
  if (replicas < 1 || partitions < 1) {
    return absl::InvalidArgumentError("replicas and partitions must be >= 1");
  }
  const int64_t n = replicas * partitions;
  if (static_cast<int64_t>(arguments.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected arguments for ", n, " devices, got ", arguments.size()));
  }
  if (module.entry_computation() == nullptr) {
    return absl::InvalidArgumentError("the module has no entry computation");
  }
  DeviceGroup group(replicas, partitions);
  std::vector<absl::StatusOr<Literal>> results(n,
                                               absl::UnknownError("not run"));
  auto run = [&](int64_t d) {
    ScopedDenormalMode mode(options.denormals);
    Evaluator evaluator(options, &group, d);
    std::vector<const Literal*> args;
    for (const Literal& a : arguments[d]) args.push_back(&a);
    results[d] = evaluator.Call(*module.entry_computation(), args);
    group.Finish(d);
  };
  if (n == 1) {
    run(0);
  } else {
    std::vector<std::thread> threads;
    for (int64_t d = 0; d < n; ++d) threads.emplace_back(run, d);
    for (std::thread& t : threads) t.join();
  }
  std::vector<Literal> out;
  for (int64_t d = 0; d < n; ++d) {
    if (!results[d].ok()) {
      return absl::Status(
          results[d].status().code(),
          absl::StrCat("device ", d, ": ", results[d].status().message()));
    }
    out.push_back(*std::move(results[d]));
  }
  return out;
}

}  // namespace xlite::eval
