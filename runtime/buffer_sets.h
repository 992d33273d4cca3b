#ifndef XLITE_RUNTIME_BUFFER_SETS_H_
#define XLITE_RUNTIME_BUFFER_SETS_H_

// Values grouped into buffers (union-find), and the interference test that
// decides whether two groups may share one: within a buffer, no value may
// be written while another member is still live, except where an in-place
// instruction writes over an operand it was the last to read.

#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "runtime/alias_analysis.h"
#include "runtime/live_ranges.h"

namespace xlite::runtime {

class BufferSets {
 public:
  BufferSets(const AliasAnalysis& analysis, const LiveRanges& live);

  /// The buffer (a representative value id) of value `v`.
  int Find(int v) const;
  const std::vector<int>& Members(int buffer) const {
    return members_[Find(buffer)];
  }
  /// Buffers are the values v with Find(v) == v.
  bool IsBuffer(int v) const { return Find(v) == v; }
  void Union(int a, int b);

  /// Allows `writer` to take the bytes of `operand` at the position where
  /// it reads `operand` for the last time (an in-place instruction).
  void AllowInPlace(int operand, int writer) {
    in_place_.insert({operand, writer});
  }

  /// A pair (writer, live) of values, one in each of the buffers of `a`
  /// and `b` (or both in `a` when a == b), where `writer` is defined while
  /// `live` is live; nullopt if the two may share bytes.
  std::optional<std::pair<int, int>> Interference(int a, int b) const;

 private:
  bool Writes(int v) const;
  std::optional<std::pair<int, int>> FirstConflict(
      const std::vector<int>& writers, const std::vector<int>& others) const;

  const AliasAnalysis& analysis_;
  const LiveRanges& live_;
  mutable std::vector<int> parent_;
  std::vector<std::vector<int>> members_;
  absl::flat_hash_set<std::pair<int, int>> in_place_;
};

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_BUFFER_SETS_H_
