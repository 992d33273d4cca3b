// xlite_cpu_parallel_range: the parts of a split kernel cover [0, count)
// exactly once, in contiguous ranges, as many as max_tasks, the count and
// kChunksPerThread per thread allow; every part, and every task of
// ParallelFor, runs in the caller's denormal mode.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "cpu_backend/runtime_lib/parallel_for.h"
#include "cpu_backend/runtime_lib/runtime_lib.h"
#include "hlo/ir/denormal_mode.h"

namespace xlite::cpu {
namespace {

// What the parts saw: the ranges, and each index's visits.
struct Record {
  std::mutex mu;
  std::vector<std::pair<int64_t, int64_t>> ranges;
  std::vector<std::atomic<int>> visits;
  explicit Record(int64_t n) : visits(n) {}
};

void Part(void** allocations, void* context, int64_t begin, int64_t end) {
  auto* record = static_cast<Record*>(context);
  EXPECT_EQ(allocations, nullptr);
  for (int64_t i = begin; i < end; ++i) ++record->visits[i];
  std::lock_guard<std::mutex> lock(record->mu);
  record->ranges.push_back({begin, end});
}

TEST(ParallelRange, PartsCoverTheRangeOnceEach) {
  for (int64_t count : {1, 2, 7, 1000, 4099}) {
    for (int64_t max_tasks : {1, 2, 3, 64}) {
      SCOPED_TRACE(testing::Message() << count << " " << max_tasks);
      Record record(count);
      xlite_cpu_parallel_range(&Part, nullptr, &record, count, max_tasks);
      for (int64_t i = 0; i < count; ++i) EXPECT_EQ(record.visits[i], 1);
      const int64_t threads =
          std::min({count, max_tasks, ContractionThreads()});
      const int64_t chunks =
          threads <= 1
              ? 1
              : std::min({count, max_tasks, threads * kChunksPerThread});
      EXPECT_EQ(static_cast<int64_t>(record.ranges.size()), chunks);
      std::sort(record.ranges.begin(), record.ranges.end());
      int64_t next = 0;
      for (const auto& [begin, end] : record.ranges) {
        EXPECT_EQ(begin, next);
        EXPECT_LT(begin, end);
        next = end;
      }
      EXPECT_EQ(next, count);
    }
  }
}

TEST(ParallelRange, CallFromAPoolTaskRunsInline) {
  // A kernel split inside a task of the pool (nested) must not wait on
  // the workers it occupies.
  std::atomic<int64_t> total{0};
  ParallelFor(2, [&](int64_t) {
    Record record(100);
    xlite_cpu_parallel_range(&Part, nullptr, &record, 100, 8);
    int64_t sum = 0;
    for (auto& v : record.visits) sum += v;
    total += sum;
  });
  EXPECT_EQ(total, 200);
}

// The modes the parts ran in, and on how many threads.
struct Modes {
  std::mutex mu;
  std::set<DenormalMode> modes;
  std::set<std::thread::id> threads;
  void Note() {
    std::lock_guard<std::mutex> lock(mu);
    modes.insert(CurrentDenormalMode());
    threads.insert(std::this_thread::get_id());
  }
};

void NoteMode(void**, void* context, int64_t, int64_t) {
  // Slow enough that the workers take parts too.
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  static_cast<Modes*>(context)->Note();
}

TEST(ParallelRange, PartsAndTasksRunInTheCallersDenormalMode) {
  if (!kDenormalModeSettable) GTEST_SKIP() << "no denormal mode here";
  if (ContractionThreads() < 2) GTEST_SKIP() << "one thread";
  // Each mode after the other: workers made in one mode (they inherit the
  // thread's that made them) run the other's parts in the other.
  for (DenormalMode mode : {DenormalMode::kFlushToZero, DenormalMode::kIeee,
                            DenormalMode::kFlushToZero}) {
    ScopedDenormalMode caller(mode);
    Modes parts;
    xlite_cpu_parallel_range(&NoteMode, nullptr, &parts, 64, 64);
    EXPECT_EQ(parts.modes, std::set<DenormalMode>{mode});
    EXPECT_GT(parts.threads.size(), 1u);
    Modes tasks;
    ParallelFor(ContractionThreads(), [&](int64_t) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      tasks.Note();
    });
    EXPECT_EQ(tasks.modes, std::set<DenormalMode>{mode});
    EXPECT_EQ(CurrentDenormalMode(), mode);
  }
}

}  // namespace
}  // namespace xlite::cpu
