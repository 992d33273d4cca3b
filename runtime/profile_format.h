#ifndef XLITE_RUNTIME_PROFILE_FORMAT_H_
#define XLITE_RUNTIME_PROFILE_FORMAT_H_

// What the backends' profile reports (cpu_backend/profile_report.h,
// gpu_backend/profile_report.h) share: the rates a timed piece of work
// achieved and their share of a peak (the roofline's two bounds), and the
// text forms both print (aligned columns, "12.3 mem" cells, JSON strings).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace xlite::runtime {

/// The roof a profile compares against; 0 where it is unknown.
struct PeakRates {
  double bytes_per_second = 0;
  double flops_per_second = 0;
};

/// What `bytes` and `flops` done in `seconds` achieved against a peak.
struct AchievedRates {
  double gbytes_per_second = 0;
  double gflops_per_second = 0;
  double percent_of_bandwidth = 0;
  double percent_of_compute = 0;
  /// The larger of the two shares: the bound that applies.
  double percent_of_peak = 0;
  /// The FLOP share is the larger.
  bool compute_bound = false;
};

/// All zero when `seconds` is not positive; a share is zero where its
/// peak is unknown.
AchievedRates RatesAgainstPeak(int64_t bytes, int64_t flops, double seconds,
                               const PeakRates& peak);

/// FLOPs per byte moved (0 when no byte moves).
double ArithmeticIntensity(int64_t bytes, int64_t flops);

/// "12.3 mem" or "80.0 fp"; "-" when nothing was timed or neither peak is
/// known.
std::string PeakShareCell(const AchievedRates& rates, double seconds,
                          const PeakRates& peak);

/// Lines of cells as aligned columns, each line indented by two spaces:
/// the first `left_aligned` columns padded on the right, the others (the
/// numbers) on the left; trailing blanks dropped.
std::string AlignColumns(const std::vector<std::vector<std::string>>& lines,
                         size_t left_aligned);

/// `text` as a JSON string literal (quotes, backslashes and control
/// characters escaped).
std::string JsonQuote(absl::string_view text);

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_PROFILE_FORMAT_H_
