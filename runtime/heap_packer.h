#ifndef XLITE_RUNTIME_HEAP_PACKER_H_
#define XLITE_RUNTIME_HEAP_PACKER_H_

// Packs buffers with known live ranges into one arena: the offset each gets
// such that two buffers live at the same time never share a byte. This is
// the last step of buffer assignment (the values, their aliasing and the
// schedule that gives live ranges come before it), shared by both backends.

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace xlite::runtime {

/// One buffer to place: `size` bytes, live from schedule position `start`
/// to `end`, both included (a buffer defined and last used at the same
/// position lives at that position only).
struct PackRequest {
  int64_t size = 0;
  int64_t start = 0;
  int64_t end = 0;
};

/// Where each request went, in request order, and the arena size.
struct PackResult {
  std::vector<int64_t> offsets;
  int64_t arena_size = 0;
};

/// Best-fit packing: each buffer, in turn, takes the smallest aligned gap
/// left by the buffers already placed that overlap it in time, or goes on
/// top of them. Two orders are tried, largest first (spatial) and earliest
/// first (temporal), and the smaller arena is kept. Offsets are multiples
/// of `alignment` (> 0), or, for a buffer smaller than that, of its size
/// rounded up to a power of two, at most 16 (a scalar needs no more);
/// zero-sized buffers get offset 0 and take no space. The arena size is
/// not rounded.
/// O(n^2) in the number of requests.
PackResult PackBuffers(absl::Span<const PackRequest> requests,
                       int64_t alignment);

/// The most bytes live at any one position: no packing can use a smaller
/// arena (alignment aside). For tests and reports.
int64_t PeakLiveBytes(absl::Span<const PackRequest> requests);

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_HEAP_PACKER_H_
