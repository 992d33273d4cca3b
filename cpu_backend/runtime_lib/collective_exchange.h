#ifndef XLITE_CPU_BACKEND_RUNTIME_LIB_COLLECTIVE_EXCHANGE_H_
#define XLITE_CPU_BACKEND_RUNTIME_LIB_COLLECTIVE_EXCHANGE_H_

// The in-process exchange through which the devices of one multi-device
// run (one host thread each, replicas x partitions) meet in collectives.
//
// A collective is two barriers. Arrive: every participant publishes a
// pointer to its contribution (its operands, row-major) and waits until all
// have; the contributions are then read in place by every participant.
// Leave: each waits until all have finished reading, so nobody overwrites
// (or frees) an input another still reads. Rounds are told apart by
// instruction name, the arriving device's run count of that instruction
// and the participant list, as the evaluator's DeviceGroup does.
//
// Nothing hangs forever: when every device that has not finished is waiting
// to arrive, that is a deadlock; a wait longer than the timeout is one too.
// Either way the exchange fails: it records one message naming the
// instruction and what each device waits for, every wait returns at once,
// and every later Arrive fails immediately.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace xlite::cpu {

class CollectiveExchange {
 public:
  /// One collective's meeting (opaque to callers).
  struct Round;

  CollectiveExchange(int64_t replicas, int64_t partitions,
                     std::chrono::milliseconds timeout);
  CollectiveExchange(const CollectiveExchange&) = delete;
  CollectiveExchange& operator=(const CollectiveExchange&) = delete;

  int64_t replicas() const { return replicas_; }
  int64_t partitions() const { return partitions_; }

  /// `device` joins instruction `name`'s collective among `participants`
  /// (device ids, including `device`, the same list on each) contributing
  /// `contribution`. Returns the round once all have arrived, or null when
  /// the exchange has failed (see error()).
  std::shared_ptr<Round> Arrive(int64_t device, const std::string& name,
                                const std::vector<int64_t>& participants,
                                const void* contribution);

  /// Every participant's contribution, in participant order.
  static const std::vector<const void*>& Contributions(const Round& round);

  /// `device` has finished reading the contributions of `round`; returns
  /// once every participant has (false if the exchange failed meanwhile).
  bool Leave(Round& round);

  /// `device` has finished its program and joins no more collectives.
  void Finish(int64_t device);

  /// Fails the exchange with `message` (the first failure is kept).
  void Fail(const std::string& message);

  /// The failure message, or "" while none.
  std::string error() const;

 private:
  // With mu_ held.
  bool Deadlocked() const;
  void FailLocked(const std::string& message);
  std::string WaitStates() const;

  const int64_t replicas_;
  const int64_t partitions_;
  const std::chrono::milliseconds timeout_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::shared_ptr<Round>> open_;  // by key
  std::vector<std::map<std::string, int64_t>> runs_;    // per device
  std::vector<std::string> waiting_;  // per device: key, or "" if running
  std::vector<bool> finished_;
  std::string error_;
};

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_RUNTIME_LIB_COLLECTIVE_EXCHANGE_H_
