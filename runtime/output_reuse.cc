// A step of BufferAssignment::Build between making the allocations and
// packing the arena: a temporary whose whole life ends before an output
// allocation's value is written (outputs live to the end) may live in that
// output's bytes instead of the arena, as XLA's buffer assignment reuses
// live-out allocations. The output's bytes are the caller's either way;
// only the arena shrinks.

#include <algorithm>
#include <vector>

#include "runtime/buffer_assignment_builder.h"

namespace xlite::runtime {
namespace {

// A (time, bytes) rectangle inside one allocation.
struct Occupant {
  int64_t start = 0;
  int64_t end = 0;  // inclusive
  int64_t offset = 0;
  int64_t size = 0;
};

bool Overlap(const Occupant& a, const Occupant& b) {
  const bool in_time = !(a.end < b.start || b.end < a.start);
  const bool in_bytes =
      a.offset < b.offset + b.size && b.offset < a.offset + a.size;
  return in_time && in_bytes;
}

struct Host {
  int allocation = 0;
  int64_t size = 0;
  std::vector<Occupant> occupants;

  // The lowest aligned offset at which `want` (its offset ignored) fits
  // among the occupants, or -1.
  int64_t FirstFit(Occupant want, int64_t alignment) const {
    std::vector<int64_t> offsets = {0};
    for (const Occupant& o : occupants) {
      offsets.push_back((o.offset + o.size + alignment - 1) / alignment *
                        alignment);
    }
    std::sort(offsets.begin(), offsets.end());
    for (int64_t at : offsets) {
      if (at + want.size > size) break;
      want.offset = at;
      if (std::none_of(occupants.begin(), occupants.end(),
                       [&](const Occupant& o) { return Overlap(o, want); })) {
        return at;
      }
    }
    return -1;
  }
};

}  // namespace

void BufferAssignmentBuilder::PlaceTempsInOutputs() {
  // Every output allocation, occupied by the buffers already placed in it
  // over their whole lives.
  std::vector<Host> hosts;
  absl::flat_hash_map<int, int> host_of;  // allocation -> hosts index
  for (size_t i = 0; i < result_.allocations_.size(); ++i) {
    if (result_.allocations_[i].kind != Allocation::Kind::kOutput) continue;
    host_of[static_cast<int>(i)] = static_cast<int>(hosts.size());
    hosts.push_back({static_cast<int>(i), result_.allocations_[i].size, {}});
  }
  if (hosts.empty()) return;
  auto life = [&](int b) {
    Occupant o{live_->range(b).start, live_->range(b).end, 0, 0};
    for (int m : sets_->Members(b)) {
      o.start = std::min(o.start, live_->range(m).start);
      o.end = std::max(o.end, live_->range(m).end);
      o.size = std::max(o.size, analysis_->value(m).size);
    }
    return o;
  };
  std::vector<std::pair<int, Occupant>> temps;
  for (const HloValue& value : analysis_->values()) {
    if (!sets_->IsBuffer(value.id)) continue;
    auto placed = placement_.find(value.id);
    if (placed != placement_.end()) {
      auto host = host_of.find(placed->second.first);
      if (host != host_of.end()) {
        hosts[host->second].occupants.push_back(life(value.id));
      }
      continue;
    }
    Occupant o = life(value.id);
    if (o.size > 0) temps.push_back({value.id, o});
  }
  // Largest first; each into the smallest output it fits in.
  std::stable_sort(temps.begin(), temps.end(), [](const auto& a, const auto& b) {
    return a.second.size > b.second.size;
  });
  for (auto& [b, want] : temps) {
    Host* best = nullptr;
    int64_t best_offset = -1;
    for (Host& host : hosts) {
      if (host.size < want.size) continue;
      if (best != nullptr && host.size >= best->size) continue;
      const int64_t at = host.FirstFit(want, options_.alignment);
      if (at < 0) continue;
      best = &host;
      best_offset = at;
    }
    if (best == nullptr) continue;
    want.offset = best_offset;
    best->occupants.push_back(want);
    placement_[b] = {best->allocation, best_offset};
  }
}

}  // namespace xlite::runtime
