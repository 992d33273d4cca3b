#include "runtime/heap_packer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace xlite::runtime {
namespace {

// A buffer's alignment: `alignment`, or less for a smaller buffer (its
// size rounded up to a power of two, at most 16).
int64_t AlignmentOf(int64_t size, int64_t alignment) {
  if (size >= alignment) return alignment;
  int64_t natural = 1;
  while (natural < size && natural < 16) natural *= 2;
  return std::min(natural, alignment);
}

// Brute force: buffers live at the same time never share a byte, and every
// offset is aligned and inside the arena.
void ExpectValid(const std::vector<PackRequest>& requests,
                 const PackResult& result, int64_t alignment) {
  ASSERT_EQ(result.offsets.size(), requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    const PackRequest& a = requests[i];
    if (a.size == 0) continue;
    EXPECT_EQ(result.offsets[i] % AlignmentOf(a.size, alignment), 0) << i;
    EXPECT_LE(result.offsets[i] + a.size, result.arena_size) << i;
    for (size_t j = i + 1; j < requests.size(); ++j) {
      const PackRequest& b = requests[j];
      if (b.size == 0 || a.end < b.start || b.end < a.start) continue;
      const bool apart = result.offsets[i] + a.size <= result.offsets[j] ||
                         result.offsets[j] + b.size <= result.offsets[i];
      EXPECT_TRUE(apart) << "buffers " << i << " and " << j
                         << " are live together and overlap";
    }
  }
}

TEST(HeapPacker, BuffersLiveAtDifferentTimesShareTheirSpace) {
  std::vector<PackRequest> r = {{64, 0, 1}, {64, 2, 3}, {64, 4, 5}};
  PackResult p = PackBuffers(r, 64);
  ExpectValid(r, p, 64);
  EXPECT_EQ(p.arena_size, 64);
}

TEST(HeapPacker, BuffersLiveTogetherAreStacked) {
  std::vector<PackRequest> r = {{64, 0, 5}, {128, 0, 5}, {64, 0, 5}};
  PackResult p = PackBuffers(r, 64);
  ExpectValid(r, p, 64);
  EXPECT_EQ(p.arena_size, 256);
}

// A short-lived buffer's space is reused by a later one (best fit) rather
// than growing the arena.
TEST(HeapPacker, ReusesTheGapADeadBufferLeaves) {
  std::vector<PackRequest> r = {{100, 0, 10}, {50, 0, 2}, {40, 5, 10}};
  PackResult p = PackBuffers(r, 1);
  ExpectValid(r, p, 1);
  EXPECT_EQ(p.arena_size, 150);
}

TEST(HeapPacker, OffsetsAreAligned) {
  std::vector<PackRequest> r = {{100, 0, 1}, {70, 0, 1}};
  PackResult p = PackBuffers(r, 64);
  ExpectValid(r, p, 64);
  EXPECT_EQ(p.arena_size, 128 + 70);
}

// Scalars and other small buffers are aligned to their own size only (at
// most 16), as loads of them need, so a handful of them takes a handful of
// bytes.
TEST(HeapPacker, SmallBuffersTakeTheirNaturalAlignment) {
  std::vector<PackRequest> r = {{4, 0, 1}, {4, 0, 1}, {1, 0, 1}, {8, 0, 1}};
  PackResult p = PackBuffers(r, 64);
  ExpectValid(r, p, 64);
  EXPECT_EQ(p.arena_size, 17);
  std::vector<PackRequest> q = {{40, 0, 1}, {40, 0, 1}};
  PackResult pq = PackBuffers(q, 64);
  ExpectValid(q, pq, 64);
  EXPECT_EQ(pq.arena_size, 88);  // the second at 48, not 64
}

TEST(HeapPacker, ZeroSizedBuffersTakeNoSpace) {
  std::vector<PackRequest> r = {{0, 0, 9}, {64, 0, 9}};
  PackResult p = PackBuffers(r, 64);
  ExpectValid(r, p, 64);
  EXPECT_EQ(p.arena_size, 64);
  EXPECT_EQ(PackBuffers({}, 64).arena_size, 0);
}

TEST(HeapPacker, PeakLiveBytesIsALowerBound) {
  std::vector<PackRequest> r = {{10, 0, 1}, {20, 1, 2}, {30, 3, 4}};
  EXPECT_EQ(PeakLiveBytes(r), 30);
}

// Random schedules: always valid, never below the live peak, and within
// the live peak's bound for best fit on these sizes in practice.
TEST(HeapPacker, RandomSchedulesPackValidly) {
  std::mt19937_64 gen(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + static_cast<int>(gen() % 60);
    std::vector<PackRequest> r(n);
    for (PackRequest& q : r) {
      q.start = static_cast<int64_t>(gen() % 100);
      q.end = q.start + static_cast<int64_t>(gen() % 30);
      q.size = static_cast<int64_t>(gen() % 5 == 0 ? 0 : 1 + gen() % 4096);
    }
    const int64_t alignment = trial % 2 == 0 ? 64 : 1;
    PackResult p = PackBuffers(r, alignment);
    ExpectValid(r, p, alignment);
    EXPECT_GE(p.arena_size, PeakLiveBytes(r));
    int64_t total = 0;
    for (const PackRequest& q : r) {
      total += (q.size + alignment - 1) / alignment * alignment;
    }
    EXPECT_LE(p.arena_size, total);
  }
}

}  // namespace
}  // namespace xlite::runtime
