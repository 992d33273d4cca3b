#ifndef XLITE_PASSES_WHILE_TRIP_COUNT_H_
#define XLITE_PASSES_WHILE_TRIP_COUNT_H_

// Known trip counts of while loops, as XLA records them: the while's
// backend_config `{"known_trip_count":{"n":"N"}, ...}`. The annotator
// writes it on counted loops (passes/loop_analysis) whose induction
// variable cannot wrap before the loop ends, keeping whatever else the
// config holds; a config that is not a JSON object is left alone. Runtimes
// then run the body N times without evaluating the condition (the GPU
// backend reads no predicate back to the host).

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"

namespace xlite {

/// The `known_trip_count` a while's backend_config gives, if any (a
/// non-negative integer; anything else reads as unknown).
std::optional<int64_t> KnownTripCount(const HloInstruction& loop);

/// Adds `known_trip_count` to every counted while loop lacking one.
absl::StatusOr<bool> AnnotateWhileTripCounts(HloModule& module);

}  // namespace xlite

#endif  // XLITE_PASSES_WHILE_TRIP_COUNT_H_
