#include "runtime/heap_packer.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>

namespace xlite::runtime {
namespace {

int64_t RoundUp(int64_t value, int64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// A buffer smaller than `alignment` gains nothing from it (it is loaded
// whole or element by element): its size rounded up to a power of two, at
// most 16 (the widest scalar, a complex128), is enough.
int64_t AlignmentFor(int64_t size, int64_t alignment) {
  if (size >= alignment) return alignment;
  int64_t natural = 1;
  while (natural < size && natural < 16) natural *= 2;
  return std::min(natural, alignment);
}

bool Overlap(const PackRequest& a, const PackRequest& b) {
  return a.start <= b.end && b.start <= a.end;
}

// Places the requests in `order` by best fit.
PackResult PackInOrder(absl::Span<const PackRequest> requests,
                       const std::vector<size_t>& order, int64_t alignment) {
  PackResult result;
  result.offsets.assign(requests.size(), 0);
  std::vector<size_t> placed;
  placed.reserve(requests.size());
  // (offset, end) of the placed buffers that overlap the current one in
  // time, sorted by offset.
  std::vector<std::pair<int64_t, int64_t>> busy;
  for (size_t i : order) {
    const PackRequest& r = requests[i];
    if (r.size == 0) continue;
    const int64_t align = AlignmentFor(r.size, alignment);
    busy.clear();
    for (size_t j : placed) {
      if (Overlap(r, requests[j])) {
        busy.push_back(
            {result.offsets[j], result.offsets[j] + requests[j].size});
      }
    }
    std::sort(busy.begin(), busy.end());
    // Walk the gaps between busy ranges; keep the smallest that fits.
    int64_t best = -1, best_gap = 0, cursor = 0;
    for (const auto& [begin, end] : busy) {
      const int64_t at = RoundUp(cursor, align);
      if (begin - at >= r.size && (best < 0 || begin - at < best_gap)) {
        best = at;
        best_gap = begin - at;
      }
      cursor = std::max(cursor, end);
    }
    const int64_t offset = best >= 0 ? best : RoundUp(cursor, align);
    result.offsets[i] = offset;
    result.arena_size = std::max(result.arena_size, offset + r.size);
    placed.push_back(i);
  }
  return result;
}

}  // namespace

PackResult PackBuffers(absl::Span<const PackRequest> requests,
                       int64_t alignment) {
  std::vector<size_t> order(requests.size());
  std::iota(order.begin(), order.end(), 0);
  // Spatial: largest first, earlier first among equals.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (requests[a].size != requests[b].size) {
      return requests[a].size > requests[b].size;
    }
    return requests[a].start < requests[b].start;
  });
  PackResult spatial = PackInOrder(requests, order, alignment);
  // Temporal: earliest first, larger first among equals.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (requests[a].start != requests[b].start) {
      return requests[a].start < requests[b].start;
    }
    return requests[a].size > requests[b].size;
  });
  PackResult temporal = PackInOrder(requests, order, alignment);
  return temporal.arena_size < spatial.arena_size ? std::move(temporal)
                                                  : std::move(spatial);
}

int64_t PeakLiveBytes(absl::Span<const PackRequest> requests) {
  // Sweep: +size at start, -size after end.
  std::map<int64_t, int64_t> delta;
  for (const PackRequest& r : requests) {
    delta[r.start] += r.size;
    delta[r.end + 1] -= r.size;
  }
  int64_t live = 0, peak = 0;
  for (const auto& [position, change] : delta) {
    live += change;
    peak = std::max(peak, live);
  }
  return peak;
}

}  // namespace xlite::runtime
