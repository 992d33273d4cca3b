#include "runtime/buffer_sets.h"

#include <utility>

namespace xlite::runtime {

BufferSets::BufferSets(const AliasAnalysis& analysis, const LiveRanges& live)
    : analysis_(analysis), live_(live) {
  const size_t n = analysis.values().size();
  parent_.resize(n);
  members_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    parent_[i] = static_cast<int>(i);
    members_[i] = {static_cast<int>(i)};
  }
}

int BufferSets::Find(int v) const {
  while (parent_[v] != v) {
    parent_[v] = parent_[parent_[v]];
    v = parent_[v];
  }
  return v;
}

void BufferSets::Union(int a, int b) {
  a = Find(a);
  b = Find(b);
  if (a == b) return;
  // The smaller set joins the larger; the lower id stays representative
  // when sizes tie, so results do not depend on hash order.
  if (members_[a].size() < members_[b].size() ||
      (members_[a].size() == members_[b].size() && b < a)) {
    std::swap(a, b);
  }
  parent_[b] = a;
  members_[a].insert(members_[a].end(), members_[b].begin(),
                     members_[b].end());
  members_[b].clear();
}

bool BufferSets::Writes(int v) const {
  const HloValue& value = analysis_.value(v);
  return !value.is_phi && value.size > 0;
}

std::optional<std::pair<int, int>> BufferSets::FirstConflict(
    const std::vector<int>& writers, const std::vector<int>& others) const {
  for (int w : writers) {
    if (!Writes(w)) continue;
    const int64_t at = live_.range(w).start;
    for (int u : others) {
      if (u == w || analysis_.value(u).size == 0) continue;
      const LiveRange& r = live_.range(u);
      if (at < r.start || at > r.end) continue;
      if (r.end == at && in_place_.contains({u, w})) continue;
      return std::make_pair(w, u);
    }
  }
  return std::nullopt;
}

std::optional<std::pair<int, int>> BufferSets::Interference(int a,
                                                            int b) const {
  const std::vector<int>& ma = members_[Find(a)];
  const std::vector<int>& mb = members_[Find(b)];
  if (auto c = FirstConflict(ma, mb)) return c;
  if (Find(a) == Find(b)) return std::nullopt;
  return FirstConflict(mb, ma);
}

}  // namespace xlite::runtime
