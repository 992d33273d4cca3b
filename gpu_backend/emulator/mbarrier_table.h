#ifndef XLITE_GPU_BACKEND_EMULATOR_MBARRIER_TABLE_H_
#define XLITE_GPU_BACKEND_EMULATOR_MBARRIER_TABLE_H_

// One emulated block's mbarrier objects (PTX ISA "Parallel Synchronization
// and Communication Instructions: mbarrier") and the bulk tensor copies
// (cp.async.bulk.tensor, TMA) that complete transactions on them, keyed by
// the barrier's shared-memory offset.
//
// A barrier's current phase completes when its pending arrivals reach
// zero and its transaction count is zero again; it then starts the next
// phase with the count it was initialized with. arrive.expect_tx adds
// bytes to the transaction count and arrives. A bulk copy is recorded
// when issued (its source bytes as they are then: sources are read-only
// inputs) and lands (writing shared memory and completing its bytes) only
// when a thread waits on its barrier after every arrival of the phase —
// so a kernel that reads a stage without waiting reads the shared memory
// fill, here as on a GPU where it would be a race.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace xlite::gpu::emulator {

class MbarrierTable {
 public:
  /// One bulk copy's bytes and where they land (shared offsets), in
  /// 16-byte chunks.
  struct Chunk {
    int64_t at = 0;
    uint8_t bytes[16] = {};
  };

  /// mbarrier.init: a new barrier at `at` expecting `count` arrivals per
  /// phase, in phase 0; "" or an error.
  std::string Init(int64_t at, int64_t count);
  /// mbarrier.arrive.expect_tx: `bytes` more transactions, one arrival.
  std::string ArriveExpectTx(int64_t at, int64_t bytes);
  /// mbarrier.arrive: one arrival. The last one of a phase with no
  /// transactions pending completes it at once (a barrier the threads only
  /// arrive on, as a pipeline's "empty" barriers); one with transactions
  /// completes when a thread waits (TryWait).
  std::string Arrive(int64_t at);
  /// tcgen05.commit's arrival: one arrival whose phase completes only
  /// after `complete` has run (writing the multiplies it tracks), which a
  /// wait on the phase does (TryWait), or a later arrival on a barrier
  /// whose phase awaits nothing else. "" or an error.
  std::string ArriveOnCompletion(int64_t at,
                                 std::function<std::string()> complete);
  /// A bulk copy completing `chunks`' bytes on the barrier at `at`.
  std::string AddCopy(int64_t at, std::vector<Chunk> chunks);
  /// mbarrier.try_wait.parity: whether the phase of parity `parity` has
  /// completed, landing the copies into `shared` first when every
  /// arrival of the current phase is in. Sets `error` when the barrier is
  /// not there.
  bool TryWait(int64_t at, int32_t parity, uint8_t* shared, std::string& error);
  /// Whether `hits(at, bytes)` holds for a chunk not landed yet.
  bool AnyPending(
      const std::function<bool(int64_t at, int32_t bytes)>& hits) const;
  /// Forgets every barrier (a new block).
  void Clear() { barriers_.clear(); }

 private:
  struct Barrier {
    int64_t count = 0;
    int64_t pending = 0;  // arrivals still expected this phase
    int64_t tx = 0;       // transaction bytes expected, not yet landed
    int64_t phase = 0;
    std::vector<std::vector<Chunk>> copies;                 // not landed
    std::vector<std::function<std::string()>> completions;  // not run
  };
  Barrier* Find(int64_t at, const char* what, std::string& error);
  /// Completes a phase that has every arrival and awaits only completions
  /// (runs them); "" or their error.
  static std::string Settle(Barrier& b);

  std::map<int64_t, Barrier> barriers_;
};

}  // namespace xlite::gpu::emulator

#endif  // XLITE_GPU_BACKEND_EMULATOR_MBARRIER_TABLE_H_
