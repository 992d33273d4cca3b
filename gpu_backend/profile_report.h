#ifndef XLITE_GPU_BACKEND_PROFILE_REPORT_H_
#define XLITE_GPU_BACKEND_PROFILE_REPORT_H_

// The profile of a GPU module's runs (runtime::ThunkProfile) against the
// target's data-sheet peaks (GpuTargetSpec): per kernel and GEMM (library)
// call, sorted by total time, its calls, time, share of the run, bytes and
// FLOPs by the compiler's model (Thunk::cost, over all calls), achieved
// GB/s and TFLOP/s, and its share of the peak on the bound that applies —
// HBM bandwidth, or the peak_tflops of the thunk's FLOP type. The totals
// compare with the bandwidth only (their FLOPs mix types). As a table for
// people, as JSON for tools, and as a roofline chart (SVG) with one point
// per kernel; hlo-run --profile / --profile_json print and write them. The
// clock is named in every form: emulator times are the host's, not a
// GPU's, so their rates sit far below the roof.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gpu_backend/target_spec.h"
#include "runtime/profile_format.h"
#include "runtime/thunk_profile.h"

namespace xlite::gpu {

/// What a report is about: the module, where it ran ("gpu",
/// "gpu-emulator") and the spec whose peaks it compares with.
struct GpuProfileSource {
  std::string module;
  std::string platform;
  const runtime::ThunkProfile* profile = nullptr;
  GpuTargetSpec spec;
};

/// One row: a timed thunk (null for the totals) and its rates.
struct GpuProfileRow {
  const runtime::ThunkProfile::Entry* entry = nullptr;
  int64_t calls = 0;
  double total_us = 0;
  double percent_of_run = 0;
  int64_t bytes = 0;  // over all calls
  int64_t flops = 0;  // over all calls
  /// The spec's HBM bandwidth and the peak of the thunk's FLOP type.
  runtime::PeakRates peak;
  runtime::AchievedRates rates;
};

/// The rows by total time, longest first (then in first-run order).
std::vector<GpuProfileRow> GpuProfileRows(const GpuProfileSource& source);

/// The table: the peaks, a heading naming the clock, one line per kernel
/// or GEMM and a totals line.
std::string FormatGpuProfileTable(const GpuProfileSource& source);

/// The same as one JSON object.
std::string FormatGpuProfileJson(const GpuProfileSource& source);

/// The rows on a roofline of the spec (bandwidth slope, a ceiling per FLOP
/// type the rows use), as SVG.
std::string FormatGpuRooflineSvg(const GpuProfileSource& source);

/// Where the chart of a JSON profile goes: `json_path` with its ".json"
/// replaced by ".svg", or with ".svg" added.
std::string RooflineSvgPath(const std::string& json_path);

/// Writes the JSON to `json_path` and the chart beside it.
absl::Status WriteGpuProfileFiles(const GpuProfileSource& source,
                                  const std::string& json_path);

}  // namespace xlite::gpu

#endif  // XLITE_GPU_BACKEND_PROFILE_REPORT_H_
